/**
 * The editor's MCP servers (session/new's mcpServers) join the session as the
 * user's own: a real stdio MCP server's tools reach the model even in an
 * untrusted project, and calling one still asks the editor's user first.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useAcpTestbed } from "../kit/acp-testbed";
import { anthropicToolResultTexts } from "../kit/fake-llm-server";

const ECHO = fileURLToPath(new URL("../tools/mcp/fixtures/fake-server.mjs", import.meta.url));

const bed = useAcpTestbed({ "src/app.ts": "export const app = 1;\n" });

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
});
