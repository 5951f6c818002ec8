import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

let server: FakeLlmServer;
let repo: string;
let home: string;
let baseEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});

beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-repo-"));
    mkdirSync(join(repo, "src"));
    writeFileSync(join(repo, "src", "retry.ts"), "export function retry() {\n    return 3;\n}\n");
    writeFileSync(join(repo, "README.md"), "# demo\n");
    const isolated = isolatedHome();
    home = isolated.home;
    baseEnv = {
        ...isolated.env,
        ANTHROPIC_API_KEY: "test-key-123",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    };
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

const json = (text: string) => JSON.parse(text.trim()) as Record<string, unknown>;

describe("north -p through the real Anthropic provider", () => {
    it("reads the repository with tools and prints the final answer", async () => {
        server.enqueue(
            {
                text: "Let me read it.",
                toolCalls: [{ id: "toolu_1", name: "read_file", input: { path: "src/retry.ts" } }],
            },
            { text: "The retry logic is in src/retry.ts: retry() returns 3." }
        );
        const run = await runNorth(["-p", "where is the retry logic?", "--path", repo], {
            env: baseEnv,
        });
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("The retry logic is in src/retry.ts: retry() returns 3.\n");
        const second = server.requests[1]!.body as {
            messages: Array<{ role: string; content: unknown }>;
        };
        const toolResult = JSON.stringify(second.messages.at(-1));
        expect(toolResult).toContain("toolu_1");
        expect(toolResult).toContain("return 3;");
    });

    it("prints one Claude Code-shaped JSON result", async () => {
        server.enqueue(
            {
                toolCalls: [{ name: "list_root", input: {} }],
                usage: { input: 100, output: 10, cacheRead: 50, cacheWrite: 20 },
            },
            { text: "Two entries.", usage: { input: 200, output: 20 } }
        );
        const run = await runNorth(
            ["-p", "what is here?", "--path", repo, "--output-format", "json"],
            { env: baseEnv }
        );
        expect(run.code).toBe(0);
        const result = json(run.stdout);
        expect(result).toMatchObject({
            type: "result",
            subtype: "success",
            is_error: false,
            result: "Two entries.",
            num_turns: 2,
            usage: {
                input_tokens: 300,
                output_tokens: 30,
                cache_read_input_tokens: 50,
                cache_creation_input_tokens: 20,
            },
            tool_calls: [{ name: "list_root", input: {}, ok: true }],
        });
        expect(result.session_id).toMatch(/^[0-9a-f]{6}$/);
        // opus-5-5 (the default): 300 in × $4 + 30 out × $20 + 50 read × $0.20 + 20 write × $5, per 1M
        expect(result.total_cost_usd).toBeCloseTo((300 * 4 + 30 * 20 + 50 * 0.2 + 20 * 5) / 1e6, 8);
        expect(typeof result.duration_ms).toBe("number");
    });

    it("streams one JSON object per line per event", async () => {
        server.enqueue(
            { toolCalls: [{ name: "find_files", input: { pattern: "*.ts" } }] },
            { text: ["Found ", "it."] }
        );
        const run = await runNorth(
            ["-p", "find ts", "--path", repo, "--output-format", "stream-json"],
            { env: baseEnv }
        );
        expect(run.code).toBe(0);
        const lines = run.stdout.trim().split("\n").map(json);
        expect(lines[0]).toMatchObject({
            type: "system",
            subtype: "init",
            model: "claude-opus-5-5",
            mode: "agent",
        });
        expect(lines.find((l) => l.type === "tool_call")).toMatchObject({
            name: "find_files",
            input: { pattern: "*.ts" },
        });
        const toolResult = lines.find((l) => l.type === "tool_result")!;
        expect(toolResult.ok).toBe(true);
        expect(String(toolResult.content)).toContain("src/retry.ts");
        expect(
            lines
                .filter((l) => l.type === "text_delta")
                .map((l) => l.text)
                .join("")
        ).toBe("Found it.");
        expect(lines.at(-1)).toMatchObject({
            type: "result",
            subtype: "success",
            result: "Found it.",
        });
    });

    it("takes the prompt from stdin", async () => {
        server.enqueue({ text: "ok" });
        const run = await runNorth(["-p", "--path", repo], {
            env: baseEnv,
            input: "summarise the repo\n",
        });
        expect(run.code).toBe(0);
        const body = server.requests[0]!.body as { messages: Array<{ content: unknown }> };
        expect(JSON.stringify(body.messages[0])).toContain("summarise the repo");
    });

    it("keeps a path outside the repository out of reach and carries on", async () => {
        server.enqueue(
            { toolCalls: [{ id: "t1", name: "read_file", input: { path: "../../etc/passwd" } }] },
            { text: "I cannot read that." }
        );
        const run = await runNorth(
            ["-p", "read /etc/passwd", "--path", repo, "--output-format", "json"],
            { env: baseEnv }
        );
        expect(run.code).toBe(0);
        const result = json(run.stdout);
        expect(result.tool_calls).toEqual([
            { name: "read_file", input: { path: "../../etc/passwd" }, ok: false },
        ]);
        const sent = JSON.stringify(server.requests[1]!.body);
        expect(sent).toContain("path_outside_repo");
        expect(sent).not.toContain("root:x:0:0");
    });

    it("answers malformed tool arguments with an error the model can act on", async () => {
        server.enqueue(
            {
                toolCalls: [
                    { id: "t1", name: "read_file", rawArguments: '{"path": "src/retry.ts"' },
                ],
            },
            { toolCalls: [{ id: "t2", name: "no_such_tool", input: {} }] },
            { toolCalls: [{ id: "t3", name: "read_file", input: { path: 42 } }] },
            { text: "gave up" }
        );
        const run = await runNorth(["-p", "go", "--path", repo], { env: baseEnv });
        expect(run.code).toBe(0);
        expect(JSON.stringify(server.requests[1]!.body)).toContain("not valid JSON");
        expect(JSON.stringify(server.requests[2]!.body)).toContain("unknown_tool");
        expect(JSON.stringify(server.requests[3]!.body)).toContain("invalid_args");
    });

    it("retries a 429 honouring retry-after, then succeeds", async () => {
        server.enqueue(
            { error: { status: 429, headers: { "retry-after": "1" } } },
            { text: "after the wait" }
        );
        const started = Date.now();
        const run = await runNorth(["-p", "hi", "--path", repo], { env: baseEnv });
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("after the wait\n");
        expect(Date.now() - started).toBeGreaterThanOrEqual(900);
        expect(server.requests).toHaveLength(2);
    });

    it("retries a stream cut in the middle of a tool call", async () => {
        server.enqueue(
            { fault: "cut_mid_tool_call" },
            { toolCalls: [{ name: "list_root", input: {} }] },
            { text: "complete" }
        );
        const run = await runNorth(["-p", "hi", "--path", repo], { env: baseEnv });
        expect(run.stdout).toBe("complete\n");
        expect(run.code).toBe(0);
    });

    it("fails at once on 401 with the provider's message and exit 1", async () => {
        server.enqueue({
            error: { status: 401, type: "authentication_error", message: "invalid x-api-key" },
        });
        const run = await runNorth(["-p", "hi", "--path", repo], { env: baseEnv });
        expect(run.code).toBe(1);
        expect(run.stderr).toContain("invalid x-api-key");
        expect(run.stderr).not.toMatch(/\n\s+at /);
        expect(server.requests).toHaveLength(1);
    });

    it("stops at --max-turns with error_max_turns", async () => {
        server.enqueue({ toolCalls: [{ name: "list_root", input: {} }] });
        const run = await runNorth(
            ["-p", "loop", "--path", repo, "--max-turns", "1", "--output-format", "json"],
            {
                env: baseEnv,
            }
        );
        expect(run.code).toBe(1);
        expect(json(run.stdout)).toMatchObject({
            subtype: "error_max_turns",
            is_error: true,
            num_turns: 1,
        });
    });

    it("exits 130 when interrupted mid-request", async () => {
        server.enqueue({ fault: "stall", ms: 5000 });
        const run = await runNorth(["-p", "hi", "--path", repo, "--output-format", "json"], {
            env: baseEnv,
            onSpawn: (child) => {
                const poll = setInterval(() => {
                    if (server.requests.length > 0) {
                        clearInterval(poll);
                        child.kill("SIGINT");
                    }
                }, 20);
            },
        });
        expect(run.code).toBe(130);
        expect(json(run.stdout)).toMatchObject({ is_error: true });
    });

    it("logs JSON lines without the key or file contents", async () => {
        server.enqueue(
            { toolCalls: [{ name: "read_file", input: { path: "src/retry.ts" } }] },
            { text: "done" }
        );
        const run = await runNorth(["-p", "hi", "--path", repo, "--log-level", "debug"], {
            env: baseEnv,
        });
        expect(run.code).toBe(0);
        const log = readFileSync(join(home, "state", "north", "north.log"), "utf8");
        const events = log
            .trim()
            .split("\n")
            .map((l) => json(l).event);
        expect(events).toEqual(
            expect.arrayContaining([
                "app_start",
                "user_prompt",
                "model_request_start",
                "model_request_complete",
                "tool_call_start",
                "tool_call_complete",
                "app_exit",
            ])
        );
        expect(log).not.toContain("test-key-123");
        expect(log).not.toContain("return 3;");
    });
});

