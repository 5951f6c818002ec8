/**
 * Writes one NORTH_FILE block while it streams, without touching the target
 * before approval: chunks go to a sidecar next to it (see sidecar.ts), the
 * session counts lines and keeps the last 30 for a continuation prompt. When
 * the block closes (or is given up), `complete()` returns a PreparedWrite:
 * `apply()` re-checks the target and renames the sidecar over it atomically,
 * `discard()` deletes the sidecar. A `kill -9` at any moment leaves the target
 * as it was. With the editor's files (ACP), the target is read from the
 * editor and the accepted content written through it (client-files.ts).
 */
import { ApplyLockTimeout, acquireApplyLocks } from "../editing/apply-lock";
import { promises as fs } from "node:fs";
import { dirname } from "node:path";
import { readFileViaEditor, writeEditorText } from "../client-files";
import type { ClientFiles } from "../client-workspace";
import { computeFileDiff } from "../editing/diff";
import { CLIENT_FILE_MAX_BYTES } from "../limits";
import { describeError, errnoCode, readOnlyError } from "../editing/files";
import { type EditApplied, checkpointFailure } from "../editing/prepared";
import type { Eol } from "../editing/text-doc";
import { decodeText } from "../editing/text-doc";
import { type PathRoots, resolveWritablePath } from "../path-guard";
import type { FileCheckpointer, PreparedWrite, ToolResult } from "../types";
import { toolError, toolOk } from "../types";
import type { FileBlockMode } from "./parser";
import type { OpenSidecar, SidecarHandle } from "./sidecar";
import { openSidecarFile, removeStaleSidecars, sidecarPathFor, trackSidecar } from "./sidecar";

/** Lines of trailing context kept for a continuation prompt. */
export const RESUME_WINDOW_LINES = 30;

export interface ResumeInfo {
    /** Repo-relative path. */
    path: string;
    /** Lines in the file so far (a partial last line counts). */
    linesWritten: number;
    /** The last lines written (up to 30), without line breaks; the last may be partial. */
    trailingLines: string[];
    /** The content stops in the middle of a line. */
    endsMidLine: boolean;
}

type SessionState = "open" | "interrupted" | "completed" | "applied" | "discarded";

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** The trailing window is trimmed once the kept tail grows past this many characters. */
const TAIL_TRIM_MIN = 8192;
/** Longest tail kept when the last lines are huge (minified code). */
const TAIL_MAX = 65536;

const REWRITE = "Re-read it (read_file) and write it again.";

/** What a failed write means to a user, beyond the errno text. */
function writeFailureHint(error: Error): string {
    switch (errnoCode(error)) {
        case "ENOSPC":
            return " (the disk is full)";
        case "EDQUOT":
            return " (the disk quota is used up)";
        case "EFBIG":
            return " (the file size limit was reached, see ulimit -f)";
        default:
            return "";
    }
}

/** Writes all of `data`: a short write (a size limit reached) is followed by one that fails. */
async function writeFully(handle: SidecarHandle, data: Buffer): Promise<void> {
    for (let offset = 0; offset < data.length;) {
        const { bytesWritten } = await handle.write(data, offset, data.length - offset);
        if (!(bytesWritten > 0)) throw new Error("the write made no progress");
        offset += bytesWritten;
    }
}

export interface WriteSessionOptions {
    /** Opens the sidecar; tests inject a failing one. */
    openSidecar?: OpenSidecar;
    /** Told of the change right before the rename (rewind); when it fails, nothing is renamed. */
    checkpoint?: FileCheckpointer;
    /** `--add-dir` directories the path may also lie in; absent: the project only. */
    addedRoots?: readonly string[];
    /**
     * The editor's files (ACP): the target's current text is the editor's, and
     * an accepted block is written through the editor instead of renamed over
     * the file (the editor's buffer and undo history stay right).
     */
    files?: ClientFiles;
}

export class FileWriteSession {
    private handle: SidecarHandle | null = null;
    /** Data waiting for the write in flight to finish; written together, in order. */
    private buffered: Buffer[] = [];
    /** The running drain, if a write is in flight; cleared only after it settled. */
    private draining: Promise<void> | null = null;
    private failure: Error | null = null;
    private state: SessionState = "open";
    private completeLines = 0;
    private tail = "";
    private pendingCr = false;
    private trimAt = TAIL_TRIM_MIN;
    private checkpoint: FileCheckpointer | undefined;
    private files: ClientFiles | undefined;
    /** The sidecar's bytes as read back by `complete()`: what the rename puts in place. */
    private finalBytes: Buffer | null = null;
    /** Stops the exit hook that removes the sidecar (it was renamed into place or removed). */
    private untrackSidecar: () => void = () => undefined;

