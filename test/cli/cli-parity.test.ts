import { spawn } from "node:child_process";
import {
    mkdirSync,
    mkdtempSync,
    readFileSync,
    readdirSync,
    realpathSync,
    rmSync,
    symlinkSync,
    writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { NORTH_BIN, isolatedHome, runNorth } from "../kit/run-north";

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
    repo = mkdtempSync(join(tmpdir(), "north-parity-repo-"));
    mkdirSync(join(repo, ".git"));
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

/** Messages of the conversation saved under the isolated HOME (there is exactly one). */
function savedConversation(): string {
    const dir = join(home, "data", "conversations");
    const [file] = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
    return readFileSync(join(dir, file!), "utf8");
}

function killWhenRequested(signal: NodeJS.Signals) {
    return (child: ReturnType<typeof spawn>): void => {
        const poll = setInterval(() => {
            if (server.requests.length > 0) {
                clearInterval(poll);
                child.kill(signal);
            }
        }, 20);
    };
}

describe("unknown flags and subcommands", () => {
    it("name the flag and the closest one, on one line, exit 2", async () => {
        const run = await runNorth(["-p", "hi", "--allow-edit"], { env });
        expect(run.code).toBe(2);
        expect(run.stderr).toBe(
            "north: unknown option --allow-edit (did you mean --allow-edits?)\n"
        );
        expect(server.requests).toHaveLength(0);
    });

    it("without a close match point at --help", async () => {
        const run = await runNorth(["--frobnicate-everything"], { env });
        expect(run.code).toBe(2);
        expect(run.stderr).toBe(
            "north: unknown option --frobnicate-everything (see north --help)\n"
        );
    });

    it("a missing value is named, not Node's text", async () => {
        const run = await runNorth(["-p", "hi", "--model"], { env });
        expect(run.code).toBe(2);
        expect(run.stderr).toBe("north: --model needs a value\n");
    });

    it("a mistyped subcommand gets a did-you-mean; after -- the word is a prompt", async () => {
        const run = await runNorth(["modles"], { env });
        expect(run.code).toBe(2);
        expect(run.stderr).toContain("unknown command modles (did you mean north models?");
    });
});

describe("signals in print mode", () => {
    it("SIGTERM ends with 143 and 'terminated', and the conversation is saved", async () => {
        server.enqueue({ fault: "stall", ms: 60_000 });
        const run = await runNorth(["-p", "hello there", "--path", repo], {
            env,
            onSpawn: killWhenRequested("SIGTERM"),
        });
        expect(run.code).toBe(143);
        expect(run.stderr).toContain("north: terminated (SIGTERM)");
        expect(run.stderr).not.toContain("cancelled by the user");
        expect(savedConversation()).toContain("hello there");
    });

    it("SIGINT still ends with 130 'cancelled by the user', conversation saved", async () => {
        server.enqueue({ fault: "stall", ms: 60_000 });
        const run = await runNorth(["-p", "hello again", "--path", repo], {
            env,
            onSpawn: killWhenRequested("SIGINT"),
        });
        expect(run.stderr).toContain("cancelled by the user");
        expect(run.code).toBe(130);
        expect(savedConversation()).toContain("hello again");
    });
});

describe("a piped stdin that stays silent", () => {
    it("gets one notice on stderr, then the prompt is read once the pipe closes", async () => {
        server.enqueue({ text: "read it" });
        const child = spawn(process.execPath, [NORTH_BIN, "-p", "--path", repo], {
            env,
            stdio: ["pipe", "pipe", "pipe"],
        });
        let stdout = "";
        let stderr = "";
        child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
        const noticed = new Promise<void>((resolve) => {
            child.stderr.setEncoding("utf8").on("data", (d: string) => {
                stderr += d;
                if (stderr.includes("waiting for stdin")) resolve();
            });
        });
        const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
        // The pipe stays open until the notice shows; no fixed wait.
        await noticed;
        expect(server.requests).toHaveLength(0);
        child.stdin.end("the piped prompt");
        expect(await closed).toBe(0);
        expect(stdout).toBe("read it\n");
        expect(stderr.match(/waiting for stdin/g)).toHaveLength(1);
        expect(JSON.stringify(server.requests[0]!.body)).toContain("the piped prompt");
    }, 30_000);

    it("a prompt piped at once gets no notice", async () => {
        server.enqueue({ text: "ok" });
        const run = await runNorth(["-p", "--path", repo], { env, input: "quick" });
        expect(run.code).toBe(0);
        expect(run.stderr).not.toContain("waiting for stdin");
    });
});

const firstRequest = () => JSON.stringify(server.requests[0]!.body);

describe("custom Markdown commands in print mode", () => {
    it("/greet Bob expands .north/commands/greet.md with its arguments", async () => {
        mkdirSync(join(repo, ".north", "commands"), { recursive: true });
        writeFileSync(
            join(repo, ".north", "commands", "greet.md"),
            "---\ndescription: greet someone\n---\nSay a warm hello to $ARGUMENTS in French.\n"
        );
        server.enqueue({ text: "Bonjour Bob" });
        const run = await runNorth(["-p", "/greet Bob", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("Bonjour Bob\n");
        expect(firstRequest()).toContain("Say a warm hello to Bob in French.");
        expect(firstRequest()).not.toContain("/greet");
    });

    it("text after the command is sent with the expanded prompt", async () => {
        mkdirSync(join(repo, ".north", "commands"), { recursive: true });
        writeFileSync(join(repo, ".north", "commands", "terse.md"), "Answer in one word.\n");
        server.enqueue({ text: "Blue" });
        const run = await runNorth(["-p", "/terse what colour is the sky", "--path", repo], {
            env,
        });
        expect(run.code).toBe(0);
        expect(firstRequest()).toContain("Answer in one word.");
        expect(firstRequest()).toContain("what colour is the sky");
    });
});

describe("@path mentions in print mode", () => {
    it("attach the file's content, as the chat does", async () => {
        writeFileSync(join(repo, "hello.txt"), "the secret word is marmalade\n");
        server.enqueue({ text: "marmalade" });
        const run = await runNorth(["-p", "what is in @hello.txt?", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(firstRequest()).toContain("# Attached Files");
        expect(firstRequest()).toContain("## hello.txt");
        expect(firstRequest()).toContain("the secret word is marmalade");
        expect(firstRequest()).toContain("what is in @hello.txt?");
        expect(run.stderr).not.toContain("not attached");
    });

    it("a missing file: the text is sent as written and stderr says so", async () => {
        server.enqueue({ text: "no such file" });
        const run = await runNorth(["-p", "what is in @nope.txt", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(firstRequest()).toContain("what is in @nope.txt");
        expect(firstRequest()).not.toContain("# Attached Files");
        expect(run.stderr).toContain("not attached (missing or unreadable): nope.txt");
    });

    it("a piped diff's @@ lines, decorators and addresses are not mentions; a path in it still is", async () => {
        mkdirSync(join(repo, "src"));
        writeFileSync(join(repo, "src", "app.ts"), "export const retries = 5; // ATTACHED-APP\n");
        writeFileSync(join(repo, "Makefile"), "test: ; echo MAKEFILE-ATTACHED\n");
        const diff = [
            "diff --git a/src/app.ts b/src/app.ts",
            "@@ -1,3 +1,4 @@",
            " @@",
            "-const retries = 3;",
            "+const retries = 5;",
            "@@ -10,6 +11,8 @@ class Retry {",
            "+    @Override",
            "+    @app.route('/health')",
            "+    @pytest.fixture()",
            "+// by me@example.com, see @ and @src/app.ts and @Makefile",
            "",
        ].join("\n");
        server.enqueue({ text: "Reviewed." });
        const run = await runNorth(["-p", "review this diff", "--path", repo], {
            env,
            input: diff,
        });
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("Reviewed.\n");
        expect(run.stderr).toBe("");
        // The diff went as written, and the two real paths in it were attached.
        expect(firstRequest()).toContain("@@ -10,6 +11,8 @@ class Retry {");
        expect(firstRequest()).toContain("ATTACHED-APP");
        expect(firstRequest()).toContain("MAKEFILE-ATTACHED");
    });

    it("a missing path-like mention is still reported, a missing bare word is not", async () => {
        server.enqueue({ text: "ok" });
        const run = await runNorth(
            ["-p", "compare @docs/missing.md with @Nothing and @app.route('/x')", "--path", repo],
            { env }
        );
        expect(run.code).toBe(0);
        expect(run.stderr).toBe(
            "north: warning: not attached (missing or unreadable): docs/missing.md\n"
        );
    });

    it("a file outside the project is not attached", async () => {
        const outside = mkdtempSync(join(tmpdir(), "north-outside-"));
        writeFileSync(join(outside, "secret.txt"), "outside content\n");
        server.enqueue({ text: "no" });
        const run = await runNorth(["-p", `read @${join(outside, "secret.txt")}`, "--path", repo], {
            env,
        });
        rmSync(outside, { recursive: true, force: true });
        expect(run.code).toBe(0);
        expect(firstRequest()).not.toContain("outside content");
        expect(run.stderr).toContain("not attached");
    });
});

const FAKE_MCP = fileURLToPath(new URL("../tools/mcp/fixtures/fake-server.mjs", import.meta.url));

describe("a failing MCP server in print mode", () => {
    beforeEach(() => {
        mkdirSync(join(home, "config"), { recursive: true });
        writeFileSync(
            join(home, "config", "config.json"),
            JSON.stringify({
                mcpServers: {
                    broken: { command: join(home, "no-such-mcp-server") },
                    fake: { command: process.execPath, args: [FAKE_MCP] },
                },
            })
        );
    });

    it("is named on stderr with the reason, and the answer still comes", async () => {
        server.enqueue({ text: "fine" });
        const run = await runNorth(["-p", "hi", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("fine\n");
        const lines = run.stderr.split("\n").filter((l) => l.includes("MCP server"));
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(
            /^north: warning: MCP server "broken" failed: .*no-such-mcp-server/
        );
    });

    it("appears in stream-json's init event with its status and error", async () => {
        server.enqueue({ text: "fine" });
        const run = await runNorth(["-p", "hi", "--path", repo, "--output-format", "stream-json"], {
            env,
        });
        expect(run.code).toBe(0);
        const init = JSON.parse(run.stdout.split("\n")[0]!) as Record<string, unknown>;
        expect(init).toMatchObject({ type: "system", subtype: "init" });
        const servers = init.mcp_servers as Array<Record<string, string>>;
        expect(servers.find((s) => s.name === "fake")).toEqual({
            name: "fake",
            status: "connected",
        });
        expect(servers.find((s) => s.name === "broken")).toMatchObject({
            name: "broken",
            status: "failed",
            error: expect.stringContaining("no-such-mcp-server"),
        });
    });
});

describe("/mcp without servers", () => {
    it("names the config file North really reads (NORTH_CONFIG_DIR)", async () => {
        const run = await runNorth(["-p", "/mcp", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(run.stdout).toContain(`mcpServers in ${join(home, "config", "config.json")}.`);
        expect(run.stdout).not.toContain("~/.config/north");
    });
});

const systemOf = (i: number) =>
    JSON.stringify((server.requests[i]!.body as { system: unknown }).system);
const toolNamesOf = (i: number) =>
    ((server.requests[i]!.body as { tools: Array<{ name: string }> }).tools ?? []).map(
        (t) => t.name
    );

describe("--system-prompt and --append-system-prompt", () => {
    it("--system-prompt replaces North's own prompt", async () => {
        server.enqueue({ text: "Arr" });
        const run = await runNorth(
            ["-p", "hi", "--path", repo, "--system-prompt", "You are a terse pirate."],
            { env }
        );
        expect(run.code).toBe(0);
        expect(systemOf(0)).toContain("You are a terse pirate.");
        expect(systemOf(0)).not.toContain("You are North");
    });

    it("--append-system-prompt comes after North's prompt, the same on every request", async () => {
        writeFileSync(join(repo, "a.txt"), "alpha\n");
        server.enqueue(
            { toolCalls: [{ name: "read_file", input: { path: "a.txt" } }] },
            { text: "done" }
        );
        const run = await runNorth(
            ["-p", "hi", "--path", repo, "--append-system-prompt", "Always answer in Latin."],
            { env }
        );
        expect(run.code).toBe(0);
        const system = systemOf(0);
        expect(system).toContain("You are North");
        expect(system.indexOf("Always answer in Latin.")).toBeGreaterThan(
            system.indexOf("You are North")
        );
        expect(systemOf(1)).toBe(system);
    });

    it("an empty prompt text is a usage error", async () => {
        const run = await runNorth(["-p", "hi", "--path", repo, "--system-prompt", " "], { env });
        expect(run.code).toBe(2);
        expect(run.stderr).toBe("north: --system-prompt needs some text\n");
    });
});

describe("--disallowed-tools", () => {
    it("Claude Code's and North's names take those tools out of the request", async () => {
        server.enqueue({ text: "ok" });
        const run = await runNorth(
            [
                "-p",
                "hi",
                "--path",
                repo,
                "--disallowed-tools",
                "Bash,Edit",
                "--disallowed-tools",
                "search_text",
            ],
            { env }
        );
        expect(run.code).toBe(0);
        const names = toolNamesOf(0);
        expect(names).toContain("read_file");
        expect(names).not.toContain("shell_run");
        expect(names).not.toContain("search_text");
        expect(names.filter((n) => n.startsWith("edit_") && n !== "edit_create_file")).toEqual([]);
        expect(names).toContain("edit_create_file");
        expect(run.stderr).not.toContain("disallowed");
    });

    it("a call to a disallowed tool anyway is refused, not run", async () => {
        server.enqueue(
            { toolCalls: [{ name: "shell_run", input: { command: "touch made-it" } }] },
            { text: "could not" }
        );
        const run = await runNorth(
            ["-p", "hi", "--path", repo, "--allow-shell", "--disallowed-tools", "Bash"],
            { env }
        );
        expect(run.code).toBe(0);
        expect(readdirSync(repo)).not.toContain("made-it");
    });

    it("a name that matches no tool is reported with the closest", async () => {
        server.enqueue({ text: "ok" });
        const run = await runNorth(["-p", "hi", "--path", repo, "--disallowed-tools", "Bsh"], {
            env,
        });
        expect(run.code).toBe(0);
        expect(run.stderr).toContain(
            '--disallowed-tools: no tool is named "Bsh" (did you mean Bash?)'
        );
    });
});

describe("--max-budget-usd", () => {
    // claude-opus-5-5 (the default): $4 per million input tokens, so each of these turns costs $0.30.
    const costly = { usage: { input: 75_000, output: 0 } };

    it("stops before a request that would pass the budget: exit 1, tools not run, conversation saved", async () => {
        server.enqueue({
            ...costly,
            toolCalls: [{ name: "shell_run", input: { command: "touch ran" } }],
        });
        const run = await runNorth(
            [
                "-p",
                "spend",
                "--path",
                repo,
                "--allow-shell",
                "--max-budget-usd",
                "0.50",
                "--output-format",
                "json",
            ],
            { env }
        );
        expect(run.code).toBe(1);
        expect(server.requests).toHaveLength(1);
        const result = JSON.parse(run.stdout) as Record<string, unknown>;
        expect(result).toMatchObject({
            subtype: "error_max_budget_usd",
            is_error: true,
            total_cost_usd: 0.3,
        });
        expect(String(result.result)).toContain("budget of $0.5000");
        expect(readdirSync(repo)).not.toContain("ran");
        expect(savedConversation()).toContain("spend");
    });

    it("a session under its budget ends normally", async () => {
        server.enqueue(
            { ...costly, toolCalls: [{ name: "read_file", input: { path: "x" } }] },
            { ...costly, text: "done" }
        );
        const run = await runNorth(["-p", "hi", "--path", repo, "--max-budget-usd", "1"], {
            env,
        });
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("done\n");
    });

    it("text mode says why on stderr", async () => {
        server.enqueue({ ...costly, toolCalls: [{ name: "read_file", input: { path: "x" } }] });
        const run = await runNorth(["-p", "hi", "--path", repo, "--max-budget-usd", "0.4"], {
            env,
        });
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(/north: stopped before the next model request: .*\$0\.3000/);
    });

    it("a value that is not a positive amount is a usage error", async () => {
        const run = await runNorth(["-p", "hi", "--max-budget-usd", "-1"], { env });
        expect(run.code).toBe(2);
        const zero = await runNorth(["-p", "hi", "--max-budget-usd=0"], { env });
        expect(zero.code).toBe(2);
        expect(zero.stderr).toContain("--max-budget-usd must be a positive number of dollars");
    });
});

describe("--add-dir", () => {
    let extra: string;
    beforeEach(() => {
        extra = realpathSync(mkdtempSync(join(tmpdir(), "north-added-")));
        writeFileSync(join(extra, "shared.txt"), "shared value 42\n");
    });
    afterEach(() => rmSync(extra, { recursive: true, force: true }));
    const requestText = (i: number) => JSON.stringify(server.requests[i]!.body);

    it("lets the read tools reach the added directory, and tells the model it exists", async () => {
        server.enqueue(
            { toolCalls: [{ name: "read_file", input: { path: join(extra, "shared.txt") } }] },
            { text: "42" }
        );
        const run = await runNorth(["-p", "read it", "--path", repo, "--add-dir", extra], {
            env,
        });
        expect(run.code).toBe(0);
        expect(systemOf(0)).toContain(extra);
        expect(requestText(1)).toContain("shared value 42");
    });

    it("search_text searches in it (paths come back relative to the project)", async () => {
        server.enqueue(
            { toolCalls: [{ name: "search_text", input: { query: "shared value", path: extra } }] },
            { text: "found" }
        );
        const run = await runNorth(["-p", "find", "--path", repo, "--add-dir", extra], { env });
        expect(run.code).toBe(0);
        expect(requestText(1)).toContain("shared.txt");
        expect(requestText(1)).toContain("shared value 42");
    });

    it("without it the same read is refused", async () => {
        server.enqueue(
            { toolCalls: [{ name: "read_file", input: { path: join(extra, "shared.txt") } }] },
            { text: "no" }
        );
        const run = await runNorth(["-p", "read it", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(requestText(1)).not.toContain("shared value 42");
        expect(requestText(1)).toContain("path_outside_repo");
    });

    it("edits land there only when approved (--allow-edits in print mode)", async () => {
        const edit = {
            name: "edit_replace_exact",
            input: { path: join(extra, "shared.txt"), old_text: "42", new_text: "43" },
        };
        server.enqueue({ toolCalls: [edit] }, { text: "denied" });
        await runNorth(["-p", "edit", "--path", repo, "--add-dir", extra], { env });
        expect(readFileSync(join(extra, "shared.txt"), "utf8")).toBe("shared value 42\n");
        server.enqueue({ toolCalls: [edit] }, { text: "done" });
        const run = await runNorth(
            ["-p", "edit", "--path", repo, "--add-dir", extra, "--allow-edits"],
            { env }
        );
        expect(run.code).toBe(0);
        expect(readFileSync(join(extra, "shared.txt"), "utf8")).toBe("shared value 43\n");
    });

    it("a symlink in the added directory that leads elsewhere is still refused", async () => {
        const elsewhere = mkdtempSync(join(tmpdir(), "north-elsewhere-"));
        writeFileSync(join(elsewhere, "secret.txt"), "top secret\n");
        symlinkSync(join(elsewhere, "secret.txt"), join(extra, "leak.txt"));
        server.enqueue(
            { toolCalls: [{ name: "read_file", input: { path: join(extra, "leak.txt") } }] },
            { text: "no" }
        );
        const run = await runNorth(["-p", "read", "--path", repo, "--add-dir", extra], { env });
        rmSync(elsewhere, { recursive: true, force: true });
        expect(run.code).toBe(0);
        expect(requestText(1)).not.toContain("top secret");
        expect(requestText(1)).toContain("path_outside_repo");
    });

    it("a directory that does not exist is a usage error", async () => {
        const run = await runNorth(["-p", "x", "--path", repo, "--add-dir", join(extra, "nope")], {
            env,
        });
        expect(run.code).toBe(2);
        expect(run.stderr).toBe(`north: --add-dir: ${join(extra, "nope")} does not exist\n`);
    });
});
