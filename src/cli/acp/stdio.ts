/**
 * `north acp`'s stdio: stdout carries protocol lines only, and stdin is split
 * into lines with a byte cap before the SDK sees them. The SDK's own reader
 * ends the whole connection on an over-long line; here such a line is skipped
 * to its newline and answered with a JSON-RPC error, and the server stays up.
 */
import type { Readable } from "node:stream";
import { DEFAULT_MAX_MESSAGE_BYTES, type Stream, ndJsonStream } from "@agentclientprotocol/sdk";

/** The largest line North reads: the SDK's default, which it is also given. */
export const MAX_MESSAGE_BYTES = DEFAULT_MAX_MESSAGE_BYTES;

/** How much of an over-long line is kept to find its request id. */
const ID_SCAN_BYTES = 64 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

type WriteChunk = (chunk: string | Uint8Array) => Promise<void>;

/** The one way to stdout: whole protocol lines, and an end that lets none start after it. */
export interface ProtocolOutput {
    write: WriteChunk;
    /** Resolves once every line begun is written; later writes are dropped whole. */
    end(): Promise<void>;
}

/**
 * From here on, anything written to process.stdout (console.log, a stray
 * library) goes to stderr; the returned output is the one way to stdout.
 */
export function guardStdout(): ProtocolOutput {
    const stdout = process.stdout;
    const realWrite = stdout.write.bind(stdout);
    const toStderr = process.stderr.write.bind(process.stderr) as typeof stdout.write;
    stdout.write = toStderr;
    let broken = false;
    let ended = false;
    // The editor went away: its pipe's EPIPE must not crash North; the input's end closes it.
    stdout.on("error", () => {
        broken = true;
    });
    const write = (chunk: string | Uint8Array): Promise<void> =>
        new Promise<void>((resolve) => {
            if (broken || ended) return resolve();
            realWrite(chunk, () => resolve());
        });
    return {
        write,
        async end() {
            // A pipe's writes finish after the call: exiting before this would cut a line.
            const last = write("");
            ended = true;
            await last;
        },
    };
}

/**
 * The request id of a JSON-RPC message from the start of its text: the value
 * of a top-level `"id"` key when a string or number, found without parsing
 * the whole (possibly huge and cut) line.
 */
export function topLevelIdOf(head: string): string | number | null {
    let depth = 0;
    let i = 0;
    const n = head.length;
    while (i < n) {
        const c = head[i];
        if (c === '"') {
            const end = stringEnd(head, i);
            if (end < 0) return null;
            if (depth === 1 && head.slice(i + 1, end) === "id") {
                let j = end + 1;
                while (j < n && /\s/.test(head[j] ?? "")) j++;
                if (head[j] === ":") return scalarAt(head, j + 1);
            }
            i = end + 1;
            continue;
        }
        if (c === "{" || c === "[") depth++;
        else if (c === "}" || c === "]") depth--;
        i++;
    }
    return null;
}

/** The index of the quote closing the string that opens at `start`, or -1. */
function stringEnd(text: string, start: number): number {
    for (let i = start + 1; i < text.length; i++) {
        if (text[i] === "\\") i++;
        else if (text[i] === '"') return i;
    }
    return -1;
}

function scalarAt(text: string, from: number): string | number | null {
    let i = from;
    while (i < text.length && /\s/.test(text[i] ?? "")) i++;
    if (text[i] === '"') {
        const end = stringEnd(text, i);
        if (end < 0) return null;
        try {
            return JSON.parse(text.slice(i, end + 1)) as string;
        } catch {
            return null;
        }
    }
    const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
    return number ? Number(number[0]) : null;
}

function mib(bytes: number): string {
    return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "")} MiB`;
}

/** The JSON-RPC answer to a line too long to read. */
export function tooLargeResponse(bytes: number, head: string): string {
    return `${JSON.stringify({
        jsonrpc: "2.0",
        id: topLevelIdOf(head),
        error: {
            code: -32600,
            message: `message too large (${mib(bytes)}; the limit is ${mib(MAX_MESSAGE_BYTES)}), so it was not read`,
        },
    })}\n`;
}

/**
 * Splits incoming bytes into lines of at most `maxBytes` (the newline and a
 * CR before it not counted), never holding more than that: `onLine` gets
 * each line with its newline, `onTooLarge` the size of a skipped one and its
 * first bytes.
 */
export class BoundedLineSplitter {
    private parts: Buffer[] = [];
    private size = 0;
    /** Set while the rest of an over-long line is being skipped. */
    private skipping: { bytes: number; head: Buffer } | null = null;

    constructor(
        private readonly maxBytes: number,
        private readonly onLine: (line: Buffer) => void,
        private readonly onTooLarge: (bytes: number, head: Buffer) => void
    ) {}

    push(chunk: Buffer): void {
        let start = 0;
        while (start < chunk.length) {
            const newline = chunk.indexOf(NEWLINE, start);
            const end = newline < 0 ? chunk.length : newline;
            this.take(chunk.subarray(start, end));
            if (newline < 0) return;
            this.endLine();
            start = newline + 1;
        }
    }

    /** The input ended: a last line without its newline still counts. */
    end(): void {
        if (this.size > 0 || this.skipping) this.endLine();
    }

    private take(piece: Buffer): void {
        if (piece.length === 0) return;
        if (this.skipping) {
            this.skipping.bytes += piece.length;
            return;
        }
        // One byte of slack for a CR that may end the line.
        if (this.size + piece.length > this.maxBytes + 1) {
            const held = Buffer.concat([...this.parts, piece]);
            this.skipping = {
                bytes: held.length,
                head: Buffer.from(held.subarray(0, ID_SCAN_BYTES)),
            };
            this.parts = [];
            this.size = 0;
            return;
        }
        this.parts.push(Buffer.from(piece));
        this.size += piece.length;
    }

    private endLine(): void {
        if (this.skipping) {
            const { bytes, head } = this.skipping;
            this.skipping = null;
            this.onTooLarge(bytes, head);
            return;
        }
        const line = Buffer.concat(this.parts);
        this.parts = [];
        this.size = 0;
        const content = line.at(-1) === CARRIAGE_RETURN ? line.length - 1 : line.length;
        if (content > this.maxBytes) {
            this.onTooLarge(line.length, line.subarray(0, ID_SCAN_BYTES));
            return;
        }
        this.onLine(Buffer.concat([line, Buffer.from([NEWLINE])]));
    }
}

/** The SDK stream over the bounded input and the guarded stdout. */
export function acpStdioStream(input: Readable, write: WriteChunk): Stream {
    const readable = new ReadableStream<Uint8Array>({
        start(controller) {
            const splitter = new BoundedLineSplitter(
                MAX_MESSAGE_BYTES,
                (line) => {
                    controller.enqueue(new Uint8Array(line));
                    // Read no further than the SDK has taken: the held lines stay bounded.
                    if ((controller.desiredSize ?? 1) <= 0) input.pause();
                },
                (bytes, head) => void write(tooLargeResponse(bytes, head.toString("utf8")))
            );
            input.on("data", (chunk: Buffer) => splitter.push(chunk));
            input.on("end", () => {
                splitter.end();
                controller.close();
            });
            input.on("error", (error) => controller.error(error));
        },
        pull() {
            input.resume();
        },
        cancel() {
            input.destroy();
        },
    });
    const writable = new WritableStream<Uint8Array>({
        write: (chunk) => write(chunk),
    });
    return ndJsonStream(writable, readable, { maxMessageBytes: MAX_MESSAGE_BYTES });
}