    private constructor(
        /** The project and the added directories the target must stay in. */
        private readonly roots: PathRoots,
        /** Repo-relative POSIX path. */
        readonly relPath: string,
        /** Absolute, symlink-resolved path of the target. */
        readonly realPath: string,
        /** Where the content goes until it is accepted. */
        readonly sidecarPath: string,
        /** Bytes of the target when the block started; null if it did not exist. */
        private readonly original: Buffer | null,
        /** Permission bits of the existing target, kept by the rename. */
        private readonly originalMode: number | null,
        private readonly createdDir: string | undefined,
        private readonly eol: Eol,
        /** The original started with a UTF-8 BOM; a rewrite keeps it. */
        private readonly bom: boolean,
        private readonly openSidecar: OpenSidecar
    ) {}

    /**
     * Starts a session: `create` writes new content, `append` continues the
     * existing file's content (or creates it). Fails without writing anything
     * for a path outside the project or a directory.
     */
    static async start(
        repoRoot: string,
        userPath: string,
        mode: FileBlockMode,
        options: WriteSessionOptions = {}
    ): Promise<ToolResult<FileWriteSession>> {
        const safe = await resolveWritablePath(repoRoot, userPath, {
            mustExist: false,
            addedRoots: options.addedRoots,
        });
        if (!safe.ok) return safe;
        const { relPath, realPath } = safe.data;
        if (relPath === ".")
            return toolError("not_a_file", "The project root is a directory, not a file.");
        let original: Buffer | null = null;
        let originalMode: number | null = null;
        try {
            const stat = await fs.stat(realPath);
            if (stat.isDirectory())
                return toolError("not_a_file", `${relPath} is a directory, not a file.`);
            if (!stat.isFile()) return toolError("not_a_file", `${relPath} is not a regular file.`);
            if ((stat.mode & 0o222) === 0) return readOnlyError(relPath, stat.mode);
            originalMode = stat.mode & 0o7777;
            original = options.files
                ? await readFileViaEditor(options.files, realPath)
                : await fs.readFile(realPath);
        } catch (error) {
            if (errnoCode(error) !== "ENOENT") {
                return toolError("io_error", `Cannot open ${relPath}: ${describeError(error)}`);
            }
        }
        const decoded = original ? decodeText(original) : null;
        const doc = decoded?.ok ? decoded.doc : null;
        const dir = dirname(realPath);
        const sidecarPath = sidecarPathFor(realPath);
        const openSidecar = options.openSidecar ?? openSidecarFile;
        let createdDir: string | undefined;
        let handle: SidecarHandle;
        try {
            if (!original) createdDir = await fs.mkdir(dir, { recursive: true });
            if (!createdDir) await removeStaleSidecars(dir);
            handle = await openSidecar(sidecarPath, "wx");
        } catch (error) {
            if (createdDir) await removeCreatedDirs(dir, createdDir);
            return toolError("io_error", `Cannot write ${relPath}: ${describeError(error)}`);
        }
        const untrack = trackSidecar(sidecarPath);
        const session = new FileWriteSession(
            { repoRoot, addedRoots: options.addedRoots },
            relPath,
            realPath,
            sidecarPath,
            original,
            originalMode,
            createdDir,
            doc?.eol ?? "\n",
            doc?.bom ?? false,
            openSidecar
        );
        session.handle = handle;
        session.untrackSidecar = untrack;
        session.checkpoint = options.checkpoint;
        session.files = options.files;
        if (mode === "append" && original) {
            // The block continues the file: the sidecar starts as a copy of it.
            session.enqueue(original);
            if (doc) session.track(doc.text.replace(/\r\n/g, "\n"));
        }
        if (mode === "create" && session.bom) session.enqueue(BOM);
        return toolOk(session);
    }

