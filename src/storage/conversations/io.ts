import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Writes all of `data` at the fd's position (appends for an fd opened with "a"). */
export function writeAll(fd: number, data: string): number {
    const buffer = Buffer.from(data, "utf8");
    let done = 0;
    while (done < buffer.length) done += writeSync(fd, buffer, done, buffer.length - done);
    return buffer.length;
}

/**
 * Replaces `path` so readers see the old or the new content, never a mix: a temp file
 * (mode 0600) in the same directory, then rename. `sync` also fsyncs the data first.
 */
export function writeFileAtomicSync(path: string, data: string, sync = false, mode = 0o600): void {
    const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString("hex")}.tmp`);
    try {
        const fd = openSync(temp, "wx", mode);
        try {
            writeAll(fd, data);
            if (sync) fsyncSync(fd);
        } finally {
            closeSync(fd);
        }
        renameSync(temp, path);
    } catch (error) {
        try {
            unlinkSync(temp);
        } catch {
            // never created
        }
        throw error;
    }
}
