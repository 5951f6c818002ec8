import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import type { ReadableStream as NodeWebStream } from "node:stream/web";
import { describe, expect, it } from "vitest";
import { SseEventTooLargeError, sseBatchesOf } from "../../src/providers/sse";
import { streamSse } from "../../src/providers/sse-stream";
import { emptyUsage } from "../../src/providers/stream-utils";
import type { StreamEvent } from "../../src/providers/types";

/** A body that sends `first`, then `next` forever, and says when it was cancelled. */
function endlessBody(first: string, next: string) {
    const encoder = new TextEncoder();
    const state = { cancelled: false };
    const body = new ReadableStream<Uint8Array>({
        start(controller) {
            controller.enqueue(encoder.encode(first));
        },
        pull(controller) {
            controller.enqueue(encoder.encode(next));
        },
        cancel() {
            state.cancelled = true;
        },
    });
    return { body, state };
}

describe("sseBatchesOf across chunk boundaries", () => {
    it("finds every event of a CRLF body, whatever two cuts split it into three chunks", async () => {
        const text =
            'event: a\r\ndata: {"n":1}\r\n\r\ndata: x\r\ndata: y\r\n\r\n\r\ndata: z\r\n\r\n';
        const encoder = new TextEncoder();
        for (let a = 0; a <= text.length; a++) {
            for (let b = a; b <= text.length; b += 3) {
                const chunks = [text.slice(0, a), text.slice(a, b), text.slice(b)];
                const body = new ReadableStream<Uint8Array>({
                    start(controller) {
                        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
                        controller.close();
                    },
                });
                const events: Array<{ event: string; data: string }> = [];
                for await (const batch of sseBatchesOf(body)) events.push(...batch);
                expect(events, JSON.stringify(chunks)).toEqual([
                    { event: "a", data: '{"n":1}' },
                    { event: "message", data: "x\ny" },
                    { event: "message", data: "z" },
                ]);
            }
        }
    });
});

describe("an SSE event that never ends", () => {
    it("stops the reader once the pending event passes the limit, and cancels the body", async () => {
        const { body, state } = endlessBody("data: {}\n\ndata: ", "x".repeat(1000));
        const seen: string[] = [];
        const read = async () => {
            for await (const batch of sseBatchesOf(body, 10_000)) {
                seen.push(...batch.map((e) => e.data));
            }
        };
        await expect(read()).rejects.toBeInstanceOf(SseEventTooLargeError);
        expect(seen).toEqual(["{}"]);
        expect(state.cancelled).toBe(true);
    });

    it("ends a provider stream with response_too_large (not retried)", async () => {
        const { body } = endlessBody("data: ", "y".repeat(64 * 1024));
        const events: StreamEvent[] = [];
        const stream = streamSse<unknown>({
            label: "Test API",
            signal: new AbortController().signal,
            // streamSse reads a node:http response; a Readable over the body reads the same.
            send: async () =>
                Readable.fromWeb(body as NodeWebStream<Uint8Array>) as unknown as IncomingMessage,
            state: {
                blocks: [],
                usage: emptyUsage(),
                handle: () => [],
                failure: () => undefined,
                incompleteDetail: () => null,
                stopReason: () => "end_turn",
            },
            decode: (sse) => JSON.parse(sse.data) as unknown,
            classify: () => ({ kind: "unknown", message: "unexpected", retryable: false }),
        });
        for await (const event of stream) events.push(event);
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({
            type: "error",
            error: { kind: "response_too_large", retryable: false },
        });
    });
});
