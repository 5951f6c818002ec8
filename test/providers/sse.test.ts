import { describe, expect, it } from "vitest";
import { type SseEvent, sseBatchesOf } from "../../src/providers/sse";

function bodyOf(chunks: string[]): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    return new ReadableStream({
        start(controller) {
            for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
            controller.close();
        },
    });
}

async function batches(chunks: string[]): Promise<SseEvent[][]> {
    const out: SseEvent[][] = [];
    for await (const batch of sseBatchesOf(bodyOf(chunks))) out.push(batch);
    return out;
}

describe("sseBatchesOf", () => {
    it("yields the events of each chunk together, across events split anywhere", async () => {
        const text =
            'event: a\ndata: {"n":1}\n\nevent: b\ndata: {"n":2}\n\n: comment\n\ndata: x\ndata: y\n\n';
        for (let cut = 1; cut < text.length; cut++) {
            const all = (await batches([text.slice(0, cut), text.slice(cut)])).flat();
            expect(all).toEqual([
                { event: "a", data: '{"n":1}' },
                { event: "b", data: '{"n":2}' },
                { event: "message", data: "x\ny" },
            ]);
        }
        expect(await batches([text])).toHaveLength(1);
    });

    it("handles CRLF line endings, multi-byte characters split across chunks, and a last event without a blank line", async () => {
        const bytes = new TextEncoder().encode("data: é\r\n\r\ndata: end");
        const body = new ReadableStream<Uint8Array>({
            start(controller) {
                controller.enqueue(bytes.slice(0, 7)); // cuts "é" in half
                controller.enqueue(bytes.slice(7));
                controller.close();
            },
        });
        const out: SseEvent[] = [];
        for await (const batch of sseBatchesOf(body)) out.push(...batch);
        expect(out).toEqual([
            { event: "message", data: "é" },
            { event: "message", data: "end" },
        ]);
    });
});
