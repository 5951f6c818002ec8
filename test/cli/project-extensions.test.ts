import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
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
    repo = mkdtempSync(join(tmpdir(), "north-ext-repo-"));
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

const body = (i: number) =>
    server.requests[i]!.body as {
        system?: Array<{ text: string }>;
        tools?: Array<{ name: string }>;
    };

describe("what a project brings, in print mode", () => {
    it("sends AGENTS.md and .cursor/rules with every request, and records all-time costs", async () => {
        writeFileSync(join(repo, "AGENTS.md"), "Always answer in French.");
        mkdirSync(join(repo, ".cursor", "rules"), { recursive: true });
        writeFileSync(
            join(repo, ".cursor", "rules", "style.mdc"),
            "---\nglobs: '*.ts'\n---\nUse tabs."
        );
        server.enqueue({ text: "Bonjour", usage: { input: 1000, output: 100 } });
        const run = await runNorth(["-p", "hi", "--path", repo], { env });
        expect(run.code).toBe(0);
        const system = body(0)
            .system!.map((b) => b.text)
            .join("\n");
        expect(system).toContain("Always answer in French.");
        expect(system).toContain("## .cursor/rules/style.mdc\n\nUse tabs.");
        const costs = JSON.parse(readFileSync(join(home, "data", "costs.json"), "utf8"));
        expect(costs.byModel["claude-opus-5-5"]).toMatchObject({
            inputTokens: 1000,
            outputTokens: 100,
        });
        // opus-5-5, the default: $4 in, $20 out per 1M.
        expect(costs.allTimeCostUsd).toBeCloseTo((1000 * 4 + 100 * 20) / 1e6, 9);
    });

    it("runs a trusted project's hooks: a PreToolUse hook blocks a command even with --allow-shell", async () => {
        mkdirSync(join(repo, ".north"), { recursive: true });
        writeFileSync(
            join(repo, ".north", "settings.json"),
            JSON.stringify({
                hooks: {
                    PreToolUse: [
                        {
                            matcher: "Bash",
                            hooks: [{ type: "command", command: "echo 'not on CI' >&2; exit 2" }],
                        },
                    ],
                },
            })
        );
        server.enqueue(
            { toolCalls: [{ name: "shell_run", input: { command: "touch ran.txt" } }] },
            { text: "ok" }
        );
        const run = await runNorth(["-p", "go", "--path", repo, "--allow-shell", "--trust"], {
            env,
        });
        expect(run.code).toBe(0);
        expect(JSON.stringify(server.requests[1]!.body)).toContain("not on CI");
        expect(() => readFileSync(join(repo, "ran.txt"))).toThrow();
    });

    it("offers a trusted project's MCP tools from .mcp.json as mcp__server__tool and calls them when allowed", async () => {
        writeFileSync(
            join(repo, ".mcp.json"),
            JSON.stringify({
                mcpServers: { fake: { command: process.execPath, args: [FAKE_MCP] } },
            })
        );
        server.enqueue(
            { toolCalls: [{ name: "mcp__fake__echo", input: { text: "ping" } }] },
            { text: "done" }
        );
        const run = await runNorth(
            ["-p", "use it", "--path", repo, "--allowed-command", "mcp__fake__echo", "--trust"],
            { env }
        );
        expect(run.code).toBe(0);
        expect(body(0).tools!.map((t) => t.name)).toContain("mcp__fake__echo");
        expect(JSON.stringify(server.requests[1]!.body)).toContain("ping");
    });

    it("lists skills to the model and loads one only when asked", async () => {
        mkdirSync(join(repo, ".north", "skills", "release"), { recursive: true });
        writeFileSync(
            join(repo, ".north", "skills", "release", "SKILL.md"),
            "---\nname: release\ndescription: How to cut a release\n---\nRun the release script, then tag."
        );
        server.enqueue(
            { toolCalls: [{ name: "skill", input: { name: "release" } }] },
            { text: "done" }
        );
        const run = await runNorth(["-p", "release it", "--path", repo], { env });
        expect(run.code).toBe(0);
        const tools = body(0).tools!;
        expect(JSON.stringify(tools)).toContain("How to cut a release");
        expect(JSON.stringify(server.requests[0]!.body)).not.toContain("Run the release script");
        expect(JSON.stringify(server.requests[1]!.body)).toContain("Run the release script");
    });

    it("--mode plan ends with the plan and writes nothing", async () => {
        server.enqueue({
            toolCalls: [
                { name: "propose_plan", input: { plan: "1. edit app.ts\n2. test" } },
                { name: "edit_create_file", input: { path: "x.ts", content: "x" } },
            ],
        });
        const run = await runNorth(
            ["-p", "plan it", "--path", repo, "--mode", "plan", "--allow-edits"],
            { env }
        );
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("1. edit app.ts\n2. test\n");
        expect(() => readFileSync(join(repo, "x.ts"))).toThrow();
    });
});
