/**
 * A background process's output on disk once it no longer fits the ring: a
 * 0600 file holding the latest output up to a cap. When a write would pass
 * the cap, the newer half is moved to the front and the file cut there, so
 * the disk holds at most `cap` bytes and always the most recent output, at
 * the cost of copying half the cap once per half-cap written.
 */
import { removeQuietly } from "../../util/remove-quietly";
import { closeSync, mkdirSync, openSync, readSync, writeSync, ftruncateSync } from "node:fs";
import path from "node:path";
import { PROCESS_SPILL_CAP_BYTES } from "../limits";

/** A scan reads this much at a time. */
const SCAN_STEP_BYTES = 1024 * 1024;

export class SpillFile {
    private fd: number | null = null;
    /** Bytes in the file now. */
    private length = 0;
    /** Whether earlier output was dropped to stay under the cap. */
    rotated = false;

    constructor(
        readonly filePath: string,
        readonly cap = PROCESS_SPILL_CAP_BYTES
    ) {}

    /** Bytes on disk now (at most `cap`). */
    get size(): number {
        return this.length;
    }

    /** Appends; creates the file (and its folder, 0700) on the first write. Never throws. */
    append(chunk: Buffer): boolean {
        try {
            const fd = this.open();
            let data = chunk;
            if (data.length > this.cap) {
                data = data.subarray(data.length - this.cap);
                this.rotated = true;
            }
            if (this.length + data.length > this.cap) this.keepNewerHalf(fd, data.length);
            writeSync(fd, data, 0, data.length, this.length);
            this.length += data.length;
            return true;
        } catch {
            return false; // a full disk must not stop the process or its ring
        }
    }

    /**
     * Calls `onChunk` with the file's bytes from its start up to `end`, a
     * step at a time (the buffer is reused: copy what is kept). Synchronous,
     * so no write or rotation happens in between.
     */
    scan(end: number, onChunk: (chunk: Buffer) => void): void {
        if (this.fd === null) return;
        const last = Math.min(end, this.length);
        const step = Buffer.allocUnsafe(Math.min(SCAN_STEP_BYTES, last) || 1);
        for (let done = 0; done < last;) {
            const read = readSync(this.fd, step, 0, Math.min(step.length, last - done), done);
            if (read <= 0) break;
            onChunk(step.subarray(0, read));
            done += read;
        }
    }

    /** Closes and deletes the file. */
    remove(): void {
        if (this.fd !== null) {
            try {
                closeSync(this.fd);
            } catch {
                // already closed
            }
            this.fd = null;
        }
        removeQuietly(this.filePath);
    }

    private open(): number {
        if (this.fd !== null) return this.fd;
        mkdirSync(path.dirname(this.filePath), { recursive: true, mode: 0o700 });
        this.fd = openSync(this.filePath, "w+", 0o600);
        return this.fd;
    }

    /** Makes room for `incoming` bytes: keeps the newest bytes that leave half the cap free for them. */
    private keepNewerHalf(fd: number, incoming: number): void {
        const keep = Math.max(
            0,
            Math.min(this.length, Math.floor(this.cap / 2), this.cap - incoming)
        );
        const from = this.length - keep;
        const step = Buffer.allocUnsafe(Math.min(keep, 1024 * 1024) || 1);
        for (let done = 0; done < keep;) {
            const read = readSync(fd, step, 0, Math.min(step.length, keep - done), from + done);
            if (read <= 0) break;
            writeSync(fd, step, 0, read, done);
            done += read;
        }
        ftruncateSync(fd, keep);
        this.length = keep;
        this.rotated = true;
    }
}
