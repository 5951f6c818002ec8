/**
 * Reading one file through the editor (ACP's `fs`), for the tools that read a
 * single file. The caller has already resolved and contained the path and
 * applied the Read deny rules; this adds the checks that keep bytes the
 * editor should never see from being sent to it: a binary file (a NUL byte in
 * the disk copy's first 8 KB) and a file over `CLIENT_FILE_MAX_BYTES` are
 * read from the disk as before, so the caller refuses or streams them as usual.
 */
import { promises as fs } from "node:fs";
import type { ClientFiles } from "./client-workspace";
import { CLIENT_FILE_MAX_BYTES } from "./limits";
import { BINARY_SNIFF_BYTES, looksBinary } from "./binary-sniff";

/** The editor's failure as the message a tool error carries. */
export class ClientFileError extends Error {}

function reason(error: unknown): string {
    return error instanceof Error ? error.message : String(error);
}

/** The first bytes of the disk copy, for the binary test. */
async function sniff(realPath: string): Promise<Buffer> {
    const handle = await fs.open(realPath, "r");
    try {
        const sample = Buffer.alloc(BINARY_SNIFF_BYTES);
        const { bytesRead } = await handle.read(sample, 0, sample.length, 0);
        return sample.subarray(0, bytesRead);
    } finally {
        await handle.close().catch(() => undefined);
    }
}

/**
 * Whether a disk file of `size` bytes is read through the editor: text (by
 * its disk copy) and within the size cap.
 */
export async function readsThroughEditor(realPath: string, size: number): Promise<boolean> {
    if (size > CLIENT_FILE_MAX_BYTES) return false;
    return !looksBinary(await sniff(realPath));
}

/** The editor's text of the file as UTF-8 bytes; a failure throws `ClientFileError`. */
export async function readEditorText(
    files: ClientFiles,
    realPath: string,
    signal?: AbortSignal
): Promise<Buffer> {
    try {
        return Buffer.from(await files.read(realPath, signal), "utf8");
    } catch (error) {
        throw new ClientFileError(`the editor could not read it: ${reason(error)}`);
    }
}

/** The editor's text when `readsThroughEditor`, else the disk bytes. */
export async function readFileViaEditor(
    files: ClientFiles,
    realPath: string,
    signal?: AbortSignal
): Promise<Buffer> {
    const { size } = await fs.stat(realPath);
    if (!(await readsThroughEditor(realPath, size))) return fs.readFile(realPath);
    return readEditorText(files, realPath, signal);
}

/** Replaces the file's text in the editor; a failure throws `ClientFileError`. */
export async function writeEditorText(
    files: ClientFiles,
    realPath: string,
    data: Uint8Array
): Promise<void> {
    try {
        await files.write(realPath, Buffer.from(data).toString("utf8"));
    } catch (error) {
        throw new ClientFileError(`the editor could not write it: ${reason(error)}`);
    }
}
