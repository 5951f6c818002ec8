/**
 * session/cancel: the model's stream is stopped and the turn answers
 * `cancelled`; a permission request still open is abandoned (whether or not
 * the editor answers it), nothing it asked about happens, and the session
 * takes the next prompt.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAcpTestbed } from "../kit/acp-testbed";
import { startPacedLlmServer } from "../kit/paced-llm-server";

const bed = useAcpTestbed({ "src/app.ts": "export const app = 1;\n" });

describe("session/cancel", () => {
    it("stops a streaming answer: the prompt answers cancelled and the session goes on", async () => {
        // The model sends two words, then keeps its answer open until North hangs up.
        const paced = await startPacedLlmServer();
        try {
            paced.enqueue(
                { text: "still talking and talking", holdAfterChunks: 2 },
                { text: "Back again." }
            );
            const acp = await bed.start({
                env: { ...bed.env, ANTHROPIC_BASE_URL: paced.anthropicBaseUrl },
            });
            await acp.initialize();
            const { sessionId } = await acp.newSession(bed.repo);
            const turn = acp.prompt(sessionId, "talk forever");
            // Streamed: text reaches the editor while the model is still answering.
            await acp.waitForUpdate(sessionId, (u) => u.sessionUpdate === "agent_message_chunk");
            await acp.cancel(sessionId);
            expect((await turn).stopReason).toBe("cancelled");
            expect(acp.text(sessionId)).toContain("still");

            expect((await acp.prompt(sessionId, "are you there?")).stopReason).toBe("end_turn");
            expect(acp.text(sessionId)).toContain("Back again.");
            const second = JSON.stringify(paced.requests[1]);
            expect(second).toContain("talk forever");
            expect(second).toContain("are you there?");
            expect(paced.remaining()).toBe(0);
        } finally {
            await paced.close();
        }
    });

    it("abandons a pending permission request the editor never answers; the command does not run", async () => {
        bed.server.enqueue(
            {
                toolCalls: [
                    {
                        id: "toolu_touch",
                        name: "shell_run",
                        input: { command: "touch never-made" },
                    },
                ],
            },
            { text: "Fine." }
        );
        const { acp, sessionId } = await bed.session({ permissions: ["hold"] });
        const turn = acp.prompt(sessionId, "make the file");
        const asked = await acp.waitForPermissionRequest(1);
        expect(asked.outcome).toBeUndefined();
        // A sloppy editor: it sends session/cancel but leaves its permission dialog open.
        await acp.cancel(sessionId, { answerHeld: false });
        expect((await turn).stopReason).toBe("cancelled");
        expect(existsSync(join(bed.repo, "never-made"))).toBe(false);
        const [command] = acp.toolCalls(sessionId);
        expect(command!.status).not.toBe("completed");

        // North is not stuck on the abandoned question.
        expect((await acp.prompt(sessionId, "never mind")).stopReason).toBe("end_turn");
        expect(acp.text(sessionId)).toContain("Fine.");
    });

    it("takes the editor's cancelled answer to a pending permission request as the protocol asks", async () => {
        bed.server.enqueue({
            toolCalls: [
                { id: "toolu_touch", name: "shell_run", input: { command: "touch never-made" } },
            ],
        });
        const { acp, sessionId } = await bed.session({ permissions: ["hold"] });
        const turn = acp.prompt(sessionId, "make the file");
        await acp.waitForPermissionRequest(1);
        await acp.cancel(sessionId);
        expect((await turn).stopReason).toBe("cancelled");
        expect(acp.permissionRequests[0]!.outcome).toEqual({ outcome: "cancelled" });
        expect(existsSync(join(bed.repo, "never-made"))).toBe(false);
    });

    it("a cancel with no turn running changes nothing", async () => {
        bed.server.enqueue({ text: "Still here." });
        const { acp, sessionId } = await bed.session();
        await acp.cancel(sessionId);
        expect((await acp.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
        expect(acp.text(sessionId)).toBe("Still here.");
    });

    it("a second prompt while one runs is refused; the first goes on until cancelled", async () => {
        const paced = await startPacedLlmServer();
        try {
            paced.enqueue({ text: "busy busy busy", holdAfterChunks: 1 });
            const acp = await bed.start({
                env: { ...bed.env, ANTHROPIC_BASE_URL: paced.anthropicBaseUrl },
            });
            await acp.initialize();
            const { sessionId } = await acp.newSession(bed.repo);
            const first = acp.prompt(sessionId, "first");
            await acp.waitForUpdate(sessionId, (u) => u.sessionUpdate === "agent_message_chunk");
            const second = await acp.prompt(sessionId, "second").then(
                () => undefined,
                (error: unknown) => error as { code: number; message: string }
            );
            expect(second?.code).toBeLessThan(0);
            await acp.cancel(sessionId);
            expect((await first).stopReason).toBe("cancelled");
            // Only the first prompt reached the model.
            expect(paced.requests).toHaveLength(1);
        } finally {
            await paced.close();
        }
    });

    it("session/close during a turn ends the turn as cancelled, and the session is gone", async () => {
        const paced = await startPacedLlmServer();
        try {
            paced.enqueue({ text: "busy busy busy", holdAfterChunks: 1 });
            const acp = await bed.start({
                env: { ...bed.env, ANTHROPIC_BASE_URL: paced.anthropicBaseUrl },
            });
            await acp.initialize();
            const { sessionId } = await acp.newSession(bed.repo);
            const turn = acp.prompt(sessionId, "first");
            await acp.waitForUpdate(sessionId, (u) => u.sessionUpdate === "agent_message_chunk");
            await acp.agent.request("session/close", { sessionId });
            expect((await turn).stopReason).toBe("cancelled");
            const after = await acp.prompt(sessionId, "again").then(
                () => undefined,
                (error: unknown) => error as { code: number }
            );
            expect(after?.code).toBe(-32002);
        } finally {
            await paced.close();
        }
    });
});
