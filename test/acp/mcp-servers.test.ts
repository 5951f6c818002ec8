/**
 * The editor's MCP servers (session/new's mcpServers) join the session as the
 * user's own: a real stdio MCP server's tools reach the model even in an
 * untrusted project, and calling one still asks the editor's user first.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { useAcpTestbed } from "../kit/acp-testbed";
import { anthropicToolResultTexts } from "../kit/fake-llm-server";

const ECHO = fileURLToPath(new URL("../tools/mcp/fixtures/fake-server.mjs", import.meta.url));

const bed = useAcpTestbed({ "src/app.ts": "export const app = 1;\n" });

const httpServers: HttpServer[] = [];
afterEach(async () => {
    for (const http of httpServers.splice(0)) {
        http.closeAllConnections();
        await new Promise<void>((resolve) => http.close(() => resolve()));
    }
});

/** A real MCP server over streamable HTTP with one tool, `add`; records the Authorization headers it sees. */
async function startHttpMcpServer(): Promise<{ url: string; seenAuth: string[] }> {
    const seenAuth: string[] = [];
    const mcp = new Server(
        { name: "http-fake", version: "1.0.0" },
        { capabilities: { tools: {} } }
    );
    mcp.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [
            {
                name: "add",
                description: "Adds two numbers.",
                inputSchema: {
                    type: "object",
                    properties: { a: { type: "number" }, b: { type: "number" } },
                },
            },
        ],
    }));
    mcp.setRequestHandler(CallToolRequestSchema, (request) => {
        const { a, b } = (request.params.arguments ?? {}) as { a: number; b: number };
        return { content: [{ type: "text", text: `sum=${a + b}` }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    await mcp.connect(transport);
    const http = createServer((req, res) => {
        seenAuth.push(String(req.headers.authorization ?? ""));
        void transport.handleRequest(req, res);
    });
    httpServers.push(http);
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, seenAuth };
}

const offeredTools = (request: number): string[] =>
    (bed.server.requests[request]!.body as { tools: Array<{ name: string }> }).tools.map(
        (t) => t.name
    );

describe("the editor's MCP servers", () => {
    it("offer their tools to the model, and a call asks permission before it runs", async () => {
        bed.server.enqueue(
            {
                toolCalls: [
                    {
                        id: "toolu_echo",
                        name: "mcp__echo__echo",
                        input: { text: "ping from the editor" },
                    },
                ],
            },
            { text: "It echoed." }
        );
        const acp = await bed.start({ permissions: ["allow_once"] });
        await acp.initialize();
        const { sessionId } = await acp.newSession(bed.repo, {
            mcpServers: [{ name: "echo", command: process.execPath, args: [ECHO], env: [] }],
        });
        expect((await acp.prompt(sessionId, "echo something")).stopReason).toBe("end_turn");

        expect(offeredTools(0)).toContain("mcp__echo__echo");
        expect(acp.permissionRequests).toHaveLength(1);
        const [call] = acp.toolCalls(sessionId);
        expect(acp.permissionRequests[0]!.request.toolCall.toolCallId).toBe(call!.toolCallId);
        expect(call).toMatchObject({ status: "completed" });
        expect(JSON.stringify(call!.content)).toContain("ping from the editor");
        expect(anthropicToolResultTexts(bed.server.requests[1]!)[0]).toContain(
            "ping from the editor"
        );
    });

    it("a rejected call does not reach the server", async () => {
        bed.server.enqueue(
            {
                toolCalls: [
                    {
                        id: "toolu_echo",
                        name: "mcp__echo__echo",
                        input: { text: "should not echo" },
                    },
                ],
            },
            { text: "Skipped." }
        );
        const acp = await bed.start({ permissions: ["reject_once"] });
        await acp.initialize();
        const { sessionId } = await acp.newSession(bed.repo, {
            mcpServers: [{ name: "echo", command: process.execPath, args: [ECHO], env: [] }],
        });
        await acp.prompt(sessionId, "echo something");
        const told = anthropicToolResultTexts(bed.server.requests[1]!)[0]!;
        expect(told).not.toContain('"text":"should not echo"');
        expect(told).toMatch(/user (rejected|refused|denied)/i);
        expect(acp.toolCalls(sessionId)[0]!.status).toBe("failed");
    });

    it("passes the editor's env entries to the server it starts", async () => {
        bed.server.enqueue(
            {
                toolCalls: [
                    { id: "toolu_env", name: "mcp__echo__env", input: { name: "EDITOR_GIVEN" } },
                ],
            },
            { text: "Read it." }
        );
        const acp = await bed.start({ permissions: ["allow_once"] });
        await acp.initialize();
        const { sessionId } = await acp.newSession(bed.repo, {
            mcpServers: [
                {
                    name: "echo",
                    command: process.execPath,
                    args: [ECHO],
                    env: [{ name: "EDITOR_GIVEN", value: "from-settings-json" }],
                },
            ],
        });
        await acp.prompt(sessionId, "what is EDITOR_GIVEN?");
        expect(anthropicToolResultTexts(bed.server.requests[1]!)[0]).toContain(
            "from-settings-json"
        );
    });

    it("an HTTP server from the editor, with its headers, works the same way", async () => {
        const { url, seenAuth } = await startHttpMcpServer();
        bed.server.enqueue(
            { toolCalls: [{ id: "toolu_add", name: "mcp__remote__add", input: { a: 2, b: 40 } }] },
            { text: "The sum is 42." }
        );
        const acp = await bed.start({ permissions: ["allow_once"] });
        await acp.initialize();
        const { sessionId } = await acp.newSession(bed.repo, {
            mcpServers: [
                {
                    type: "http",
                    name: "remote",
                    url,
                    headers: [{ name: "Authorization", value: "Bearer editor-token" }],
                },
            ],
        });
        expect((await acp.prompt(sessionId, "add 2 and 40")).stopReason).toBe("end_turn");
        expect(offeredTools(0)).toContain("mcp__remote__add");
        expect(acp.permissionRequests).toHaveLength(1);
        expect(anthropicToolResultTexts(bed.server.requests[1]!)[0]).toContain("sum=42");
        expect(seenAuth).toContain("Bearer editor-token");
    });

    it("a server that cannot start is named on stderr, never on stdout, and the prompt still runs", async () => {
        bed.server.enqueue({ text: "Working without it." });
        const acp = await bed.start();
        await acp.initialize();
        const { sessionId } = await acp.newSession(bed.repo, {
            mcpServers: [
                {
                    name: "broken",
                    command: process.execPath,
                    args: [ECHO, "exit-at-start"],
                    env: [],
                },
            ],
        });
        expect((await acp.prompt(sessionId, "go on")).stopReason).toBe("end_turn");
        expect(acp.text(sessionId)).toContain("Working without it.");
        expect(acp.stderr).toContain("broken");
        // (Every stdout line is checked as a protocol message when the client closes.)
    });
});
