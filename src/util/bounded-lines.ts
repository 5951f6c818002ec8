/**
 * Lines of a stream, each bounded before it is buffered: a line longer than
 * the limit is not kept; its bytes are dropped as they arrive until its
 * newline, and the reader yields `{ oversizedBytes }` in its place. Memory
 * stays at about one limit whatever a client sends. A CR before the newline
 * is dropped, as readline's `crlfDelay: Infinity` does.
 */
import type { Readable } from "node:stream";

/** A line that was over the limit: how many bytes it had. */
export interface OversizedLine {
    oversizedBytes: number;
}

export interface BoundedLineReader extends AsyncIterable<string | OversizedLine> {
    /** Stops reading: the iteration ends after the lines already read. */
    close(): void;
}

const NEWLINE = 0x0a;

export function readBoundedLines(input: Readable, maxBytes: number): BoundedLineReader {
    const ready: Array<string | OversizedLine> = [];
    let parts: Buffer[] = [];
    let size = 0;
    let ended = false;
    let wake: (() => void) | null = null;

    const finishLine = (): void => {
        if (size > maxBytes) {
            ready.push({ oversizedBytes: size });
        } else {
            const text = Buffer.concat(parts).toString("utf8");
            ready.push(text.endsWith("\r") ? text.slice(0, -1) : text);
        }
        parts = [];
        size = 0;
    };
    const take = (piece: Buffer): void => {
        size += piece.length;
        // Past the limit the line's bytes are counted, never kept.
        if (size > maxBytes) parts = [];
        else if (piece.length > 0) parts.push(piece);
    };
    const onData = (chunk: Buffer | string): void => {
        const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
        let start = 0;
        for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, start)) {
            take(bytes.subarray(start, at));
            finishLine();
            start = at + 1;
        }
        take(bytes.subarray(start));
        wake?.();
    };
    const stop = (): void => {
        if (ended) return;
        ended = true;
        input.off("data", onData);
        input.off("end", onEnd);
        input.off("error", stop);
        wake?.();
    };
    const onEnd = (): void => {
        if (size > 0 || parts.length > 0) finishLine();
        stop();
    };
    input.on("data", onData);
    input.on("end", onEnd);
    input.on("error", stop);

    return {
        close(): void {
            stop();
            input.pause();
        },
        async *[Symbol.asyncIterator]() {
            for (;;) {
                const line = ready.shift();
                if (line !== undefined) {
                    yield line;
                    continue;
                }
                if (ended) return;
                await new Promise<void>((resolve) => (wake = resolve));
                wake = null;
            }
        },
    };
}
