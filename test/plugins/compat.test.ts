/**
 * Two real public Claude Code plugins, read as fixtures (nothing of them
 * runs; no network):
 * - render-oss/render-plugin-claude-code @ da2a2491d3e5a5db83bb1f3cc68cb402371822fe (MIT),
 *   trimmed to 3 of its 21 skills (test/fixtures/plugins/render/NOTE.md);
 * - anthropics/claude-plugins-official @ 340e33aef211d95769d252324854497af871dafe
 *   (Apache-2.0): typescript-lsp, defined by its `strict: false` marketplace entry.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { pluginFingerprint } from "../../src/project/plugins/fingerprint";
import { formatInventory, pluginInventory } from "../../src/project/plugins/inventory";
import {
    parseMarketplaceManifest,
    resolveEntrySource,
} from "../../src/project/plugins/marketplace-manifest";
import { readPlugin } from "../../src/project/plugins/read";

const fixtures = resolve(__dirname, "../fixtures/plugins");
const dataDir = "/home/user/.north/plugins/data/x";
const projectDir = "/work/project";

function marketplace(dir: string) {
    const file = join(dir, ".claude-plugin", "marketplace.json");
    const result = parseMarketplaceManifest(readFileSync(file, "utf8"), file);
    if (!result.ok) throw new Error(result.error);
    return result;
}

describe("render (render-oss/render-plugin-claude-code)", () => {
    const root = join(fixtures, "render");

    it("its own marketplace lists it with a github source", () => {
        const { manifest, warnings } = marketplace(root);
        expect(warnings).toEqual([]);
        expect(manifest.name).toBe("render-plugin");
        expect(manifest.owner).toEqual({ name: "Render" });
        const entry = manifest.plugins[0]!;
        expect([entry.name, entry.version, entry.category, entry.strict]).toEqual([
            "render",
            "0.2.1",
            "developer-tools",
            true,
        ]);
        expect(resolveEntrySource(entry, root)).toEqual({
            kind: "github",
            repo: "render-oss/render-plugin-claude-code",
        });
    });

    it("every part loads: 2 commands, the agent, 3 skills, the hook, the HTTP MCP server", async () => {
        const entry = marketplace(root).manifest.plugins[0]!;
        const result = await readPlugin({
            root,
            marketplace: "render-plugin",
            dataDir,
            projectDir,
            entry: entry.raw,
        });
        if (!result.ok) throw new Error(result.error);
        const plugin = result.plugin;
        expect(plugin.id).toBe("render@render-plugin");
        expect(plugin.version).toBe("0.2.1");
        expect(plugin.commands.map((c) => c.name)).toEqual([
            "render:check-render-status",
            "render:deploy-to-render",
        ]);
        expect(plugin.agents.map((a) => a.name)).toEqual(["render:render-assistant"]);
        expect(plugin.skillDirs.map((d) => d.slice(plugin.root.length + 1))).toEqual([
            "skills/render-cli",
            "skills/render-disks",
            "skills/render-scaling",
        ]);
        expect(plugin.hooks).toEqual([
            {
                source: "hooks/hooks.json",
                hooks: {
                    PostToolUse: [
                        {
                            matcher: "Edit|Write|MultiEdit",
                            hooks: [
                                {
                                    type: "command",
                                    command: `${plugin.root}/scripts/validate-render-yaml-hook.sh`,
                                    timeout: 15,
                                },
                            ],
                        },
                    ],
                },
            },
        ]);
        // The server is kept as written; North does not do its OAuth sign-in, and says so.
        expect(plugin.mcpServers).toEqual({
            render: {
                type: "http",
                url: "https://mcp.render.com/mcp",
                oauth: { clientId: "claude" },
            },
        });
        expect(plugin.unsupported).toEqual([
            'MCP server render: "oauth" (North does not sign in to MCP servers; it connects without it)',
        ]);
        expect(plugin.lspServers).toEqual({});
        expect(plugin.outputStyles).toEqual([]);
        expect(plugin.warnings).toEqual([]);

        const lines = formatInventory(
            pluginInventory(plugin, "github:render-oss/render-plugin-claude-code@da2a249")
        );
        expect(lines).toContain(
            `    hook PostToolUse [Edit|Write|MultiEdit]: ${plugin.root}/scripts/validate-render-yaml-hook.sh`
        );
        expect(lines).toContain("    MCP server render: http https://mcp.render.com/mcp");
        expect(lines).toContain(
            "  Commands: /render:check-render-status, /render:deploy-to-render"
        );
        expect(lines).toContain("  Agents: render:render-assistant");
        expect(lines).toContain(
            "  Skills: render:render-cli, render:render-disks, render:render-scaling"
        );
    });

    it("its fingerprint is stable", async () => {
        const first = await pluginFingerprint(root);
        expect(await pluginFingerprint(root)).toBe(first);
    });
});

describe("typescript-lsp (anthropics/claude-plugins-official)", () => {
    const marketRoot = join(fixtures, "claude-plugins-official");

    it("the trimmed catalogue parses; fields North does not use are warned about", () => {
        const { manifest, warnings } = marketplace(marketRoot);
        expect(manifest.name).toBe("claude-plugins-official");
        expect(manifest.plugins.map((p) => [p.name, p.strict])).toEqual([
            ["clangd-lsp", false],
            ["jdtls-lsp", false],
            ["typescript-lsp", false],
        ]);
        expect(warnings).toEqual([
            `${join(marketRoot, ".claude-plugin", "marketplace.json")}: field "renames" is not used by North; ignored`,
        ]);
    });

    it("its strict:false entry is the whole definition: one LSP server with its extension map", async () => {
        const entry = marketplace(marketRoot).manifest.plugins.find(
            (p) => p.name === "typescript-lsp"
        )!;
        const source = resolveEntrySource(entry, marketRoot);
        expect(source).toEqual({
            kind: "relative",
            path: join(marketRoot, "plugins", "typescript-lsp"),
        });
        if (source.kind !== "relative") throw new Error("relative source expected");
        const result = await readPlugin({
            root: source.path,
            marketplace: "claude-plugins-official",
            dataDir,
            projectDir,
            entry: entry.raw,
        });
        if (!result.ok) throw new Error(result.error);
        const plugin = result.plugin;
        expect(plugin.id).toBe("typescript-lsp@claude-plugins-official");
        expect(plugin.version).toBe("1.0.0");
        expect(plugin.lspServers).toEqual({
            typescript: {
                command: "typescript-language-server",
                args: ["--stdio"],
                extensionToLanguage: {
                    ".ts": "typescript",
                    ".tsx": "typescriptreact",
                    ".js": "javascript",
                    ".jsx": "javascriptreact",
                    ".mts": "typescript",
                    ".cts": "typescript",
                    ".mjs": "javascript",
                    ".cjs": "javascript",
                },
            },
        });
        expect([plugin.commands, plugin.agents, plugin.skillDirs, plugin.hooks]).toEqual([
            [],
            [],
            [],
            [],
        ]);
        expect(plugin.mcpServers).toEqual({});
        expect([plugin.unsupported, plugin.warnings]).toEqual([[], []]);
        expect(formatInventory(pluginInventory(plugin, "claude-plugins-official"))).toContain(
            "    LSP server typescript: typescript-language-server --stdio"
        );
    });

    it("the sibling entries keep startupTimeout and multi-extension maps", async () => {
        const { manifest } = marketplace(marketRoot);
        const jdtls = manifest.plugins.find((p) => p.name === "jdtls-lsp")!;
        // Its folder is not in the fixture: read the entry against the typescript-lsp folder's shape.
        const result = await readPlugin({
            root: join(marketRoot, "plugins", "typescript-lsp"),
            marketplace: "claude-plugins-official",
            dataDir,
            projectDir,
            entry: jdtls.raw,
        });
        if (!result.ok) throw new Error(result.error);
        expect(result.plugin.lspServers).toEqual({
            jdtls: {
                command: "jdtls",
                extensionToLanguage: { ".java": "java" },
                startupTimeout: 120000,
            },
        });
        const clangd = manifest.plugins.find((p) => p.name === "clangd-lsp")!;
        const servers = (clangd.raw.lspServers as Record<string, { extensionToLanguage: object }>)
            .clangd;
        expect(Object.keys(servers!.extensionToLanguage)).toHaveLength(9);
    });
});
