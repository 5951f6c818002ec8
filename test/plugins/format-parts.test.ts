import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { json, pluginDir, type PluginDir } from "./format-helpers";

const dirs: PluginDir[] = [];
const make = (files: Record<string, string> = {}, name?: string): PluginDir => {
    const dir = pluginDir(files, name);
    dirs.push(dir);
    return dir;
};
afterEach(() => {
    for (const dir of dirs.splice(0)) dir.remove();
});

const manifest = (fields: Record<string, unknown>): Record<string, string> => ({
    ".claude-plugin/plugin.json": json({ name: "demo", ...fields }),
});

describe("manifest paths", () => {
    it.each([
        ["../x", 'must be relative to the plugin folder and start with "./"'],
        ["/abs/commands", 'must be relative to the plugin folder and start with "./"'],
        ["./../x", "leaves the plugin folder"],
        ["./commands/../../x", "leaves the plugin folder"],
    ])("commands %j: the plugin fails, naming the path", async (path, message) => {
        const error = await make(manifest({ commands: [path] })).fail();
        expect(error).toContain(`"commands"`);
        expect(error).toContain(path);
        expect(error).toContain(message);
    });

    it("a manifest path through a symlink out of the plugin: that part is refused with a warning", async () => {
        const dir = make(
            manifest({ agents: "./linked", commands: ["./cmds/ok.md", "./cmds/out.md"] })
        );
        mkdirSync(join(dir.parent, "elsewhere"));
        writeFileSync(join(dir.parent, "elsewhere", "spy.md"), "secret\n");
        symlinkSync(join(dir.parent, "elsewhere"), join(dir.root, "linked"));
        dir.write("cmds/ok.md", "fine\n");
        symlinkSync(join(dir.parent, "elsewhere", "spy.md"), join(dir.root, "cmds", "out.md"));
        const plugin = await dir.load();
        expect(plugin.agents).toEqual([]);
        expect(plugin.commands.map((c) => c.name)).toEqual(["demo:ok"]);
        expect(plugin.warnings).toContain(
            "linked is a symlink leading out of the plugin folder; refused"
        );
        expect(plugin.warnings).toContain(
            "cmds/out.md is a symlink leading out of the plugin folder; refused"
        );
    });

    it("default folders: a symlinked file or folder out of the plugin is skipped with a warning", async () => {
        const dir = make({
            "commands/fine.md": "fine\n",
            "skills/own/SKILL.md": "---\nname: own\n---\n",
        });
        writeFileSync(join(dir.parent, "secret.md"), "the user's secret\n");
        mkdirSync(join(dir.parent, "skill-out"));
        writeFileSync(join(dir.parent, "skill-out", "SKILL.md"), "x\n");
        symlinkSync(join(dir.parent, "secret.md"), join(dir.root, "commands", "secret.md"));
        symlinkSync(join(dir.parent, "skill-out"), join(dir.root, "skills", "stolen"));
        symlinkSync(join(dir.parent, "secret.md"), join(dir.root, ".mcp.json"));
        const plugin = await dir.load();
        expect(plugin.commands.map((c) => c.name)).toEqual(["demo:fine"]);
        expect(plugin.skillDirs).toEqual([join(dir.root, "skills", "own")]);
        expect(plugin.mcpServers).toEqual({});
        const warnings = plugin.warnings.join("\n");
        expect(warnings).toContain(
            "commands/secret.md is a symlink leading out of the plugin folder"
        );
        expect(warnings).toContain("skills/stolen is a symlink leading out of the plugin folder");
        expect(warnings).toContain(".mcp.json is a symlink leading out of the plugin folder");
    });

    it("a symlink that stays inside the plugin is followed", async () => {
        const dir = make({ "shared/a.md": "A\n" });
        mkdirSync(join(dir.root, "commands"));
        symlinkSync(join(dir.root, "shared", "a.md"), join(dir.root, "commands", "a.md"));
        expect((await dir.load()).commands.map((c) => c.name)).toEqual(["demo:a"]);
    });

    it("a command file that is a FIFO or huge is skipped with a warning, never read to the end", async () => {
        const dir = make({ "commands/ok.md": "ok\n", "commands/big.md": "x".repeat(65 * 1024) });
        execFileSync("mkfifo", [join(dir.root, "commands", "pipe.md")]);
        const plugin = await dir.load();
        expect(plugin.commands.map((c) => c.name)).toEqual(["demo:ok"]);
        const warnings = plugin.warnings.join("\n");
        expect(warnings).toContain("commands/big.md is larger than 64 KB; skipped");
        expect(warnings).toContain("commands/pipe.md is a FIFO; not read");
    });
});

