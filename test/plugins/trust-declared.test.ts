/**
 * A project's declared marketplaces and plugins (`extraKnownMarketplaces`,
 * `enabledPlugins` in its trust-gated settings): the trust question lists
 * them with their state in the user's store, nothing is cloned or installed
 * on trust alone, an untrusted project's declarations count for nothing, and
 * print mode (`--trust`) only names the commands that would install them.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { settleProjectTrust, type TrustInventory } from "../../src/cli/project-trust";
import { pluginsDir, writeInstalledPlugin } from "../../src/storage/plugins/store";
import { createTrustStore } from "../../src/storage/trust";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

let repo: string;
let home: string;
let data: string;

const DECLARING = {
    extraKnownMarketplaces: { tools: { source: { source: "github", repo: "acme/tools" } } },
    enabledPlugins: { "alpha@tools": true, "beta@tools": true, "gamma@tools": false },
};

function declare(file: string, settings: unknown): void {
    mkdirSync(join(repo, file, ".."), { recursive: true });
    writeFileSync(join(repo, file), JSON.stringify(settings));
}

beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-declared-repo-"));
    home = mkdtempSync(join(tmpdir(), "north-declared-home-"));
    data = join(home, "data");
});
afterEach(() => {
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

async function settle(answer: "trust" | "untrusted") {
    const asked: TrustInventory[] = [];
    const decision = await settleProjectTrust(
        repo,
        createTrustStore(data),
        async (inventory) => {
            asked.push(inventory);
            return answer;
        },
        { dataDir: data }
    );
    return { decision, asked };
}

describe("the trust question and a project's declared plugins", () => {
    it("lists each expected plugin with its marketplace and state, and clones nothing", async () => {
        declare(".claude/settings.json", DECLARING);
        const { decision, asked } = await settle("trust");
        expect(asked).toHaveLength(1);
        const plugins = asked[0]!.items.filter((i) => i.kind === "plugin");
        expect(plugins.map((i) => i.text)).toEqual([
            expect.stringMatching(
                /^alpha@tools \(marketplace tools: github acme\/tools\) — not installed/
            ),
            expect.stringMatching(/^beta@tools .* — not installed/),
        ]);
        expect(plugins.every((i) => i.source === ".claude/settings.json")).toBe(true);
        // gamma is only turned off by the project: nothing to list.
        expect(JSON.stringify(asked[0]!.items)).not.toContain("gamma");
        expect(decision.declared.plugins.map((p) => p.id)).toEqual(["alpha@tools", "beta@tools"]);
        expect(existsSync(pluginsDir(data))).toBe(false);
    });

    it("an untrusted project's declarations count for nothing", async () => {
        declare(".north/settings.json", DECLARING);
        const { decision } = await settle("untrusted");
        expect(decision.trusted).toBe(false);
        expect(decision.declared).toEqual({ marketplaces: [], plugins: [] });
        expect(existsSync(pluginsDir(data))).toBe(false);
    });

    it("a plugin the user installed and disabled: the question says trusting turns it on", async () => {
        declare(".north/settings.json", { enabledPlugins: { "alpha@tools": true } });
        const now = new Date().toISOString();
        writeInstalledPlugin(data, "alpha@tools", {
            id: "alpha@tools",
            name: "alpha",
            marketplace: "tools",
            path: join(data, "plugins", "cache", "tools", "alpha", "1.0.0"),
            fingerprint: "f",
            enabled: false,
            installedAt: now,
            updatedAt: now,
        });
        const { asked } = await settle("trust");
        const item = asked[0]!.items.find((i) => i.kind === "plugin")!;
        expect(item.text).toMatch(
            /^alpha@tools \(marketplace tools: not known here.*\) — installed but disabled by you: trusting this project turns it on here/
        );
    });

    it("the local file's false turns off what the shared file turns on", async () => {
        declare(".claude/settings.json", DECLARING);
        declare(".claude/settings.local.json", { enabledPlugins: { "alpha@tools": false } });
        const { decision } = await settle("trust");
        expect(decision.declared.plugins.map((p) => p.id)).toEqual(["beta@tools"]);
    });

    it("installing a declared plugin later does not ask to trust the project again", async () => {
        declare(".north/settings.json", DECLARING);
        await settle("trust");
        const now = new Date().toISOString();
        writeInstalledPlugin(data, "alpha@tools", {
            id: "alpha@tools",
            name: "alpha",
            marketplace: "tools",
            path: join(data, "x"),
            fingerprint: "f",
            enabled: true,
            installedAt: now,
            updatedAt: now,
        });
        const { asked, decision } = await settle("untrusted");
        expect(asked).toHaveLength(0);
        expect(decision.trusted).toBe(true);
    });
});

describe("print mode and declared plugins", () => {
    let server: FakeLlmServer;
    beforeAll(async () => {
        server = await startFakeLlmServer();
    });
    afterAll(async () => {
        await server.close();
    });

    function env(): NodeJS.ProcessEnv {
        const isolated = isolatedHome();
        home = isolated.home;
        data = isolated.env.NORTH_DATA_DIR!;
        return {
            ...isolated.env,
            ANTHROPIC_API_KEY: "k",
            ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        };
    }

    it("without --trust the declarations are ignored; with it they are listed, never installed", async () => {
        declare(".claude/settings.json", DECLARING);
        const e = env();
        server.enqueue({ text: "ok" });
        const untrusted = await runNorth(["-p", "hi", "--path", repo], { env: e });
        expect(untrusted.code).toBe(0);
        expect(untrusted.stderr).toContain("not trusted");
        expect(untrusted.stderr).not.toContain("expects plugin");

        server.enqueue({ text: "ok" });
        const trusted = await runNorth(["-p", "hi", "--path", repo, "--trust"], { env: e });
        expect(trusted.code).toBe(0);
        expect(trusted.stderr).toContain(
            "this project expects plugin alpha@tools, not installed (print mode installs nothing): north plugin marketplace add acme/tools && north plugin install alpha@tools"
        );
        expect(trusted.stderr).toContain("north plugin install beta@tools");
        expect(existsSync(pluginsDir(data))).toBe(false);
        expect(server.remaining()).toBe(0);
    });
});
