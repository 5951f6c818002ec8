/**
 * `north doctor`'s plugins section through the built CLI: the marketplace and
 * the commit it is pinned to, each installed plugin with its parts, a server
 * program found on PATH or not, a plugin changed since it was approved shown
 * as held, a disabled one, and what a trusted project expects but the user
 * does not have. Nothing of any plugin runs. Needs `node scripts/build.mjs`.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readInstalledPlugins } from "../../src/storage/plugins/store";
import { createTrustStore, readProjectConfig } from "../../src/storage/trust";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import {
    isolatedNorthEnv,
    makeTestMarketplace,
    PLUGIN_MARKER_ENV,
    type TestMarketplace,
} from "../kit/plugin-marketplace";
import { type NorthRun, runNorth } from "../kit/run-north";

const TIMEOUT = 60_000;

let server: FakeLlmServer;
let root: string;
let project: string;
let env: NodeJS.ProcessEnv;
let market: TestMarketplace;

beforeAll(async () => {
    server = await startFakeLlmServer();
    root = mkdtempSync(join(tmpdir(), "north-doctor-plugins-"));
    project = join(root, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    env = {
        ...isolatedNorthEnv(root),
        [PLUGIN_MARKER_ENV]: join(root, "marker"),
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: server.url,
    };
    market = makeTestMarketplace(root, {
        extraPlugins: {
            gamma: {
                ".claude-plugin/plugin.json": JSON.stringify({ name: "gamma", version: "0.1.0" }),
                ".lsp.json": JSON.stringify({
                    gamma: {
                        command: "north-test-no-such-language-server",
                        extensionToLanguage: { ".g": "g" },
                    },
                }),
            },
        },
    });
});
afterAll(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
});

async function north(...args: string[]): Promise<NorthRun> {
    const run = await runNorth(args, { env, cwd: project });
    return run;
}

const line = (output: string, label: string, has = ""): string =>
    output.split("\n").find((l) => l.slice(2).startsWith(`${label} `) && l.includes(has)) ?? "";

describe("north doctor and plugins", () => {
    it(
        "lists marketplaces, plugins with their parts and servers, held and disabled ones, and what the project expects",
        async () => {
            const none = await north("doctor", "--path", project);
            expect(line(none.stdout, "plugins")).toMatch(/✓ plugins\s+none installed/);

            for (const args of [
                ["plugin", "marketplace", "add", market.dir],
                ["plugin", "install", `alpha@${market.name}`, "--yes"],
                ["plugin", "install", `beta@${market.name}`, "--yes"],
                ["plugin", "install", `gamma@${market.name}`, "--yes"],
            ]) {
                const run = await north(...args);
                expect(run.code, run.stderr).toBe(0);
            }
            const alpha = `alpha@${market.name}`;
            const beta = `beta@${market.name}`;
            const gamma = `gamma@${market.name}`;
            mkdirSync(join(project, ".north"), { recursive: true });
            writeFileSync(
                join(project, ".north", "settings.json"),
                JSON.stringify({ enabledPlugins: { [`delta@${market.name}`]: true } }),
                { flag: "w" }
            );

            const run = await north("doctor", "--path", project);
            const out = run.stdout;
            expect(line(out, `marketplace ${market.name}`)).toContain(
                `pinned to ${market.commit().slice(0, 12)}`
            );
            expect(line(out, `plugin ${alpha}`)).toMatch(
                /enabled, 1\.0\.0 \([0-9a-f]{12}\): 1 command, 1 agent, 1 skill, 2 hooks/
            );
            expect(line(out, `plugin ${beta}`, "MCP server echo:")).toMatch(
                /✓ .*MCP server echo: node found: \//
            );
            expect(line(out, `plugin ${gamma}`, "language server gamma:")).toMatch(
                /! .*language server gamma: north-test-no-such-language-server not found on PATH/
            );
            // The project is not trusted: what it expects is not listed.
            expect(out).not.toContain("delta@");
            expect(existsSync(join(root, "marker"))).toBe(false);

            // Changed behind North's back: held; disabled by the user: said so.
            writeFileSync(join(readInstalledPlugins(env.NORTH_DATA_DIR!)[alpha]!.path, "x"), "x");
            expect((await north("plugin", "disable", beta)).code).toBe(0);
            const trustedBefore = await north("doctor", "--path", project);
            expect(line(trustedBefore.stdout, `plugin ${beta}`)).toMatch(/- .*disabled/);
            createTrustStore(env.NORTH_DATA_DIR!).trust(
                realpathSync(project),
                readProjectConfig(project).fingerprint!,
                {}
            );
            const trusted = await north("doctor", "--path", project);
            expect(line(trusted.stdout, `plugin delta@${market.name}`)).toContain(
                `the project expects it, not installed: north plugin install delta@${market.name}`
            );
            expect(line(trusted.stdout, `plugin ${alpha}`)).toMatch(
                /! .*held, none of it runs: changed since you approved it/
            );
            expect(existsSync(join(root, "marker"))).toBe(false);
        },
        TIMEOUT
    );
});
