import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

const FEATURES = fileURLToPath(
    new URL("../tools/mcp/fixtures/client-features-server.mjs", import.meta.url)
);
const ECHO = fileURLToPath(new URL("../tools/mcp/fixtures/fake-server.mjs", import.meta.url));

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
    repo = realpathSync(mkdtempSync(join(tmpdir(), "north-mcp-client-")));
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

function userMcpServers(servers: Record<string, unknown>): void {
    mkdirSync(join(home, "config"), { recursive: true });
    writeFileSync(join(home, "config", "config.json"), JSON.stringify({ mcpServers: servers }));
}

const offeredTools = (request: number): string[] =>
    (server.requests[request]!.body as { tools: Array<{ name: string }> }).tools.map((t) => t.name);

/** The tool results the model received in request `request`, in call order. */
function toolResults(request: number): string[] {
    const body = server.requests[request]!.body as { messages: Array<{ content: unknown }> };
    const out: string[] = [];
    for (const message of body.messages) {
        if (!Array.isArray(message.content)) continue;
        for (const block of message.content as Array<Record<string, unknown>>) {
            if (block.type !== "tool_result") continue;
            const content = block.content;
            out.push(typeof content === "string" ? content : JSON.stringify(content));
        }
    }
    return out;
}

describe("MCP client features in print mode", () => {
    it("answers roots/list with the project root and --add-dir, refreshes tools on list_changed, and declines elicitation", async () => {
        userMcpServers({ feat: { command: process.execPath, args: [FEATURES] } });
        server.enqueue(
            { toolCalls: [{ name: "mcp__feat__roots", input: {} }] },
            { toolCalls: [{ name: "mcp__feat__add_tool", input: {} }] },
            { toolCalls: [{ name: "mcp__feat__elicit", input: {} }] },
            { text: "done" }
        );
        const extra = realpathSync(mkdtempSync(join(tmpdir(), "north-mcp-extra-")));
        const run = await runNorth(["-p", "go", "--allow-shell", "--add-dir", extra], {
            env,
            cwd: repo,
        });
        rmSync(extra, { recursive: true, force: true });
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        const roots = JSON.parse(toolResults(1).at(-1)!) as { text: string };
        expect(JSON.parse(roots.text)).toEqual({
            roots: [
                { uri: pathToFileURL(repo).href, name: basename(repo) },
                { uri: pathToFileURL(extra).href, name: basename(extra) },
            ],
        });
        expect(offeredTools(1)).not.toContain("mcp__feat__late");
        // The request right after the call that changed the list offers the new tool.
        expect(offeredTools(2)).toContain("mcp__feat__late");
        const elicited = JSON.parse(toolResults(3).at(-1)!) as { text: string };
        expect(JSON.parse(elicited.text)).toEqual({ action: "decline" });
    });

    it("makes 50 calls to one server in one session without a MaxListenersExceededWarning", async () => {
        userMcpServers({ echo: { command: process.execPath, args: [ECHO] } });
        const turns = Array.from({ length: 10 }, (_, turn) => ({
            toolCalls: Array.from({ length: 5 }, (_, i) => ({
                name: "mcp__echo__echo",
                input: { text: `call-${turn * 5 + i}` },
            })),
        }));
        server.enqueue(...turns, { text: "done" });
        const run = await runNorth(["-p", "go", "--allow-shell"], { env, cwd: repo });
        expect(run.code).toBe(0);
        expect(run.stderr).not.toContain("MaxListenersExceededWarning");
        expect(run.stderr).toBe("");
        const results = toolResults(10);
        expect(results).toHaveLength(50);
        expect(results[49]).toContain("call-49");
    });
});
