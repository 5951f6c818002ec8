/** One server-sent event: its `event:` name (default "message") and joined `data:` lines. */
export interface SseEvent {
    event: string;
    data: string;
}

function parseEvent(raw: string): SseEvent | null {
    let event = "message";
    let data: string | null = null;
    for (const line of raw.split("\n")) {
        if (line === "" || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "event") event = value;
        else if (field === "data") data = data === null ? value : `${data}\n${value}`;
    }
    return data === null ? null : { event, data };
}

/** The text of one event passed `limit` characters before it ended. */
export class SseEventTooLargeError extends Error {
    constructor(readonly limit: number) {
        super(`one server-sent event passed ${limit} characters`);
    }
}

/**
 * The most one event may hold before it ends: a final event repeats the
 * whole answer (OpenAI's `response.completed`), so well above the response
 * cap, yet a body that never ends its event cannot grow memory without bound.
 */
export const MAX_SSE_EVENT_CHARS = 32 * 1024 * 1024;

/**
 * Reads an SSE body and yields the events of each network chunk as one batch,
 * so a provider can coalesce deltas that arrived together instead of paying
 * an async step per token. Throws `SseEventTooLargeError` past `maxEventChars`.
 */
export async function* readSseBatches(
    body: ReadableStream<Uint8Array>,
    maxEventChars = MAX_SSE_EVENT_CHARS
): AsyncGenerator<SseEvent[]> {
    const decoder = new TextDecoder();
    const reader = body.getReader();
    // The event in progress, in pieces: joined only once it ends, so a long
    // event costs no copying per chunk.
    const pieces: string[] = [];
    let pendingChars = 0;
    const take = (tail: string): string => {
        const raw = pieces.join("") + tail;
        pieces.length = 0;
        pendingChars = 0;
        return raw;
    };
    // A CR at the end of a chunk may be the first half of a CRLF.
    let heldCr = false;
    const normalize = (text: string): string =>
        text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
    try {
        for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            let raw: string = (heldCr ? "\r" : "") + decoder.decode(value, { stream: true });
            heldCr = raw.endsWith("\r");
            if (heldCr) raw = raw.slice(0, -1);
            const text = normalize(raw);
            const batch: SseEvent[] = [];
            const add = (event: string): void => {
                const parsed = parseEvent(event);
                if (parsed) batch.push(parsed);
            };
            let start = 0;
            if (text.startsWith("\n") && pieces.at(-1)?.endsWith("\n")) {
                add(take("").slice(0, -1)); // the blank line straddles two chunks
                start = 1;
            }
            for (
                let end = text.indexOf("\n\n", start);
                end >= 0;
                end = text.indexOf("\n\n", start)
            ) {
                add(take(text.slice(start, end)));
                start = end + 2;
            }
            if (start < text.length) {
                pieces.push(text.slice(start));
                pendingChars += text.length - start;
            }
            if (pendingChars > maxEventChars) throw new SseEventTooLargeError(maxEventChars);
            if (batch.length > 0) yield batch;
        }
        const rest = take(normalize((heldCr ? "\r" : "") + decoder.decode()));
        const last = rest.trim() === "" ? null : parseEvent(rest);
        if (last) yield [last];
    } finally {
        reader.releaseLock();
        body.cancel().catch(() => undefined);
    }
}
