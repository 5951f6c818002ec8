/**
 * session/load in a new `north acp`: the saved conversation comes back as
 * session/update notifications before the answer (the user's prompts, the
 * answers, the tool calls as finished calls), and the next prompt continues
 * the same conversation.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAcpTestbed } from "../kit/acp-testbed";

const RETRY = "export function retry() {\n    return 3;\n}\n";
const bed = useAcpTestbed({ "src/retry.ts": RETRY });

describe("session/load", () => {
    it("replays a saved conversation as updates, then continues it", async () => {
        bed.server.enqueue(
            {
                toolCalls: [
                    { id: "toolu_read", name: "read_file", input: { path: "src/retry.ts" } },
                ],
            },
            { text: "It retries three times." },
            { text: "Yes, three." }
        );
        const first = await bed.session();
        await first.acp.prompt(first.sessionId, "how often does it retry?");
        const original = first.acp.toolCalls(first.sessionId);
        await first.acp.close();

        const acp = await bed.start();
        await acp.initialize();
        const loaded = await acp.agent.request("session/load", {
            sessionId: first.sessionId,
            cwd: bed.repo,
            mcpServers: [],
        });
        expect(loaded.modes?.currentModeId).toBeDefined();
        // Replayed before the answer came: every update is already here.
        const replay = acp.updates(first.sessionId);
        const said = (kind: "user_message_chunk" | "agent_message_chunk") =>
            replay
                .map((u) =>
                    u.sessionUpdate === kind && u.content.type === "text" ? u.content.text : ""
                )
                .join("");
        expect(said("user_message_chunk")).toContain("how often does it retry?");
        expect(said("agent_message_chunk")).toContain("It retries three times.");
        const [read] = acp.toolCalls(first.sessionId);
        expect(read).toMatchObject({
            kind: "read",
            status: "completed",
            toolCallId: original[0]!.toolCallId,
        });
        expect(read!.locations?.[0]?.path).toBe(join(bed.repo, "src/retry.ts"));
        // In order: the question, then the call, then the answer.
        const order = replay
            .map((u) => u.sessionUpdate)
            .filter((k) => k !== "available_commands_update");
        expect(order.indexOf("user_message_chunk")).toBeLessThan(order.indexOf("tool_call"));
        expect(order.indexOf("tool_call")).toBeLessThan(order.lastIndexOf("agent_message_chunk"));

        expect((await acp.prompt(first.sessionId, "three, you said?")).stopReason).toBe("end_turn");
        const continued = JSON.stringify(bed.server.requests[2]!.body);
        expect(continued).toContain("how often does it retry?");
        expect(continued).toContain("It retries three times.");
        expect(continued).toContain("three, you said?");
    });

    it("an unknown session id is a JSON-RPC error, and North keeps serving", async () => {
        const acp = await bed.start();
        await acp.initialize();
        const refused = await acp.agent
            .request("session/load", {
                sessionId: "no-such-session",
                cwd: bed.repo,
                mcpServers: [],
            })
            .then(
                () => undefined,
                (error: unknown) => error as { code: number }
            );
        expect(refused?.code).toBeLessThan(0);
        await expect(acp.newSession(bed.repo)).resolves.toMatchObject({
            sessionId: expect.any(String),
        });
    });
});
