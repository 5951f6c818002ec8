/**
 * A command's output in bounded memory: the first and the last bytes (64 KB
 * each by default), decoded once at the end, terminal escapes dropped.
 */
import { SHELL_HEAD_BYTES, SHELL_TAIL_BYTES } from "./limits";

/** Collects a byte stream keeping the first `headSize` and the last `tailSize` bytes. */
export class HeadTailBuffer {
    private readonly head: Buffer;
    private headLength = 0;
    private readonly tail: Buffer;
    /** Next write position in the ring. */
    private tailPos = 0;
    private tailLength = 0;
    /** Every byte pushed. */
    total = 0;

    constructor(headSize = SHELL_HEAD_BYTES, tailSize = SHELL_TAIL_BYTES) {
        this.head = Buffer.allocUnsafe(headSize);
        this.tail = Buffer.allocUnsafe(tailSize);
    }

    push(chunk: Buffer): void {
        this.total += chunk.length;
        let offset = 0;
        if (this.headLength < this.head.length) {
            offset = Math.min(this.head.length - this.headLength, chunk.length);
            chunk.copy(this.head, this.headLength, 0, offset);
            this.headLength += offset;
            if (offset === chunk.length) return;
        }
        const size = this.tail.length;
        const rest = chunk.length - offset;
        if (rest >= size) {
            chunk.copy(this.tail, 0, chunk.length - size);
            this.tailPos = 0;
            this.tailLength = size;
            return;
        }
        const first = Math.min(rest, size - this.tailPos);
        chunk.copy(this.tail, this.tailPos, offset, offset + first);
        if (first < rest) chunk.copy(this.tail, 0, offset + first, chunk.length);
        this.tailPos = (this.tailPos + rest) % size;
        this.tailLength = Math.min(size, this.tailLength + rest);
    }

    /** The raw bytes kept, head then tail (a command moved to the background starts its ring with them). */
    bytes(): Buffer {
        const tail =
            this.tailLength < this.tail.length
                ? this.tail.subarray(0, this.tailLength)
                : Buffer.concat([
                      this.tail.subarray(this.tailPos),
                      this.tail.subarray(0, this.tailPos),
                  ]);
        return Buffer.concat([this.head.subarray(0, this.headLength), tail]);
    }

    /** Decodes once: invalid UTF-8 becomes U+FFFD, control characters are neutralized. */
    finish(): { output: string; truncated: boolean; droppedBytes: number } {
        const head = this.head.subarray(0, this.headLength);
        const tail =
            this.tailLength < this.tail.length
                ? this.tail.subarray(0, this.tailLength)
                : Buffer.concat([
                      this.tail.subarray(this.tailPos),
                      this.tail.subarray(0, this.tailPos),
                  ]);
        if (this.total === this.headLength + this.tailLength) {
            return {
                output: cleanText(Buffer.concat([head, tail]).toString("utf8")),
                truncated: false,
                droppedBytes: 0,
            };
        }
        // Cut on character boundaries so the marker does not split a character.
        const headEnd = completeUtf8End(head);
        const tailStart = firstUtf8Start(tail);
        const droppedBytes = this.total - headEnd - (tail.length - tailStart);
        const marker =
            `\n[... ${droppedBytes} bytes of output omitted; showing the first ` +
            `${Math.round(head.length / 1024)} KB and the last ${Math.round(tail.length / 1024)} KB ...]\n`;
        const output =
            cleanText(head.subarray(0, headEnd).toString("utf8")) +
            marker +
            cleanText(tail.subarray(tailStart).toString("utf8"));
        return { output, truncated: true, droppedBytes };
    }
}

/** Length of `buf` without a trailing incomplete UTF-8 sequence. */
export function completeUtf8End(buf: Buffer): number {
    for (let i = buf.length - 1; i >= 0 && i >= buf.length - 4; i--) {
        const byte = buf[i]!;
        if ((byte & 0xc0) === 0x80) continue; // continuation
        const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
        return buf.length - i >= need ? buf.length : i;
    }
    return buf.length;
}

/** Index of the first byte of `buf` that is not a UTF-8 continuation byte (at most 3 skipped). */
export function firstUtf8Start(buf: Buffer): number {
    let i = 0;
    while (i < 3 && i < buf.length && (buf[i]! & 0xc0) === 0x80) i++;
    return i;
}

// eslint-disable-next-line no-control-regex -- matching terminal escape sequences is the point
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
// eslint-disable-next-line no-control-regex -- control characters other than \t \n \r
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/** Drops terminal escape sequences; other control bytes (binary output) become U+FFFD. */
export function cleanText(text: string): string {
    return text.replace(ANSI, "").replace(CONTROL, "\uFFFD");
}
