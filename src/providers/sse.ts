/** One server-sent event: its `event:` name (default "message") and joined `data:` lines. */
export interface SseEvent {
    event: string;
    data: string;
}

const COLON = 58;
const SPACE = 32;

/** Parses one event's text (its lines, without the blank line that ended it). */
function parseEvent(raw: string): SseEvent | null {
    let event = "message";
    let data: string | null = null;
    // Walks the lines in place: no array of lines, one slice per value.
    for (let start = 0; start < raw.length;) {
        let end = raw.indexOf("\n", start);
        if (end < 0) end = raw.length;
        if (end > start && raw.charCodeAt(start) !== COLON) {
            let colon = raw.indexOf(":", start);
            if (colon < 0 || colon > end) colon = end;
            let valueStart = colon + 1;
            if (valueStart < end && raw.charCodeAt(valueStart) === SPACE) valueStart++;
            const value = valueStart < end ? raw.slice(valueStart, end) : "";
            const nameLength = colon - start;
            if (nameLength === 4 && raw.startsWith("data", start)) {
                data = data === null ? value : `${data}\n${value}`;
            } else if (nameLength === 5 && raw.startsWith("event", start)) {
                event = value;
            }
        }
        start = end + 1;
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
 * Every line end as LF. Free without a CR; with CRLF ends (Gemini's) one
 * native plain-string replace, about three times faster than a regular
 * expression over a 64 KB chunk; a lone CR (rare) costs one more pass.
 */
function normalize(text: string): string {
    if (!text.includes("\r")) return text;
    const lf = text.replaceAll("\r\n", "\n");
    return lf.includes("\r") ? lf.replaceAll("\r", "\n") : lf;
}

/**
 * A synchronous SSE parser fed one network chunk at a time: one decode per
 * chunk, and the events that chunk completed come back as one array, so
 * there is no promise per event. Throws `SseEventTooLargeError` once the
 * event in progress passes `maxEventChars`.
 */
export class SseParser {
    private readonly decoder = new TextDecoder();
    // The event in progress, in pieces: joined only once it ends, so a long
    // event costs no copying per chunk.
    private readonly pieces: string[] = [];
    private pendingChars = 0;
    // A CR at the end of a chunk may be the first half of a CRLF.
    private heldCr = false;

    constructor(private readonly maxEventChars = MAX_SSE_EVENT_CHARS) {}

    /** The events completed by this chunk (often none, or several). */
    push(bytes: Uint8Array): SseEvent[] {
        let raw = this.decoder.decode(bytes, { stream: true });
        if (this.heldCr) raw = `\r${raw}`;
        this.heldCr = raw.endsWith("\r");
        if (this.heldCr) raw = raw.slice(0, -1);
        const text = normalize(raw);
        const batch: SseEvent[] = [];
        let start = 0;
        if (text.startsWith("\n") && this.pieces.at(-1)?.endsWith("\n")) {
            add(batch, this.take("").slice(0, -1)); // the blank line straddles two chunks
            start = 1;
        }
        for (let end = text.indexOf("\n\n", start); end >= 0; end = text.indexOf("\n\n", start)) {
            add(batch, this.take(text.slice(start, end)));
            start = end + 2;
        }
        if (start < text.length) {
            this.pieces.push(start === 0 ? text : text.slice(start));
            this.pendingChars += text.length - start;
        }
        if (this.pendingChars > this.maxEventChars) {
            throw new SseEventTooLargeError(this.maxEventChars);
        }
        return batch;
    }

    /** The last event, when the body ended without the blank line after it. */
    finish(): SseEvent[] {
        const rest = this.take(normalize((this.heldCr ? "\r" : "") + this.decoder.decode()));
        this.heldCr = false;
        const last = rest.trim() === "" ? null : parseEvent(rest);
        return last ? [last] : [];
    }

    private take(tail: string): string {
        if (this.pieces.length === 0) return tail;
        const raw = this.pieces.join("") + tail;
        this.pieces.length = 0;
        this.pendingChars = 0;
        return raw;
    }
}

function add(batch: SseEvent[], raw: string): void {
    const parsed = parseEvent(raw);
    if (parsed) batch.push(parsed);
}

/**
 * The one SSE read loop: feeds each byte chunk of a body to the parser and
 * yields the events it completed as one batch, so a provider can coalesce
 * deltas that arrived together instead of paying an async step per token.
 * Throws `SseEventTooLargeError` past `maxEventChars`. Closing the source is
 * the caller's (`readNodeSseBatches` in sse-stream.ts).
 */
export async function* sseBatchesOf(
    chunks: AsyncIterable<Uint8Array>,
    maxEventChars = MAX_SSE_EVENT_CHARS
): AsyncGenerator<SseEvent[]> {
    const parser = new SseParser(maxEventChars);
    for await (const chunk of chunks) {
        const batch = parser.push(chunk);
        if (batch.length > 0) yield batch;
    }
    const last = parser.finish();
    if (last.length > 0) yield last;
}
