/**
 * The plugin test kit itself: the marketplace is a real git repository with
 * the same commit on every build, its catalogue names both plugins, alpha's
 * hook script marks the file a test names, and beta's server answers a real
 * MCP client (the SDK's) over stdio.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import {
    ECHO_PREFIX,
    isolatedNorthEnv,
    makeTestMarketplace,
    PLUGIN_MARKER_ENV,
    testGit,
} from "../kit/plugin-marketplace";

const roots: string[] = [];
function tempRoot(): string {
    const root = mkdtempSync(join(tmpdir(), "north-plugin-kit-"));
    roots.push(root);
    return root;
}
afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("the plugin marketplace test kit", () => {
    it("builds the same committed repository every time, and change() makes a new commit", () => {
        const first = makeTestMarketplace(tempRoot());
        const second = makeTestMarketplace(tempRoot());
        expect(first.commit()).toMatch(/^[0-9a-f]{40}$/);
        expect(second.commit()).toBe(first.commit());
        expect(testGit(first.dir, "status", "--porcelain")).toBe("");

        const catalogue = JSON.parse(
            readFileSync(join(first.dir, ".claude-plugin/marketplace.json"), "utf8")
        ) as { name: string; plugins: Array<{ name: string; source: string }> };
        expect(catalogue.name).toBe("north-test");
        expect(catalogue.plugins.map((p) => [p.name, p.source])).toEqual([
            ["alpha", "./plugins/alpha"],
            ["beta", "./plugins/beta"],
        ]);

        const before = first.commit();
        const after = first.change("plugins/alpha/hooks/mark.mjs", "// changed\n");
        expect(after).not.toBe(before);
        expect(first.commit()).toBe(after);
        expect(testGit(first.dir, "rev-list", "--count", "HEAD")).toBe("2");
    });

    it("adds plugins, entry fields, symlinks, or leaves git out, as a bad-input test asks", () => {
        const root = tempRoot();
        const market = makeTestMarketplace(root, {
            name: "odd",
            extraPlugins: { broken: { ".claude-plugin/plugin.json": "{ not json" } },
            entries: { beta: { strict: false }, alpha: null },
            symlinks: { "plugins/broken/leak": "/etc/passwd" },
        });
        const catalogue = JSON.parse(
            readFileSync(join(market.dir, ".claude-plugin/marketplace.json"), "utf8")
        ) as { plugins: Array<Record<string, unknown>> };
        expect(catalogue.plugins.map((p) => p.name)).toEqual(["beta", "broken"]);
        expect(catalogue.plugins[0]!.strict).toBe(false);
        expect(lstatSync(join(market.dir, "plugins/broken/leak")).isSymbolicLink()).toBe(true);

        const plain = makeTestMarketplace(root, { name: "plain", noGit: true });
        expect(existsSync(join(plain.dir, ".git"))).toBe(false);
    });

    it("alpha's hook script appends its event and CLAUDE_PLUGIN_ROOT to the marker file", () => {
        const root = tempRoot();
        const market = makeTestMarketplace(root);
        const pluginRoot = join(market.dir, "plugins/alpha");
        const marker = join(root, "marker.txt");
        execFileSync(process.execPath, [join(pluginRoot, "hooks/mark.mjs"), "SessionStart"], {
            env: {
                ...isolatedNorthEnv(root),
                [PLUGIN_MARKER_ENV]: marker,
                CLAUDE_PLUGIN_ROOT: pluginRoot,
            },
        });
        expect(readFileSync(marker, "utf8")).toBe(`SessionStart ${pluginRoot}\n`);
    });

    it("beta's server notes its start and answers a real MCP client with its echo tool", async () => {
        const root = tempRoot();
        const market = makeTestMarketplace(root);
        const pluginRoot = join(market.dir, "plugins/beta");
        const mcp = JSON.parse(readFileSync(join(pluginRoot, ".mcp.json"), "utf8")) as {
            mcpServers: { echo: { command: string; args: string[] } };
        };
        const args = mcp.mcpServers.echo.args.map((a) =>
            a.replace("${CLAUDE_PLUGIN_ROOT}", pluginRoot)
        );
        const client = new Client({ name: "kit-test", version: "1.0.0" });
        await client.connect(
            new StdioClientTransport({
                command: process.execPath,
                args,
                cwd: root,
                env: {
                    ...(isolatedNorthEnv(root) as Record<string, string>),
                    [PLUGIN_MARKER_ENV]: join(root, "marker.txt"),
                    CLAUDE_PLUGIN_ROOT: pluginRoot,
                },
            })
        );
        try {
            const tools = await client.listTools();
            expect(tools.tools.map((t) => t.name)).toEqual(["echo"]);
            const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
            expect(result.content).toEqual([{ type: "text", text: `${ECHO_PREFIX}hi` }]);
            expect(readFileSync(join(root, "marker.txt"), "utf8")).toBe(`McpStart ${pluginRoot}\n`);
        } finally {
            await client.close();
        }
    });
});
