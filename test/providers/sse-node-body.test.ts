import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sendNodeRequest } from "../../src/providers/node-fetch";
import { streamSse } from "../../src/providers/sse-stream";
import { emptyUsage, pushTextDelta } from "../../src/providers/stream-utils";
import type { StreamEvent } from "../../src/providers/types";

/** A server whose SSE answers are written by each test; records when a response closes. */
let server: Server;
let url: string;
let answer: (res: ServerResponse) => void;
let closed: Promise<void>;

beforeEach(async () => {
    let markClosed: () => void = () => undefined;
    closed = new Promise((resolve) => (markClosed = resolve));
    server = createServer((req, res) => {
        req.resume();
        res.on("close", markClosed);
        answer(res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
});

function textStream(signal: AbortSignal) {
    const blocks: Array<{ type: "text"; text: string }> = [];
    return streamSse<{ text: string; end?: boolean }>({
        label: "Test API",
        signal,
        send: () =>
            sendNodeRequest(new URL(url), {
                method: "POST",
                headers: {},
                body: Buffer.from("{}"),
                signal,
            }),
        state: {
            blocks,
            usage: emptyUsage(),
            handle: (event, out) => {
                if (event.end) return;
                blocks[0] = { type: "text", text: (blocks[0]?.text ?? "") + event.text };
                pushTextDelta(out, "text_delta", event.text);
            },
            failure: () => undefined,
            incompleteDetail: () => null,
            stopReason: () => "end_turn",
        },
        decode: (sse) => JSON.parse(sse.data) as { text: string },
        classify: (error) => ({ kind: "network", message: String(error), retryable: true }),
    });
}

const frame = (text: string): string => `data: ${JSON.stringify({ text })}\n\n`;

describe("a streamed answer read straight from node:http", () => {
    it("gives one coalesced delta per network chunk, with every token and a CRLF split between chunks", async () => {
        answer = (res) => {
            res.writeHead(200, { "content-type": "text/event-stream" });
            res.write(frame("a") + frame("b") + frame("c"));
            // The next frame's CRLF blank line is cut between two writes.
            setImmediate(() => {
                res.write('data: {"text":"d"}\r\n\r');
                setImmediate(() => res.end("\n" + frame("e")));
            });
        };
        const events: StreamEvent[] = [];
        for await (const event of textStream(new AbortController().signal)) events.push(event);
        const deltas = events.filter((e) => e.type === "text_delta").map((e) => e.text);
        expect(deltas.join("")).toBe("abcde");
        expect(deltas[0]).toBe("abc");
        expect(events.at(-1)).toMatchObject({ type: "done" });
    });

    it("closes the connection when the reader stops early", async () => {
        answer = (res) => {
            res.writeHead(200, { "content-type": "text/event-stream" });
            res.write(frame("first"));
        };
        for await (const event of textStream(new AbortController().signal)) {
            expect(event).toEqual({ type: "text_delta", text: "first" });
            break;
        }
        await closed;
    });

    it("ends with cancelled and closes the connection when aborted while waiting for bytes", async () => {
        answer = (res) => {
            res.writeHead(200, { "content-type": "text/event-stream" });
            res.write(frame("only"));
        };
        const controller = new AbortController();
        const events: StreamEvent[] = [];
        for await (const event of textStream(controller.signal)) {
            events.push(event);
            if (event.type === "text_delta") controller.abort();
        }
        expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "cancelled" } });
        await closed;
    });
});