    /** Queues `text` for the sidecar (in order); errors surface in `failed`, `flush`, `complete`. */
    write(text: string): void {
        if (this.state !== "open" || this.failure || text === "") return;
        let lf = (this.pendingCr ? "\r" : "") + text;
        this.pendingCr = lf.endsWith("\r");
        if (this.pendingCr) lf = lf.slice(0, -1);
        lf = lf.replace(/\r\n/g, "\n");
        this.track(lf);
        this.enqueue(Buffer.from(this.eol === "\r\n" ? lf.replace(/\n/g, "\r\n") : lf, "utf8"));
    }

    /** A write failed: the block cannot be completed any more. */
    get failed(): boolean {
        return this.failure !== null;
    }

    /** Waits for queued writes; the first write error, if any. */
    async flush(): Promise<ToolResult<null>> {
        await this.settle();
        if (!this.failure) return toolOk(null);
        return toolError(
            "io_error",
            `Writing ${this.relPath} failed: ${describeError(this.failure)}${writeFailureHint(this.failure)}. ` +
                "The block was stopped there and the rest of its content dropped."
        );
    }

    /** Lines in the file so far (a partial last line counts); cheap, for progress display. */
    get linesWritten(): number {
        return this.completeLines + (this.tail !== "" && !this.tail.endsWith("\n") ? 1 : 0);
    }

    /** Lines so far and the trailing window, for a continuation prompt. */
    getResumeInfo(): ResumeInfo {
        const endsMidLine = this.tail !== "" && !this.tail.endsWith("\n");
        const lines = this.tail.split("\n");
        if (!endsMidLine) lines.pop();
        return {
            path: this.relPath,
            linesWritten: this.linesWritten,
            trailingLines: lines.slice(-RESUME_WINDOW_LINES),
            endsMidLine,
        };
    }

    /** The stream ended without a close tag: the sidecar waits for a continuation. */
    async interrupt(): Promise<ResumeInfo> {
        if (this.state === "open") {
            await this.close();
            this.state = "interrupted";
        }
        return this.getResumeInfo();
    }

    /** Reopens an interrupted session for a `mode="append"` continuation. */
    async resume(): Promise<ToolResult<null>> {
        if (this.state === "open") return toolOk(null);
        return this.reopen("a");
    }

    /** Starts an interrupted session over (a new `mode="create"` block for the same path). */
    async restart(): Promise<ToolResult<null>> {
        const reopened = await this.reopen("w");
        if (!reopened.ok) return reopened;
        this.completeLines = 0;
        this.tail = "";
        this.pendingCr = false;
        if (this.bom) this.enqueue(BOM);
        return toolOk(null);
    }

    /**
     * The block closed (or was given up after its continuations): finish the
     * sidecar and prepare the review of original → new. `partial` marks content
     * that never reached its close tag. On failure the sidecar is gone.
     */
    async complete(partial = false): Promise<ToolResult<PreparedWrite>> {
        if (this.state === "interrupted") {
            const reopened = await this.resume();
            if (!reopened.ok) {
                await this.discard();
                return reopened;
            }
        }
        if (this.state !== "open") {
            return toolError("invalid_args", `The write session for ${this.relPath} has ended.`);
        }
        if (this.pendingCr) {
            this.pendingCr = false;
            this.track("\r");
            this.enqueue(Buffer.from("\r"));
        }
        await this.settle();
        if (!this.failure) await this.handle?.sync().catch((error: unknown) => this.fail(error));
        const flushed = await this.flush();
        await this.close();
        if (!flushed.ok) {
            await this.discard();
            return flushed;
        }
        this.state = "completed";
        let bytes: Buffer;
        try {
            bytes = await fs.readFile(this.sidecarPath);
        } catch (error) {
            await this.discard();
            return toolError(
                "io_error",
                `Cannot read back the new content of ${this.relPath}: ${describeError(error)}`
            );
        }
        this.finalBytes = bytes;
        const now = decodeText(bytes);
        const before = this.original ? decodeText(this.original) : null;
        const newText = now.ok ? now.doc.text : bytes.toString("utf8");
        const oldText =
            this.original === null
                ? null
                : before?.ok
                  ? before.doc.text
                  : this.original.toString("utf8");
        // Whole texts ride along only when both sides are text (not bytes read as UTF-8).
        const texts = now.ok && (before === null || before.ok);
        const diff = await computeFileDiff(
            this.relPath,
            oldText,
            newText,
            texts ? this.realPath : undefined
        );
        const result: EditApplied = {
            applied: true,
            files: [
                {
                    path: this.relPath,
                    linesAdded: diff.linesAdded,
                    linesRemoved: diff.linesRemoved,
                },
            ],
        };
        const verb = this.original === null ? "Creating" : "Editing";
        const cut = partial ? ` (partial: cut off after ${this.linesWritten} lines)` : "";
        return toolOk({
            kind: "prepared_write",
            summary: `${verb} ${this.relPath}${cut}`,
            diffs: [diff],
            apply: () => this.commit(result),
            discard: () => this.discard(),
        });
    }

