/**
 * `/plugin` in print mode (`north -p`): adding the test kit's marketplace
 * and listing its plugins work, installing is refused with the command that
 * asks in a terminal, and no request reaches the model for any of them.
 * Needs `node scripts/build.mjs` first.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readInstalledPlugins } from "../../src/storage/plugins/store";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedNorthEnv, makeTestMarketplace } from "../kit/plugin-marketplace";
import { runNorth } from "../kit/run-north";

let root = "";
let server: FakeLlmServer;

beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "north-plugin-print-"));
    server = await startFakeLlmServer();
});

afterEach(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
});

describe("/plugin in print mode", () => {
    it("adds a marketplace, lists its plugins, refuses to install without a yes", async () => {
        const market = makeTestMarketplace(root);
        const env = {
            ...isolatedNorthEnv(join(root, "north")),
            ANTHROPIC_API_KEY: "k",
            ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        };
        const print = (prompt: string) =>
            runNorth(["-p", prompt, "--path", root], { env, cwd: root });

        const added = await print(`/plugin marketplace add ${market.dir}`);
        expect(added.code, added.stderr).toBe(0);
        expect(added.stdout).toContain("Marketplace north-test added");

        const listed = await print("/plugin list");
        expect(listed.code, listed.stderr).toBe(0);
        expect(listed.stdout).toContain("alpha@north-test");
        expect(listed.stdout).toContain("beta@north-test");
        expect(listed.stdout).toContain(`north-test  ${market.dir}`);

        const install = await print("/plugin install alpha@north-test");
        expect(install.code).not.toBe(0);
        expect(install.stdout + install.stderr).toContain("north plugin install alpha@north-test");
        expect(readInstalledPlugins(join(root, "north", "data"))).toEqual({});
        expect(server.requests).toHaveLength(0);
    }, 60_000);
});