describe("north -p with other providers", () => {
    it("answers through the OpenAI Responses API for a GPT model", async () => {
        server.enqueue(
            { toolCalls: [{ id: "call_1", name: "read_file", input: { path: "README.md" } }] },
            { text: "It is a demo." }
        );
        const env = {
            ...baseEnv,
            ANTHROPIC_API_KEY: undefined,
            OPENAI_API_KEY: "sk-test",
            OPENAI_BASE_URL: server.openaiBaseUrl,
        };
        const run = await runNorth(["-p", "what is it?", "--path", repo, "--model", "gpt-5.1"], {
            env,
        });
        expect(run.stderr).toBe("");
        expect(run.stdout).toBe("It is a demo.\n");
        expect(server.requests[0]!.path).toBe("/v1/responses");
        expect(JSON.stringify(server.requests[1]!.body)).toContain("function_call_output");
    });

    it("answers through a local OpenAI-compatible server configured by base URL", async () => {
        const configDir = join(home, "config");
        mkdirSync(configDir, { recursive: true });
        writeFileSync(
            join(configDir, "config.json"),
            JSON.stringify({
                providers: { local: { api: "openai-chat", baseUrl: server.openaiBaseUrl } },
                models: [
                    {
                        alias: "qwen",
                        id: "qwen2.5-coder:7b",
                        provider: "local",
                        contextLimitTokens: 32768,
                    },
                ],
            })
        );
        server.enqueue({ toolCalls: [{ name: "list_root", input: {} }] }, { text: "local answer" });
        const env = { ...baseEnv, ANTHROPIC_API_KEY: undefined };
        const run = await runNorth(["-p", "hi", "--path", repo, "--model", "qwen"], { env });
        expect(run.stderr).toBe("");
        expect(run.stdout).toBe("local answer\n");
        expect(server.requests[0]!.path).toBe("/v1/chat/completions");
        expect((server.requests[0]!.body as { model: string }).model).toBe("qwen2.5-coder:7b");
    });
});

