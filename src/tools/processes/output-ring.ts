/**
 * A background process's latest output in a fixed amount of memory: a byte
 * ring addressed by absolute offsets (byte n of everything the process
 * printed), so each reader keeps its own cursor and learns how much fell out
 * of the ring since its last read.
 */
import { PROCESS_RING_BYTES } from "../limits";

export class OutputRing {
    private readonly buffer: Buffer;
    /** Every byte pushed; the ring holds the last `min(total, capacity)`. */
    private written = 0;

    constructor(readonly capacity = PROCESS_RING_BYTES) {
        this.buffer = Buffer.alloc(capacity);
    }

    /** Every byte the process printed. */
    get total(): number {
        return this.written;
    }

    /** Absolute offset of the oldest byte still held. */
    get start(): number {
        return Math.max(0, this.written - this.capacity);
    }

    /** Bytes held now (at most `capacity`). */
    get size(): number {
        return this.written - this.start;
    }

    push(chunk: Buffer): void {
        const size = this.capacity;
        if (chunk.length >= size) {
            // Only the last `size` bytes stay; byte n of the output lives at n % size.
            this.written += chunk.length;
            const tail = chunk.subarray(chunk.length - size);
            const pos = this.written % size;
            tail.copy(this.buffer, pos, 0, size - pos);
            tail.copy(this.buffer, 0, size - pos);
            return;
        }
        const pos = this.written % size;
        const first = Math.min(chunk.length, size - pos);
        chunk.copy(this.buffer, pos, 0, first);
        if (first < chunk.length) chunk.copy(this.buffer, 0, first);
        this.written += chunk.length;
    }

    /**
     * The bytes from absolute offset `from` to the end; `dropped`: how many
     * bytes after `from` are no longer held.
     */
    since(from: number): { bytes: Buffer; dropped: number } {
        const start = Math.max(from, this.start);
        const dropped = start - Math.min(from, start);
        const length = this.written - start;
        if (length <= 0) return { bytes: Buffer.alloc(0), dropped };
        const size = this.capacity;
        const pos = start % size;
        const first = Math.min(length, size - pos);
        const head = this.buffer.subarray(pos, pos + first);
        const bytes =
            first === length
                ? Buffer.from(head)
                : Buffer.concat([head, this.buffer.subarray(0, length - first)]);
        return { bytes, dropped };
    }
}