    /** Drops the session: the sidecar and the directories made for a new file are removed. */
    async discard(): Promise<void> {
        if (this.state === "discarded" || this.state === "applied") return;
        this.state = "discarded";
        await this.close();
        await fs.unlink(this.sidecarPath).catch(() => undefined);
        this.untrackSidecar();
        if (this.createdDir) await removeCreatedDirs(dirname(this.realPath), this.createdDir);
    }

    /** Accepted: re-check the target, then rename the sidecar over it (or write it through the editor). */
    private async commit(result: EditApplied): Promise<ToolResult> {
        if (this.state !== "completed") {
            return toolError(
                "file_changed",
                `The NORTH_FILE block for ${this.relPath} was already applied or dropped.`
            );
        }
        // The same per-file lock as the edit tools: another apply to this file waits.
        let release: () => Promise<void>;
        try {
            release = await acquireApplyLocks([this.realPath]);
        } catch (error) {
            await this.discard();
            if (!(error instanceof ApplyLockTimeout)) throw error;
            return toolError(
                "file_changed",
                `${this.relPath} is being changed by another process; nothing was written. ${REWRITE}`
            );
        }
        try {
            const problem = (await this.checkTarget()) ?? (await this.recordCheckpoint());
            if (problem) {
                await this.discard();
                return problem;
            }
            try {
                if (
                    this.files &&
                    this.finalBytes &&
                    this.finalBytes.length <= CLIENT_FILE_MAX_BYTES
                ) {
                    await writeEditorText(this.files, this.realPath, this.finalBytes);
                    await fs.unlink(this.sidecarPath).catch(() => undefined);
                } else {
                    if (this.originalMode !== null)
                        await fs.chmod(this.sidecarPath, this.originalMode);
                    await fs.rename(this.sidecarPath, this.realPath);
                }
            } catch (error) {
                await this.discard();
                return toolError(
                    "io_error",
                    `Could not write ${this.relPath}: ${describeError(error)}. The file was not changed.`
                );
            }
        } finally {
            await release();
        }
        this.state = "applied";
        this.untrackSidecar();
        return toolOk(result);
    }

    /** Null once the checkpointer kept the target's current and final bytes (or there is none). */
    private async recordCheckpoint(): Promise<ToolResult<never> | null> {
        if (!this.checkpoint) return null;
        if (!this.finalBytes)
            return checkpointFailure([this.relPath], "its new content was not read back");
        const outcome = await this.checkpoint
            .record([
                {
                    path: this.realPath,
                    relPath: this.relPath,
                    before: this.original,
                    after: this.finalBytes,
                },
            ])
            .catch((error: unknown) => ({ ok: false as const, error: describeError(error) }));
        return outcome.ok ? null : checkpointFailure([this.relPath], outcome.error);
    }

    /** Null when the target is still where, and what, it was when the block started. */
    private async checkTarget(): Promise<ToolResult<never> | null> {
        const rel = this.relPath;
        const safe = await resolveWritablePath(this.roots.repoRoot, rel, {
            mustExist: false,
            addedRoots: this.roots.addedRoots,
        });
        if (!safe.ok) {
            return toolError(
                safe.error.code,
                `${safe.error.message} Nothing was written to ${rel}.`
            );
        }
        if (safe.data.realPath !== this.realPath) {
            return toolError(
                "file_changed",
                `${rel} now leads to a different place (a directory or link on its path changed while the block was written); nothing was written. ${REWRITE}`
            );
        }
        let now: Buffer | null = null;
        try {
            const stat = await fs.stat(this.realPath);
            if ((stat.mode & 0o222) === 0) return readOnlyError(rel, stat.mode);
            now = this.files
                ? await readFileViaEditor(this.files, this.realPath)
                : await fs.readFile(this.realPath);
        } catch (error) {
            if (errnoCode(error) !== "ENOENT") {
                return toolError(
                    "io_error",
                    `Cannot check ${rel}: ${describeError(error)}; nothing was written.`
                );
            }
        }
        if (this.original === null && now === null) return null;
        if (this.original !== null && now !== null && now.equals(this.original)) return null;
        const what =
            this.original === null
                ? "was created by something else"
                : now === null
                  ? "was deleted"
                  : "changed on disk";
        return toolError(
            "file_changed",
            `${rel} ${what} while the NORTH_FILE block was written; nothing was written. ${REWRITE}`
        );
    }

