/**
 * Print mode cannot ask the user: an MCP server's form is declined and its
 * sampling request refused, each with a reason the tool result carries to
 * the model. Needs `npm run build` first.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

const FIXTURE = fileURLToPath(
    new URL("../tools/mcp/fixtures/client-features-server.mjs", import.meta.url)
);

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
    repo = mkdtempSync(join(tmpdir(), "north-mcp-requests-"));
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    mkdirSync(join(home, "config"), { recursive: true });
    writeFileSync(
        join(home, "config", "config.json"),
        JSON.stringify({ mcpServers: { feat: { command: process.execPath, args: [FIXTURE] } } })
    );
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

/** The last request as text, unescaped: JSON inside the tool result reads as written. */
const lastRequest = (): string => JSON.stringify(server.requests.at(-1)!.body).replaceAll("\\", "");

describe("MCP servers' questions in print mode", () => {
    it("declines a form and refuses sampling, saying why", async () => {
        server.enqueue(
            {
                toolCalls: [
                    { name: "mcp__feat__elicit_form", input: {} },
                    { name: "mcp__feat__sample", input: {} },
                ],
            },
            { text: "Could not ask." }
        );
        const run = await runNorth(["-p", "deploy", "--path", repo, "--allow-shell"], { env });
        expect(run.stdout).toContain("Could not ask.");
        expect(run.code).toBe(0);
        const body = lastRequest();
        expect(body).toContain('{"action":"decline"}');
        expect(body).toContain(
            "sampling failed: MCP error -1: North declined the sampling request: only the chat can ask the user to approve one (not print mode or the Node API)"
        );
        // Only the two scripted turns: nothing was sampled through the model.
        expect(server.requests).toHaveLength(2);
    });
});
