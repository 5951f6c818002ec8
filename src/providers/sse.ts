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

/**
 * Reads an SSE body and yields the events of each network chunk as one batch,
 * so a provider can coalesce deltas that arrived together instead of paying
 * an async step per token.
 */
export async function* readSseBatches(
    body: ReadableStream<Uint8Array>
): AsyncGenerator<SseEvent[]> {
    const decoder = new TextDecoder();
    const reader = body.getReader();
    let buffer = "";
    try {
        for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            buffer += decoder.decode(value, { stream: true });
            if (buffer.includes("\r")) buffer = buffer.replace(/\r\n?/g, "\n");
            const batch: SseEvent[] = [];
            let start = 0;
            for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n", start)) {
                const parsed = parseEvent(buffer.slice(start, end));
                if (parsed) batch.push(parsed);
                start = end + 2;
            }
            buffer = buffer.slice(start);
            if (batch.length > 0) yield batch;
        }
        buffer += decoder.decode();
        const last = buffer.trim() === "" ? null : parseEvent(buffer);
        if (last) yield [last];
    } finally {
        reader.releaseLock();
        body.cancel().catch(() => undefined);
    }
}
