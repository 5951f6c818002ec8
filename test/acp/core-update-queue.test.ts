/**
 * A session's updates reach the editor in the order they were made; text
 * streamed while an earlier update is still being written joins the text
 * before it, so a slow editor gets fewer, longer chunks and the same words.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { UpdateQueue } from "../../src/cli/acp/update-queue";

const text = (
    kind: "agent_message_chunk" | "agent_thought_chunk",
    words: string
): SessionUpdate => ({
    sessionUpdate: kind,
    content: { type: "text", text: words },
});

/** An editor whose writes finish when the test says so. */
function slowEditor() {
    const written: SessionUpdate[] = [];
    const pending: Array<() => void> = [];
    const queue = new UpdateQueue(
        (update) =>
            new Promise<void>((resolve) => {
                written.push(update);
                pending.push(resolve);
            })
    );
    const finishWrites = async (): Promise<void> => {
        while (pending.length > 0) {
            pending.shift()!();
            await Promise.resolve();
            await Promise.resolve();
        }
    };
    return { queue, written, finishWrites };
}

describe("UpdateQueue", () => {
    it("joins text streamed while an update is being written, and keeps the order of the rest", async () => {
        const { queue, written, finishWrites } = slowEditor();
        void queue.send(text("agent_message_chunk", "Hello"));
        void queue.send(text("agent_message_chunk", ", "));
        void queue.send(text("agent_message_chunk", "world"));
        void queue.send(text("agent_thought_chunk", "hmm"));
        void queue.send({
            sessionUpdate: "tool_call",
            toolCallId: "t1",
            title: "Reading a.ts",
            kind: "read",
            status: "pending",
        });
        void queue.send(text("agent_message_chunk", "Done"));
        const all = queue.flushed();
        await finishWrites();
        await all;
        expect(written).toEqual([
            text("agent_message_chunk", "Hello"),
            text("agent_message_chunk", ", world"),
            text("agent_thought_chunk", "hmm"),
            expect.objectContaining({ sessionUpdate: "tool_call", toolCallId: "t1" }),
            text("agent_message_chunk", "Done"),
        ]);
    });

    it("goes on after a write that failed (the editor gone), and flushed() resolves", async () => {
        const written: string[] = [];
        const queue = new UpdateQueue(async (update) => {
            written.push(update.sessionUpdate);
            if (written.length === 1) throw new Error("EPIPE");
        });
        void queue.send(text("agent_message_chunk", "a"));
        void queue.send({ sessionUpdate: "current_mode_update", currentModeId: "ask" });
        await queue.flushed();
        expect(written).toEqual(["agent_message_chunk", "current_mode_update"]);
        await expect(queue.flushed()).resolves.toBeUndefined();
    });
});