describe("north usage and configuration errors", () => {
    it("names the missing key in one line, exit 2", async () => {
        const env = { ...baseEnv, ANTHROPIC_API_KEY: undefined };
        const run = await runNorth(["-p", "hi", "--path", repo], { env });
        expect(run.code).toBe(2);
        expect(run.stderr.trim().split("\n")).toHaveLength(1);
        expect(run.stderr).toContain("ANTHROPIC_API_KEY");
        expect(server.requests).toHaveLength(0);
    });

    it("lists the closest aliases for an unknown model", async () => {
        const run = await runNorth(["-p", "hi", "--model", "sonet-4-5"], { env: baseEnv });
        expect(run.code).toBe(2);
        expect(run.stderr).toContain('unknown model "sonet-4-5"');
        expect(run.stderr).toContain("sonnet-4-5");
    });

    it("rejects a bad flag value and an unknown flag with exit 2", async () => {
        expect(
            (await runNorth(["-p", "hi", "--output-format", "xml"], { env: baseEnv })).code
        ).toBe(2);
        expect((await runNorth(["-p", "hi", "--mode", "yolo"], { env: baseEnv })).code).toBe(2);
        expect((await runNorth(["-p", "hi", "--max-turns", "0"], { env: baseEnv })).code).toBe(2);
        const unknown = await runNorth(["--frobnicate"], { env: baseEnv });
        expect(unknown.code).toBe(2);
        expect(unknown.stderr).toContain("--frobnicate");
    });

    it("reports a broken config file clearly", async () => {
        mkdirSync(join(home, "config"), { recursive: true });
        writeFileSync(join(home, "config", "config.json"), "{ not json");
        const run = await runNorth(["-p", "hi", "--path", repo], { env: baseEnv });
        expect(run.code).toBe(2);
        expect(run.stderr).toContain("config.json is not valid JSON");
    });

    it("prints its version and help", async () => {
        const version = await runNorth(["--version"], { env: baseEnv });
        expect(version.code).toBe(0);
        expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
        const help = await runNorth(["--help"], { env: baseEnv });
        expect(help.stdout).toContain("--output-format");
    });
});
