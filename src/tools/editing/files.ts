/**
 * File access for the edit tools behind a narrow operations port (pi-style),
 * so tests can inject a failing writer; the defaults use the local disk and
 * the shared atomic writer.
 */
import { promises as fs } from "node:fs";
import { writeFileAtomic } from "../../util/atomic-write";
import { type SafePath, errnoCode } from "../path-guard";
import type { ToolResult } from "../types";
import { acquireApplyLocks } from "./apply-lock";
import { toolError, toolOk } from "../types";
import type { TextDoc } from "./text-doc";
import { decodeText } from "./text-doc";

/** Largest file the edit tools load (bytes). */
export const MAX_EDIT_FILE_BYTES = 64 * 1024 * 1024;

export interface FileStat {
    mode: number;
    size: number;
    isFile(): boolean;
    isDirectory(): boolean;
}

/** Everything the edit tools do to the disk. */
export interface EditOperations {
    readFile(path: string): Promise<Buffer>;
    stat(path: string): Promise<FileStat>;
    /**
     * Replaces `path` atomically (temp, fsync, rename); an existing file keeps
     * its mode. `beforeRename` runs right before the rename; if it throws,
     * nothing is replaced.
     */
    writeFile(
        path: string,
        data: Uint8Array,
        options: { mode?: number; beforeRename?: () => Promise<void> }
    ): Promise<void>;
    /** Creates a directory and its parents; returns the first directory it created, if any. */
    mkdirp(path: string): Promise<string | undefined>;
    unlink(path: string): Promise<void>;
    rmdir(path: string): Promise<void>;
    /** Locks real paths against other applies (other processes too); resolves to the release. */
    lock(realPaths: readonly string[]): Promise<() => Promise<void>>;
}

export const localEditOperations: EditOperations = {
    readFile: (path) => fs.readFile(path),
    stat: (path) => fs.stat(path),
    writeFile: (path, data, options) => writeFileAtomic(path, data, options),
    mkdirp: (path) => fs.mkdir(path, { recursive: true }),
    unlink: (path) => fs.unlink(path),
    rmdir: (path) => fs.rmdir(path),
    lock: (realPaths) => acquireApplyLocks(realPaths),
};

/** The local operations with some replaced (tests inject failures this way). */
export function editOperations(overrides: Partial<EditOperations> = {}): EditOperations {
    return { ...localEditOperations, ...overrides };
}

/** A file as read at prepare time. */
export interface LoadedFile {
    /** Repo-relative POSIX path, as shown to the user. */
    relPath: string;
    /** Symlink-resolved absolute path; reads and writes go here. */
    realPath: string;
    /** Bytes as read at prepare; null when the file does not exist yet. */
    original: Buffer | null;
    /** Decoded content (empty for a missing file). */
    doc: TextDoc;
}

export { errnoCode };

/** An fs error as one line: code and message. */
export function describeError(error: unknown): string {
    const code = errnoCode(error);
    const message = error instanceof Error ? error.message : String(error);
    return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/** Refuses a file without any write permission bit (a deliberate "do not edit"). */
export function readOnlyError(relPath: string, mode: number): ToolResult<never> {
    const octal = (mode & 0o777).toString(8).padStart(4, "0");
    return toolError(
        "read_only",
        `${relPath} is read-only (mode ${octal}); North does not change read-only files. ` +
            "Ask the user to make it writable if it should be edited."
    );
}

/**
 * Reads a file to edit, for a path `resolveWritablePath` already accepted. A
 * missing file is an error unless `mustExist` is false, when it loads as empty
 * with `original: null`.
 */
export async function loadResolvedFile(
    safe: SafePath,
    mustExist: boolean,
    ops: EditOperations
): Promise<ToolResult<LoadedFile>> {
    const { relPath, realPath } = safe;
    const empty: LoadedFile = {
        relPath,
        realPath,
        original: null,
        doc: { text: "", eol: "\n", bom: false },
    };
    if (relPath === ".")
        return toolError("not_a_file", "The project root is a directory, not a file.");
    let stat: FileStat;
    try {
        stat = await ops.stat(realPath);
    } catch (error) {
        if (errnoCode(error) === "ENOENT" && !mustExist) return toolOk(empty);
        if (errnoCode(error) === "ENOENT") {
            return toolError(
                "not_found",
                `${relPath} does not exist. Use find_files to look for the right path.`
            );
        }
        if (errnoCode(error) === "ENOTDIR") {
            return toolError(
                "not_a_directory",
                `A parent of ${relPath} is a file, not a directory.`
            );
        }
        return toolError("io_error", `Cannot read ${relPath}: ${describeError(error)}`);
    }
    if (stat.isDirectory()) {
        return toolError(
            "not_a_file",
            `${relPath} is a directory, not a file; give the path of a file inside it.`
        );
    }
    if (!stat.isFile()) return toolError("not_a_file", `${relPath} is not a regular file.`);
    if ((stat.mode & 0o222) === 0) return readOnlyError(relPath, stat.mode);
    if (stat.size > MAX_EDIT_FILE_BYTES) {
        return toolError(
            "too_large",
            `${relPath} is ${(stat.size / 1024 / 1024).toFixed(0)} MB; the edit tools handle files up to ${MAX_EDIT_FILE_BYTES / 1024 / 1024} MB.`
        );
    }
    let bytes: Buffer;
    try {
        bytes = await ops.readFile(realPath);
    } catch (error) {
        return toolError("io_error", `Cannot read ${relPath}: ${describeError(error)}`);
    }
    const decoded = decodeText(bytes);
    if (!decoded.ok) {
        return toolError(
            "binary_file",
            `${relPath} ${decoded.message}; the edit tools only change UTF-8 text files.`
        );
    }
    return toolOk({ relPath, realPath, original: bytes, doc: decoded.doc });
}