describe("parts: replace and add", () => {
    it("default folders: commands (nested), agents (nested), skills, output styles", async () => {
        const plugin = await make({
            "commands/hello.md": "hi\n",
            "commands/git/commit.md": "c\n",
            "commands/bad name.md": "x\n",
            "agents/reviewer.md": "r\n",
            "agents/review/security.md": "s\n",
            "skills/tidy/SKILL.md": "t\n",
            "skills/notes.txt": "not a skill\n",
            "skills/empty/readme.md": "no SKILL.md\n",
            "output-styles/terse.md": "t\n",
            "output-styles/nested/deep.md": "not scanned\n",
        }).load();
        expect(plugin.commands.map((c) => c.name)).toEqual(["demo:git:commit", "demo:hello"]);
        expect(plugin.agents.map((a) => a.name)).toEqual(["demo:review:security", "demo:reviewer"]);
        expect(plugin.skillDirs.map((d) => d.slice(plugin.root.length + 1))).toEqual([
            "skills/tidy",
        ]);
        expect(plugin.outputStyles.map((s) => s.name)).toEqual(["demo:terse"]);
        expect(plugin.warnings.join("\n")).toContain(
            "commands/bad name.md: a name may not contain spaces"
        );
    });

    it("commands, agents and outputStyles in the manifest REPLACE their folder (with a warning)", async () => {
        const plugin = await make({
            ...manifest({
                commands: ["./extra/one.md", "./more"],
                agents: "./people",
                outputStyles: "./styles",
            }),
            "commands/ignored.md": "x\n",
            "agents/ignored.md": "x\n",
            "output-styles/ignored.md": "x\n",
            "extra/one.md": "1\n",
            "more/two.md": "2\n",
            "people/pat.md": "p\n",
            "styles/plain.md": "s\n",
        }).load();
        expect(plugin.commands.map((c) => c.name)).toEqual(["demo:one", "demo:two"]);
        expect(plugin.agents.map((a) => a.name)).toEqual(["demo:pat"]);
        expect(plugin.outputStyles.map((s) => s.name)).toEqual(["demo:plain"]);
        expect(plugin.warnings).toEqual([
            'commands/ is ignored: the manifest\'s "commands" replaces it',
            'agents/ is ignored: the manifest\'s "agents" replaces it',
            'output-styles/ is ignored: the manifest\'s "outputStyles" replaces it',
        ]);
    });

    it("a manifest path into the default folder gives no warning; a missing one does", async () => {
        const plugin = await make({
            ...manifest({ commands: ["./commands/a.md", "./commands/gone.md"] }),
            "commands/a.md": "a\n",
            "commands/b.md": "b\n",
        }).load();
        expect(plugin.commands.map((c) => c.name)).toEqual(["demo:a"]);
        expect(plugin.warnings).toEqual(["commands/gone.md named in the manifest does not exist"]);
    });

    it("skills in the manifest ADD to skills/; '.' is the root skill", async () => {
        const plugin = await make({
            ...manifest({ skills: ["./more-skills", "./single", "."] }),
            "SKILL.md": "root\n",
            "skills/a/SKILL.md": "a\n",
            "more-skills/b/SKILL.md": "b\n",
            "single/SKILL.md": "c\n",
        }).load();
        expect(plugin.skillDirs.map((d) => d.slice(plugin.root.length))).toEqual([
            "/skills/a",
            "/more-skills/b",
            "/single",
            "",
        ]);
    });

    it("a root SKILL.md is the one skill when there is neither skills/ nor a skills key", async () => {
        const alone = await make({ "SKILL.md": "x\n" }, "solo").load();
        expect(alone.skillDirs).toEqual([alone.root]);
        const withFolder = await make({ "SKILL.md": "x\n", "skills/a/SKILL.md": "a\n" }).load();
        expect(withFolder.skillDirs).toEqual([join(withFolder.root, "skills", "a")]);
    });

    it("a strict marketplace entry's components merge on top of plugin.json's", async () => {
        const plugin = await make({
            ...manifest({ commands: ["./a"], mcpServers: { one: { command: "one" } } }),
            "a/x.md": "x\n",
            "b/y.md": "y\n",
        }).load({
            entry: {
                name: "demo",
                source: "./demo",
                commands: "./b",
                mcpServers: { two: { command: "two" } },
            },
        });
        expect(plugin.commands.map((c) => c.name)).toEqual(["demo:x", "demo:y"]);
        expect(Object.keys(plugin.mcpServers)).toEqual(["one", "two"]);
    });

    it("strict: false with a plugin.json that declares components: conflicting manifests", async () => {
        const error = await make({ ...manifest({ commands: "./c" }), "c/x.md": "x\n" }).fail({
            entry: { name: "demo", source: "./demo", strict: false, lspServers: {} },
        });
        expect(error).toContain("conflicting manifests");
    });

    it("strict: false with a plugin.json of metadata only: the entry defines the parts", async () => {
        const plugin = await make(manifest({ version: "3.0.0" })).load({
            entry: {
                name: "demo",
                source: "./demo",
                strict: false,
                lspServers: { go: { command: "gopls", extensionToLanguage: { ".go": "go" } } },
            },
        });
        expect(plugin.version).toBe("3.0.0");
        expect(Object.keys(plugin.lspServers)).toEqual(["go"]);
    });
});

