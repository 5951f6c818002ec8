import {
    chmodSync,
    existsSync,
    renameSync,
    symlinkSync,
    truncateSync,
    unlinkSync,
    writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_FINGERPRINT_FILES, pluginFingerprint } from "../../src/project/plugins/fingerprint";
import { formatInventory, pluginInventory } from "../../src/project/plugins/inventory";
import { expandPluginText } from "../../src/project/plugins/variables";
import { json, pluginDir, type PluginDir } from "./format-helpers";

const dirs: PluginDir[] = [];
const make = (files: Record<string, string> = {}): PluginDir => {
    const dir = pluginDir(files);
    dirs.push(dir);
    return dir;
};
afterEach(() => {
    for (const dir of dirs.splice(0)) dir.remove();
});

describe("inventory", () => {
    it("lists every hook command, every server launch, the parts, unsupported fields and warnings", async () => {
        const dir = make({
            ".claude-plugin/plugin.json": json({
                name: "demo",
                version: "1.2.0",
                dependencies: ["x"],
                colour: 1,
            }),
            "commands/greet.md": "g\n",
            "agents/helper.md": "h\n",
            "skills/tidy/SKILL.md": "t\n",
            "output-styles/terse.md": "t\n",
            "hooks/hooks.json": json({
                hooks: {
                    PostToolUse: [
                        {
                            matcher: "Edit|Write",
                            hooks: [
                                { type: "command", command: "${CLAUDE_PLUGIN_ROOT}/fmt.sh" },
                                { type: "command", command: "node", args: ["a b.js", "--x"] },
                            ],
                        },
                    ],
                    SessionStart: [{ hooks: [{ type: "command", command: "echo hi >> log" }] }],
                    Stop: [{ hooks: [{ type: "prompt", prompt: "Check it\nmore" }] }],
                },
            }),
            ".mcp.json": json({
                mcpServers: {
                    pkg: { command: "npx", args: ["-y", "@scope/server@1"] },
                    web: { type: "sse", url: "https://example.test/sse" },
                },
            }),
            ".lsp.json": json({
                ts: {
                    command: "typescript-language-server",
                    args: ["--stdio"],
                    extensionToLanguage: { ".ts": "typescript" },
                },
            }),
        });
        const plugin = await dir.load();
        const inventory = pluginInventory(plugin, "github:o/r@abc");
        expect(inventory.hooks).toEqual([
            { event: "PostToolUse", matcher: "Edit|Write", command: `${dir.root}/fmt.sh` },
            { event: "PostToolUse", matcher: "Edit|Write", command: 'node "a b.js" --x' },
            { event: "SessionStart", command: "echo hi >> log" },
            { event: "Stop", command: "prompt: Check it" },
        ]);
        expect(formatInventory(inventory)).toEqual([
            "demo@market 1.2.0 from github:o/r@abc",
            "  Programs it can run (7), as its author wrote them:",
            `    hook PostToolUse [Edit|Write]: ${dir.root}/fmt.sh`,
            '    hook PostToolUse [Edit|Write]: node "a b.js" --x',
            "    hook SessionStart: echo hi >> log",
            "    hook Stop: prompt: Check it",
            "    MCP server pkg: npx -y @scope/server@1 (downloads and runs a package)",
            "    MCP server web: sse https://example.test/sse",
            "    LSP server ts: typescript-language-server --stdio",
            "  Commands: /demo:greet",
            "  Agents: demo:helper",
            "  Skills: demo:tidy",
            "  Output styles: demo:terse",
            "  Not supported: dependencies (plugin dependencies are not supported; install them yourself)",
            '  Warning: .claude-plugin/plugin.json: unknown field "colour" ignored',
        ]);
    });

    it("a plugin with no programs says so; reading did not create its data folder", async () => {
        const dir = make({ "commands/a.md": "a\n" });
        const plugin = await dir.load();
        expect(formatInventory(pluginInventory(plugin, "/path"))[1]).toBe(
            "  Runs no programs of its own."
        );
        expect(existsSync(join(dir.parent, "data"))).toBe(false);
    });

    it("expandPluginText takes the plugin itself", async () => {
        const dir = make({ "skills/s/SKILL.md": "x\n" });
        const plugin = await dir.load();
        expect(
            expandPluginText(
                "run ${CLAUDE_PLUGIN_ROOT}/x in ${CLAUDE_PROJECT_DIR} ${OTHER}",
                plugin
            )
        ).toBe(`run ${dir.root}/x in ${join(dir.parent, "project")} \${OTHER}`);
    });
});

describe("fingerprint", () => {
    const files = {
        ".claude-plugin/plugin.json": json({ name: "demo" }),
        "hooks/hooks.json": json({ hooks: {} }),
        "scripts/run.sh": "#!/bin/sh\necho hi\n",
        "commands/a.md": "a\n",
    };

    it("is stable, and changes with any file's content, mode, name, a new file or a link target", async () => {
        const dir = make(files);
        const base = await pluginFingerprint(dir.root);
        expect(base).toMatch(/^sha256:[0-9a-f]{64}$/);
        expect(await pluginFingerprint(dir.root)).toBe(base);
        const seen = new Set([base]);
        const changed = async (
            what: string,
            change: () => void,
            undo: () => void
        ): Promise<void> => {
            change();
            const next = await pluginFingerprint(dir.root);
            expect(seen.has(next), what).toBe(false);
            seen.add(next);
            undo();
            expect(await pluginFingerprint(dir.root), `${what} undone`).toBe(base);
        };
        const script = join(dir.root, "scripts", "run.sh");
        await changed(
            "content",
            () => writeFileSync(script, "#!/bin/sh\necho HI\n"),
            () => writeFileSync(script, files["scripts/run.sh"])
        );
        await changed(
            "mode",
            () => chmodSync(script, 0o755),
            () => chmodSync(script, 0o644)
        );
        await changed(
            "name",
            () => renameSync(script, join(dir.root, "scripts", "run2.sh")),
            () => renameSync(join(dir.root, "scripts", "run2.sh"), script)
        );
        const extra = join(dir.root, "commands", "b.md");
        await changed(
            "a new file",
            () => writeFileSync(extra, ""),
            () => unlinkSync(extra)
        );
        const link = join(dir.root, "link");
        symlinkSync("commands/a.md", link);
        const withLink = await pluginFingerprint(dir.root);
        expect(withLink).not.toBe(base);
        unlinkSync(link);
        symlinkSync("hooks/hooks.json", link);
        expect(await pluginFingerprint(dir.root)).not.toBe(withLink);
    });

    it("the same files in another folder give the same fingerprint", async () => {
        const one = make(files);
        const two = make(files);
        chmodSync(join(one.root, "scripts", "run.sh"), 0o644);
        chmodSync(join(two.root, "scripts", "run.sh"), 0o644);
        expect(await pluginFingerprint(one.root)).toBe(await pluginFingerprint(two.root));
    });

    it(`more than ${MAX_FINGERPRINT_FILES} files is an error`, async () => {
        const dir = make();
        for (let i = 0; i <= MAX_FINGERPRINT_FILES; i += 1)
            writeFileSync(join(dir.root, `f${i}`), "");
        await expect(pluginFingerprint(dir.root)).rejects.toThrow(/more than 5000 files/);
    });
});

describe("fingerprint bounds", () => {
    it("more than 256 MB is an error before anything is read", async () => {
        const dir = make();
        writeFileSync(join(dir.root, "big.bin"), "");
        truncateSync(join(dir.root, "big.bin"), 257 * 1024 * 1024);
        await expect(pluginFingerprint(dir.root)).rejects.toThrow(/larger than 256 MB/);
    });
});