    private async reopen(flags: "a" | "w"): Promise<ToolResult<null>> {
        if (this.state !== "interrupted") {
            return toolError(
                "invalid_args",
                `The write session for ${this.relPath} is not waiting for a continuation.`
            );
        }
        try {
            this.handle = await this.openSidecar(this.sidecarPath, flags);
        } catch (error) {
            return toolError(
                "io_error",
                `Cannot continue writing ${this.relPath}: ${describeError(error)}`
            );
        }
        this.state = "open";
        return toolOk(null);
    }

    private fail(error: unknown): void {
        this.failure ??= error instanceof Error ? error : new Error(String(error));
        this.buffered = [];
    }

    private enqueue(data: Buffer): void {
        if (this.failure) return;
        this.buffered.push(data);
        if (this.draining) return;
        // Cleared in a later tick, after the assignment below, even when
        // drain() finishes synchronously: settle() never waits on a stale promise.
        const run: Promise<void> = this.drain().finally(() => {
            if (this.draining === run) this.draining = null;
        });
        this.draining = run;
    }

    /** Writes buffered data until none is left or a write fails: one write per batch, in order. */
    private async drain(): Promise<void> {
        while (this.buffered.length > 0 && !this.failure) {
            const chunk = Buffer.concat(this.buffered.splice(0));
            try {
                if (!this.handle) throw new Error(`the sidecar of ${this.relPath} is closed`);
                await writeFully(this.handle, chunk);
            } catch (error) {
                this.fail(error);
            }
        }
    }

    /** Resolves once everything queued so far is written (or failed). */
    private async settle(): Promise<void> {
        while (this.draining) await this.draining;
    }

    private async close(): Promise<void> {
        await this.settle();
        const handle = this.handle;
        this.handle = null;
        await handle?.close().catch(() => undefined);
    }

    /** Counts lines and keeps the trailing window (LF text). */
    private track(text: string): void {
        for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1))
            this.completeLines++;
        this.tail += text;
        if (this.tail.length > this.trimAt) {
            this.trimTail();
            this.trimAt = Math.max(TAIL_TRIM_MIN, this.tail.length * 2);
        }
    }

    /** Keeps the last 30 lines (plus a partial one), at most TAIL_MAX characters. */
    private trimTail(): void {
        let at = this.tail.length;
        for (let n = 0; n <= RESUME_WINDOW_LINES && at > 0; n++)
            at = this.tail.lastIndexOf("\n", at - 1);
        if (at > 0) this.tail = this.tail.slice(at + 1);
        if (this.tail.length > TAIL_MAX) this.tail = this.tail.slice(-TAIL_MAX);
    }
}

/** Removes `dir` and its parents up to `createdDir` while they are empty. */
async function removeCreatedDirs(dir: string, createdDir: string): Promise<void> {
    for (let current = dir; ; current = dirname(current)) {
        const removed = await fs.rmdir(current).then(
            () => true,
            () => false
        );
        if (!removed || current === createdDir || dirname(current) === current) return;
    }
}

/** The message asking the model to continue a cut-off block. */
export function continuationPrompt(info: ResumeInfo): string {
    const where = info.endsMidLine
        ? "It stops in the middle of the last line shown; continue exactly from there (do not repeat that line's start)."
        : "Continue with the next line; do not repeat lines already written.";
    return [
        `Your NORTH_FILE block for ${info.path} was cut off after ${info.linesWritten} lines. The file so far ends with:`,
        "```",
        ...info.trailingLines,
        "```",
        `${where} Write the rest in <NORTH_FILE path="${info.path}" mode="append"> ... </NORTH_FILE>.`,
    ].join("\n");
}
