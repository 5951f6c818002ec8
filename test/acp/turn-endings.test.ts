/**
 * How a prompt turn ends in the editor: an answer North cuts for its length
 * is v1's max_tokens with a line saying what happened; a failure no stop
 * reason fits is a JSON-RPC error carrying the words the chat prints, and
 * the session takes the next prompt. Through the built CLI (`node
 * scripts/build.mjs` first).
 */
import { describe, expect, it } from "vitest";
import { useAcpTestbed } from "../kit/acp-testbed";

const bed = useAcpTestbed({ "src/app.ts": "export const retries = 3;\n" });

/** The JSON-RPC error a request was answered with. */
async function rpcError(request: Promise<unknown>): Promise<{ code: number; message: string }> {
    try {
        await request;
    } catch (error) {
        const { code, message } = error as { code: number; message: string };
        return { code, message };
    }
    throw new Error("the request was answered without an error");
}

describe("a turn's end", () => {
    it("an endless answer cut at North's limit ends max_tokens, and the editor is told why", async () => {
        bed.server.enqueue({ fault: "endless", text: "endless text, ".repeat(8) });
        bed.server.enqueue({ text: "Short this time." });
        const { acp, sessionId } = await bed.session();
        const answer = await acp.prompt(sessionId, "talk forever");
        expect(answer.stopReason).toBe("max_tokens");
        expect(acp.text(sessionId)).toContain(
            "⚠ the response was cut off: its text, thinking and tool arguments passed North's limit of 1,024,000 characters"
        );
        // Not retried: the same request would run away again.
        expect(bed.server.requests).toHaveLength(1);
        const next = await acp.prompt(sessionId, "say it briefly");
        expect(next.stopReason).toBe("end_turn");
    });

    it("a refused API key is an error with the chat's words, not a bare internal error", async () => {
        bed.server.enqueue({ error: { status: 401, message: "invalid x-api-key" } });
        bed.server.enqueue({ text: "Working again." });
        const { acp, sessionId } = await bed.session();
        const error = await rpcError(acp.prompt(sessionId, "hi"));
        expect(error.code).toBe(-32603);
        expect(error.message).not.toMatch(/^Internal error/);
        expect(error.message).toContain("invalid x-api-key");
        const next = await acp.prompt(sessionId, "hi again");
        expect(next.stopReason).toBe("end_turn");
        expect(acp.text(sessionId)).toContain("Working again.");
    });
});