describe("hooks, MCP and LSP configurations", () => {
    const hook = (command: string) => ({
        PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command }] }],
    });

    it("hooks/hooks.json plus manifest files and inline hooks; naming hooks.json again loads it once", async () => {
        const plugin = await make({
            ...manifest({ hooks: ["./hooks/hooks.json", "./hooks/more.json", hook("inline")] }),
            "hooks/hooks.json": json({ description: "d", hooks: hook("default") }),
            "hooks/more.json": json(hook("more")),
        }).load();
        expect(plugin.hooks.map((h) => h.source)).toEqual([
            "hooks/hooks.json",
            "hooks/more.json",
            ".claude-plugin/plugin.json",
        ]);
        expect(plugin.warnings.join("\n")).toContain(
            "names ./hooks/hooks.json, which is always loaded; loaded once"
        );
    });

    it("a hooks file that is not JSON fails the plugin, naming it", async () => {
        const error = await make({ "hooks/hooks.json": "{ nope" }).fail();
        expect(error).toContain("hooks/hooks.json: not valid JSON");
    });

    it(".mcp.json with or without the mcpServers wrapper; a name defined twice keeps the first", async () => {
        const wrapped = await make({
            ...manifest({ mcpServers: { db: { command: "second" } } }),
            ".mcp.json": json({
                mcpServers: { db: { command: "first" }, web: { type: "http", url: "https://x" } },
            }),
        }).load();
        expect(wrapped.mcpServers).toEqual({
            db: { command: "first" },
            web: { type: "http", url: "https://x" },
        });
        expect(wrapped.warnings.join("\n")).toContain("MCP server db is already defined; skipped");
        const bare = await make({ ".mcp.json": json({ db: { command: "bare" } }) }).load();
        expect(bare.mcpServers).toEqual({ db: { command: "bare" } });
    });

    it(".lsp.json: an invalid server is skipped with a warning, the others load", async () => {
        const plugin = await make({
            ".lsp.json": json({
                ok: {
                    command: "ok-ls",
                    extensionToLanguage: { ".ok": "ok" },
                    startupTimeout: 1000,
                },
                nocmd: { extensionToLanguage: { ".x": "x" } },
                nomap: { command: "x" },
                extra: { command: "x", extensionToLanguage: { ".y": "y" }, colour: "red" },
            }),
        }).load();
        expect(Object.keys(plugin.lspServers)).toEqual(["ok"]);
        const warnings = plugin.warnings.join("\n");
        expect(warnings).toContain('LSP server nocmd needs a "command"; skipped');
        expect(warnings).toContain('LSP server nomap needs "extensionToLanguage"');
        expect(warnings).toContain('LSP server extra unknown field "colour"; skipped');
    });
});

