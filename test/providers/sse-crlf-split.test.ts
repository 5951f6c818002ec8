import { describe, expect, it } from "vitest";
import { type SseEvent, sseBatchesOf } from "../../src/providers/sse";

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    return new ReadableStream<Uint8Array>({
        start(controller) {
            for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
            controller.close();
        },
    });
}

async function eventsOf(chunks: string[]): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for await (const batch of sseBatchesOf(streamOf(chunks))) events.push(...batch);
    return events;
}

const EXPECTED: SseEvent[] = [
    { event: "alpha", data: "1" },
    { event: "beta", data: "2" },
];

// Every way of cutting the stream into three network chunks, so each `\r` meets each `\n`
// across a boundary (the `event:` name used to be lost when a CRLF was split).
describe.each([
    ["CRLF", "event: alpha\r\ndata: 1\r\n\r\nevent: beta\r\ndata: 2\r\n\r\n"],
    ["CR only", "event: alpha\rdata: 1\r\revent: beta\rdata: 2\r\r"],
    ["mixed", "event: alpha\ndata: 1\r\n\nevent: beta\rdata: 2\n\r\n"],
    [
        "comments and extra blank lines",
        ": hi\r\nevent: alpha\r\ndata: 1\r\n\r\n\r\nevent: beta\r\ndata: 2\r\n\r\n",
    ],
])("SSE with %s line endings", (_name, text) => {
    it("keeps every event's name and data however the chunks split", async () => {
        for (let first = 1; first < text.length; first++) {
            for (let second = first; second < text.length; second++) {
                const chunks = [
                    text.slice(0, first),
                    text.slice(first, second),
                    text.slice(second),
                ].filter((c) => c.length > 0);
                expect(await eventsOf(chunks), JSON.stringify(chunks)).toEqual(EXPECTED);
            }
        }
    });
});

it("a CR held at a chunk's end is not lost when the stream ends there", async () => {
    expect(await eventsOf(["event: alpha\r\ndata: 1\r"])).toEqual([EXPECTED[0]]);
});
