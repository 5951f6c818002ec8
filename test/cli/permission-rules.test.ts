import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
    anthropicToolResultTexts,
    type FakeLlmServer,
    startFakeLlmServer,
} from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

const FAKE_MCP = fileURLToPath(new URL("../tools/mcp/fixtures/fake-server.mjs", import.meta.url));
let server: FakeLlmServer;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-rules-repo-"));
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

/** What the model was told after its tool calls (the second request). */
const toolResults = () => JSON.stringify(server.requests[1]!.body);

/** The tool results the model got back (the second request), in call order. */
const resultTexts = (): string[] => anthropicToolResultTexts(server.requests[1]!);

function projectSettings(settings: unknown, file = "settings.json"): string {
    mkdirSync(join(repo, ".north"), { recursive: true });
    const path = join(repo, ".north", file);
    writeFileSync(path, JSON.stringify(settings, null, 2));
    return path;
}

function userSettings(settings: unknown): string {
    mkdirSync(join(home, "config"), { recursive: true });
    const path = join(home, "config", "config.json");
    writeFileSync(path, JSON.stringify(settings, null, 2));
    return path;
}

const shell = (command: string) => ({ name: "shell_run", input: { command } });

describe("deny rules", () => {
    it("refuse a denied command under --allow-shell, naming the rule; the file stays", async () => {
        writeFileSync(join(repo, "x"), "keep");
        const file = userSettings({ permissions: { deny: ["Bash(rm -f x)"] } });
        server.enqueue({ toolCalls: [shell("rm -f x")] }, { text: "ok" });
        const run = await runNorth(["-p", "clean", "--path", repo, "--allow-shell"], { env });
        expect(run.code).toBe(0);
        expect(existsSync(join(repo, "x"))).toBe(true);
        expect(toolResults()).toContain("denied by the permission rule Bash(rm -f x)");
        expect(toolResults()).toContain(file);
    });

    // Needs the parsing judge (PARSE): the placeholder matches exact strings only.
    it("refuse every command a prefix deny covers (Bash(rm:*)) under --allow-shell", async () => {
        writeFileSync(join(repo, "x"), "keep");
        userSettings({ permissions: { deny: ["Bash(rm:*)"] } });
        server.enqueue({ toolCalls: [shell("rm -f x")] }, { text: "ok" });
        const run = await runNorth(["-p", "clean", "--path", repo, "--allow-shell"], { env });
        expect(run.code).toBe(0);
        expect(existsSync(join(repo, "x"))).toBe(true);
        expect(toolResults()).toContain("Bash(rm:*)");
    });

    it("--disallowed-command adds a deny rule, and a bad pattern stops North with exit 2", async () => {
        writeFileSync(join(repo, "x"), "keep");
        server.enqueue({ toolCalls: [shell("rm -f x")] }, { text: "ok" });
        const run = await runNorth(
            ["-p", "clean", "--path", repo, "--allow-shell", "--disallowed-command", "rm -f x"],
            { env }
        );
        expect(run.code).toBe(0);
        expect(existsSync(join(repo, "x"))).toBe(true);
        expect(toolResults()).toContain("--disallowed-command");
        const bad = await runNorth(["-p", "x", "--path", repo, "--disallowed-command", " "], {
            env,
        });
        expect(bad.code).toBe(2);
        expect(bad.stderr).toContain("--disallowed-command");
    });

    it("keep a denied .env from read_file, search_text and find_files", async () => {
        writeFileSync(join(repo, ".env"), "API_TOKEN=hunter2\n");
        writeFileSync(join(repo, "app.ts"), "const token = process.env.API_TOKEN;\n");
        projectSettings({ permissions: { deny: ["Read(./.env)"] } });
        server.enqueue(
            {
                toolCalls: [
                    { name: "read_file", input: { path: ".env" } },
                    { name: "search_text", input: { query: "API_TOKEN" } },
                    { name: "find_files", input: { pattern: "*env*" } },
                    { name: "list_root", input: {} },
                ],
            },
            { text: "ok" }
        );
        // Deny rules only take permissions away: they hold in an untrusted project too.
        const run = await runNorth(["-p", "look", "--path", repo], { env });
        expect(run.code).toBe(0);
        const [read, search, find, list] = resultTexts();
        expect(read).toContain("denied by the permission rule Read(./.env)");
        expect(read).not.toContain("hunter2");
        expect(search).toContain("app.ts");
        expect(search).not.toContain('"path":".env"');
        expect(search).not.toContain("hunter2");
        expect(find).not.toContain('".env"');
        expect(list).toContain("app.ts");
        expect(list).not.toContain('".env"');
    });

    it("keep a denied file out of print mode's @ attachments, saying so", async () => {
        writeFileSync(join(repo, ".env"), "API_TOKEN=hunter2\n");
        writeFileSync(join(repo, "app.ts"), "export const app = 1;\n");
        userSettings({ permissions: { deny: ["Read(.env)"] } });
        server.enqueue({ text: "ok" });
        const run = await runNorth(["-p", "compare @.env and @app.ts", "--path", repo], { env });
        expect(run.code).toBe(0);
        const sent = JSON.stringify(server.requests[0]!.body);
        expect(sent).toContain("export const app = 1;");
        expect(sent).not.toContain("hunter2");
        expect(run.stderr).toContain("reading .env is denied by the permission rule Read(.env)");
    });

    it("refuse an edit of a denied path under --allow-edits; nothing is written", async () => {
        mkdirSync(join(repo, "src"));
        writeFileSync(join(repo, "src", "a.ts"), "export const a = 1;\n");
        userSettings({ permissions: { deny: ["Edit(src/**)"] } });
        server.enqueue(
            {
                toolCalls: [
                    {
                        name: "edit_replace_exact",
                        input: { path: "src/a.ts", old_text: "a = 1", new_text: "a = 2" },
                    },
                    {
                        name: "edit_create_file",
                        input: { path: "src/b.ts", content: "x\n" },
                    },
                ],
            },
            { text: "ok" }
        );
        const run = await runNorth(["-p", "edit", "--path", repo, "--allow-edits"], { env });
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, "src", "a.ts"), "utf8")).toBe("export const a = 1;\n");
        expect(existsSync(join(repo, "src", "b.ts"))).toBe(false);
        expect(toolResults()).toContain("denied by the permission rule Edit(src/**)");
    });

    it("hold against a PreToolUse hook that answers allow", async () => {
        projectSettings({
            permissions: { deny: ["Bash(touch ran.txt)"] },
            hooks: {
                PreToolUse: [
                    {
                        matcher: "Bash",
                        hooks: [
                            {
                                type: "command",
                                command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`,
                            },
                        ],
                    },
                ],
            },
        });
        server.enqueue({ toolCalls: [shell("touch ran.txt")] }, { text: "ok" });
        const run = await runNorth(["-p", "go", "--path", repo, "--trust"], { env });
        expect(run.code).toBe(0);
        expect(existsSync(join(repo, "ran.txt"))).toBe(false);
        expect(toolResults()).toContain("denied by the permission rule Bash(touch ran.txt)");
    });

    it("refuse a denied MCP tool by name (its schema is still offered)", async () => {
        writeFileSync(
            join(repo, ".mcp.json"),
            JSON.stringify({
                mcpServers: { fake: { command: process.execPath, args: [FAKE_MCP] } },
            })
        );
        userSettings({ permissions: { deny: ["mcp__fake__echo"] } });
        server.enqueue(
            { toolCalls: [{ name: "mcp__fake__echo", input: { text: "ping" } }] },
            { text: "done" }
        );
        const run = await runNorth(
            ["-p", "use it", "--path", repo, "--allowed-command", "mcp__fake__echo", "--trust"],
            { env }
        );
        expect(run.code).toBe(0);
        const offered = (server.requests[0]!.body as { tools: Array<{ name: string }> }).tools;
        expect(offered.map((t) => t.name)).toContain("mcp__fake__echo");
        expect(toolResults()).toContain("denied by the permission rule mcp__fake__echo");
        expect(resultTexts()).toHaveLength(1);
        expect(resultTexts()[0]).not.toContain("ping");
    });
});

describe("ask and allow rules", () => {
    it("an ask rule under --allow-shell in print mode refuses, naming the rule", async () => {
        userSettings({ permissions: { ask: ["Bash(touch ran.txt)"] } });
        server.enqueue({ toolCalls: [shell("touch ran.txt")] }, { text: "ok" });
        const run = await runNorth(["-p", "go", "--path", repo, "--allow-shell"], { env });
        expect(run.code).toBe(0);
        expect(existsSync(join(repo, "ran.txt"))).toBe(false);
        expect(toolResults()).toContain("because of the permission rule");
        expect(toolResults()).toContain("print mode cannot ask");
    });

    it("an untrusted project's allow rules allow nothing; a trusted one's do", async () => {
        projectSettings({ permissions: { allow: ["Bash(touch ran.txt)"] } });
        server.enqueue({ toolCalls: [shell("touch ran.txt")] }, { text: "ok" });
        const untrusted = await runNorth(["-p", "go", "--path", repo], { env });
        expect(untrusted.code).toBe(0);
        expect(existsSync(join(repo, "ran.txt"))).toBe(false);
        expect(untrusted.stderr).toContain("this project is not trusted");
        server.requests.length = 0;
        server.enqueue({ toolCalls: [shell("touch ran.txt")] }, { text: "ok" });
        const trusted = await runNorth(["-p", "go", "--path", repo, "--trust"], { env });
        expect(trusted.code).toBe(0);
        expect(existsSync(join(repo, "ran.txt"))).toBe(true);
    });

    it("an Edit allow rule applies matching edits without --allow-edits, and only those", async () => {
        mkdirSync(join(repo, "docs"));
        writeFileSync(join(repo, "docs", "a.md"), "old\n");
        writeFileSync(join(repo, "b.md"), "old\n");
        userSettings({ permissions: { allow: ["Edit(docs/**)"] } });
        const replace = (path: string) => ({
            name: "edit_replace_exact",
            input: { path, old_text: "old", new_text: "new" },
        });
        server.enqueue({ toolCalls: [replace("docs/a.md"), replace("b.md")] }, { text: "ok" });
        const run = await runNorth(["-p", "edit", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, "docs", "a.md"), "utf8")).toBe("new\n");
        expect(readFileSync(join(repo, "b.md"), "utf8")).toBe("old\n");
    });
});

describe("rules files and /permissions", () => {
    it("a bad rule is reported with its file and line; the other rules still apply", async () => {
        writeFileSync(join(repo, "x"), "keep");
        const path = userSettings({});
        writeFileSync(
            path,
            [
                "{",
                '  "permissions": {',
                '    "deny": [',
                '      "Bash(oops",',
                '      "Bash(rm -f x)"',
                "    ]",
                "  }",
                "}",
            ].join("\n")
        );
        server.enqueue({ toolCalls: [shell("rm -f x")] }, { text: "ok" });
        const run = await runNorth(["-p", "clean", "--path", repo, "--allow-shell"], { env });
        expect(run.code).toBe(0);
        expect(run.stderr).toContain(`${path}:4`);
        expect(run.stderr).toContain("unbalanced parentheses");
        expect(existsSync(join(repo, "x"))).toBe(true);
    });

    it("broken JSON in the project file is reported with line and column; the user's rules still load", async () => {
        writeFileSync(join(repo, "x"), "keep");
        mkdirSync(join(repo, ".north"));
        writeFileSync(join(repo, ".north", "settings.json"), '{\n  "permissions": {,\n}\n');
        userSettings({ permissions: { deny: ["Bash(rm -f x)"] } });
        server.enqueue({ toolCalls: [shell("rm -f x")] }, { text: "ok" });
        const run = await runNorth(["-p", "clean", "--path", repo, "--allow-shell", "--trust"], {
            env,
        });
        expect(run.code).toBe(0);
        expect(run.stderr).toMatch(/settings\.json is not valid JSON: .*line 2, column 19/);
        expect(existsSync(join(repo, "x"))).toBe(true);
    });

    it("/permissions lists the rules grouped, each with its source, and says what is ignored", async () => {
        const user = userSettings({
            permissions: { deny: ["Read(./.env)"], ask: ["Bash(git push)"] },
        });
        const project = projectSettings({ permissions: { allow: ["Bash(npm test)"] } });
        const run = await runNorth(
            [
                "-p",
                "/permissions",
                "--path",
                repo,
                "--allowed-command",
                "make",
                "--disallowed-command",
                "curl",
            ],
            { env }
        );
        expect(run.code).toBe(0);
        const out = run.stdout;
        expect(out).toMatch(
            /Deny:\n {2}1\. Read\(\.\/\.env\) - .*config\.json\n {2}2\. Bash\(curl\) - --disallowed-command/
        );
        expect(out).toContain(`3. Bash(git push) - ${user}`);
        expect(out).toContain("Allow:\n  4. Bash(make) - --allowed-command");
        expect(out).not.toContain(project);
        expect(out).toContain(
            "1 allow rule of this project is ignored: the project is not trusted"
        );
    });
});