describe("variables", () => {
    it("expanded in hooks anywhere, MCP and LSP launch fields only; other ${VAR} left alone", async () => {
        const dir = make({
            ".claude-plugin/plugin.json": json({
                name: "demo",
                lspServers: {
                    ls: {
                        command: "${CLAUDE_PLUGIN_ROOT}/ls",
                        args: ["--data", "${CLAUDE_PLUGIN_DATA}"],
                        env: { P: "${CLAUDE_PROJECT_DIR}" },
                        workspaceFolder: "${CLAUDE_PROJECT_DIR}",
                        extensionToLanguage: { ".x": "x" },
                        initializationOptions: { root: "${CLAUDE_PLUGIN_ROOT}" },
                    },
                },
            }),
            "hooks/hooks.json": json({
                hooks: {
                    SessionStart: [
                        {
                            hooks: [
                                {
                                    type: "command",
                                    command: '"${CLAUDE_PLUGIN_ROOT}"/start.sh ${HOME}',
                                    args: ["${CLAUDE_PLUGIN_DATA}"],
                                },
                            ],
                        },
                    ],
                },
            }),
            ".mcp.json": json({
                mcpServers: {
                    local: {
                        command: "node",
                        args: ["${CLAUDE_PLUGIN_ROOT}/server.js"],
                        env: { DATA: "${CLAUDE_PLUGIN_DATA}", KEY: "${API_KEY}" },
                        description: "${CLAUDE_PLUGIN_ROOT}",
                    },
                    remote: {
                        type: "http",
                        url: "https://h/${CLAUDE_PROJECT_DIR}",
                        headers: { X: "${CLAUDE_PLUGIN_ROOT}" },
                    },
                },
            }),
        });
        const plugin = await dir.load();
        const root = dir.root;
        const data = join(dir.parent, "data");
        const project = join(dir.parent, "project");
        expect(plugin.hooks[0]?.hooks).toEqual({
            SessionStart: [
                {
                    hooks: [
                        { type: "command", command: `"${root}"/start.sh \${HOME}`, args: [data] },
                    ],
                },
            ],
        });
        expect(plugin.mcpServers).toEqual({
            local: {
                command: "node",
                args: [`${root}/server.js`],
                env: { DATA: data, KEY: "${API_KEY}" },
                description: "${CLAUDE_PLUGIN_ROOT}",
            },
            remote: { type: "http", url: `https://h/${project}`, headers: { X: root } },
        });
        expect(plugin.lspServers).toEqual({
            ls: {
                command: `${root}/ls`,
                args: ["--data", data],
                env: { P: project },
                workspaceFolder: project,
                extensionToLanguage: { ".x": "x" },
                initializationOptions: { root: "${CLAUDE_PLUGIN_ROOT}" },
            },
        });
    });
});
