import { closeSync, fstatSync, openSync, readSync } from "node:fs";

export interface CappedRead {
    /** The file's first bytes, at most the cap. */
    bytes: Buffer;
    /** The whole file's size in bytes (more than `bytes.length` when the cap cut it). */
    size: number;
    truncated: boolean;
}

/**
 * Reads at most `cap` bytes from the start of a file, so a huge file is
 * never loaded whole; one byte more is read to tell whether the cap cut it.
 * Decoding is the caller's: each decides how a cut character is handled.
 */
export function readFileCapped(path: string, cap: number): CappedRead {
    const fd = openSync(path, "r");
    try {
        const buffer = Buffer.alloc(cap + 1);
        const read = readSync(fd, buffer, 0, cap + 1, 0);
        if (read <= cap) return { bytes: buffer.subarray(0, read), size: read, truncated: false };
        return { bytes: buffer.subarray(0, cap), size: fstatSync(fd).size, truncated: true };
    } finally {
        closeSync(fd);
    }
}
