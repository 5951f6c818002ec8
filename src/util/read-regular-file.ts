import {
    closeSync,
    constants,
    fstatSync,
    openSync,
    readSync,
    realpathSync,
    type Stats,
} from "node:fs";
import { isAbsolute, relative, sep } from "node:path";

export interface RegularFileRead {
    /** The file's first bytes, at most the cap (the whole file without one). */
    bytes: Buffer;
    /** The whole file's size in bytes (more than `bytes.length` when the cap cut it). */
    size: number;
    truncated: boolean;
}

export interface ReadRegularFileOptions {
    /** Read at most this many bytes; without it the whole file. */
    cap?: number;
    /** The file must resolve (symlinks followed) inside this directory. */
    insideRoot?: string;
    /** What `insideRoot` is called in the error: "the repository" unless told. */
    rootName?: string;
    /** How the file is named in errors; default its path. */
    label?: string;
}

/** Flags that open a file for reading without ever waiting: a FIFO with no writer would block. */
export const NON_BLOCKING_READ = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Why a file was refused: the caller reports `message` as one line. */
export class UnsafeFileError extends Error {
    constructor(
        readonly reason: "outside_root" | "not_regular",
        message: string
    ) {
        super(message);
        this.name = "UnsafeFileError";
    }
}

/** True when `path` is `root` or below it (both absolute). */
export function isPathInside(root: string, path: string): boolean {
    const rel = relative(root, path);
    return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function kindOf(stats: Stats): string {
    if (stats.isDirectory()) return "a directory";
    if (stats.isFIFO()) return "a FIFO";
    if (stats.isSocket()) return "a socket";
    if (stats.isCharacterDevice()) return "a character device";
    if (stats.isBlockDevice()) return "a block device";
    return "not a regular file";
}

/**
 * Reads a file that must be a regular file, never blocking: it is opened
 * with O_NONBLOCK (a FIFO with no writer would otherwise hang the process)
 * and fstat-checked before any read. With `insideRoot`, a path whose real
 * location is outside that root (a symlink to `~/.ssh/…` or `/proc/…`) is
 * refused. Throws `UnsafeFileError` for a refusal; other errors (ENOENT…)
 * are the system's.
 */
export function readRegularFileSync(
    path: string,
    options: ReadRegularFileOptions = {}
): RegularFileRead {
    const label = options.label ?? path;
    let target = path;
    if (options.insideRoot !== undefined) {
        target = realpathSync(path);
        let root = options.insideRoot;
        try {
            root = realpathSync(root);
        } catch {
            // A missing root contains nothing: the check below refuses.
        }
        if (!isPathInside(root, target)) {
            throw new UnsafeFileError(
                "outside_root",
                `${label} is a symlink to a file outside ${options.rootName ?? "the repository"}; not read (copy the file in to use it)`
            );
        }
    }
    const fd = openSync(target, NON_BLOCKING_READ);
    try {
        const stats = fstatSync(fd);
        if (!stats.isFile()) {
            throw new UnsafeFileError("not_regular", `${label} is ${kindOf(stats)}; not read`);
        }
        return readOpened(fd, options.cap);
    } finally {
        closeSync(fd);
    }
}

/** A refusal's own line, or `otherwise(message)` for any other read error. */
export function unreadableText(error: unknown, otherwise: (message: string) => string): string {
    return error instanceof UnsafeFileError ? error.message : otherwise((error as Error).message);
}

/** `readRegularFileSync` decoded as UTF-8, whole. */
export function readRegularTextSync(path: string, options: ReadRegularFileOptions = {}): string {
    return readRegularFileSync(path, options).bytes.toString("utf8");
}

function readOpened(fd: number, cap: number | undefined): RegularFileRead {
    if (cap !== undefined) {
        // One byte more tells whether the cap cut the file.
        const buffer = Buffer.alloc(cap + 1);
        const read = readSync(fd, buffer, 0, cap + 1, 0);
        if (read <= cap) return { bytes: buffer.subarray(0, read), size: read, truncated: false };
        return { bytes: buffer.subarray(0, cap), size: fstatSync(fd).size, truncated: true };
    }
    // Read to EOF: some files (in /proc) report size 0.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
        const chunk = Buffer.alloc(Math.max(64 * 1024, fstatSync(fd).size - total + 1));
        const read = readSync(fd, chunk, 0, chunk.length, total);
        if (read === 0) break;
        chunks.push(chunk.subarray(0, read));
        total += read;
    }
    const bytes = Buffer.concat(chunks, total);
    return { bytes, size: total, truncated: false };
}
