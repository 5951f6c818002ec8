/**
 * Writes one NORTH_FILE block to disk while it streams, so a provider timeout
 * loses nothing: the path is checked first (nothing is written outside the
 * project), the original content is kept in memory, chunks go straight to the
 * final path, and the session counts lines and keeps the last 30 for a
 * continuation prompt. When the block closes, `complete()` returns a
 * PreparedWrite for review: `apply()` has nothing left to do, `discard()`
 * deletes a new file or puts the overwritten content back.
 */
import { promises as fs } from "node:fs";
import { dirname } from "node:path";
import { writeFileAtomic } from "../../util/atomic-write";
import { computeFileDiff } from "../editing/diff";
import { describeError, errnoCode, readOnlyError } from "../editing/files";
import type { EditApplied } from "../editing/prepared";
import type { Eol } from "../editing/text-doc";
import { decodeText } from "../editing/text-doc";
import { resolveWritablePath } from "../path-guard";
import type { PreparedWrite, ToolResult } from "../types";
import { toolError, toolOk } from "../types";
import type { FileBlockMode } from "./parser";

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

type SessionState = "open" | "interrupted" | "completed" | "discarded";

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** The trailing window is trimmed once the kept tail grows past this many characters. */
const TAIL_TRIM_MIN = 8192;
/** Longest tail kept when the last lines are huge (minified code). */
const TAIL_MAX = 65536;

export class FileWriteSession {
    private handle: fs.FileHandle | null = null;
    /** Data waiting for the write in flight to finish; written together, in order. */
    private buffered: Uint8Array[] = [];
    /** The running drain loop, if a write is in flight. */
    private draining: Promise<void> | null = null;
    private failure: Error | null = null;
    private state: SessionState = "open";
    private completeLines = 0;
    private tail = "";
    private pendingCr = false;
    private trimAt = TAIL_TRIM_MIN;

    private constructor(
        /** Repo-relative POSIX path. */
        readonly relPath: string,
        /** Absolute, symlink-resolved path written to. */
        readonly realPath: string,
        /** Bytes before the session started; null if the file did not exist. */
        private readonly original: Buffer | null,
        private readonly createdDir: string | undefined,
        private readonly eol: Eol,
        /** The original started with a UTF-8 BOM; a rewrite keeps it. */
        private readonly bom: boolean
    ) {}

    /**
     * Starts a session: `create` replaces the file (remembering what it held),
     * `append` continues an existing file (or creates it). Fails without
     * writing anything for a path outside the project or a directory.
     */
    static async start(
        repoRoot: string,
        userPath: string,
        mode: FileBlockMode
    ): Promise<ToolResult<FileWriteSession>> {
        const safe = await resolveWritablePath(repoRoot, userPath, { mustExist: false });
        if (!safe.ok) return safe;
        const { relPath, realPath } = safe.data;
        if (relPath === ".")
            return toolError("not_a_file", "The project root is a directory, not a file.");
        let original: Buffer | null = null;
        try {
            const stat = await fs.stat(realPath);
            if (stat.isDirectory())
                return toolError("not_a_file", `${relPath} is a directory, not a file.`);
            if (!stat.isFile()) return toolError("not_a_file", `${relPath} is not a regular file.`);
            if ((stat.mode & 0o222) === 0) return readOnlyError(relPath, stat.mode);
            if (stat.nlink > 1) {
                // Writing in place would change every other name of this file too.
                return toolError(
                    "invalid_path",
                    `${relPath} has other hard links, and a NORTH_FILE block writes in place; use edit_create_file with overwrite: true instead.`
                );
            }
            original = await fs.readFile(realPath);
        } catch (error) {
            if (errnoCode(error) !== "ENOENT") {
                return toolError("io_error", `Cannot open ${relPath}: ${describeError(error)}`);
            }
        }
        const decoded = original ? decodeText(original) : null;
        const doc = decoded?.ok ? decoded.doc : null;
        let createdDir: string | undefined;
        let handle: fs.FileHandle;
        try {
            if (!original) createdDir = await fs.mkdir(dirname(realPath), { recursive: true });
            handle = await fs.open(realPath, mode === "append" ? "a" : "w", 0o644);
        } catch (error) {
            return toolError("io_error", `Cannot write ${relPath}: ${describeError(error)}`);
        }
        const session = new FileWriteSession(
            relPath,
            realPath,
            original,
            createdDir,
            doc?.eol ?? "\n",
            doc?.bom ?? false
        );
        session.handle = handle;
        if (mode === "append" && doc) session.track(doc.text.replace(/\r\n/g, "\n"));
        if (mode === "create" && session.bom) session.enqueue(BOM);
        return toolOk(session);
    }

    /** Queues `text` for the file (in order); errors surface in `flush`/`complete`. */
    write(text: string): void {
        if (this.state !== "open" || text === "") return;
        let lf = (this.pendingCr ? "\r" : "") + text;
        this.pendingCr = lf.endsWith("\r");
        if (this.pendingCr) lf = lf.slice(0, -1);
        lf = lf.replace(/\r\n/g, "\n");
        this.track(lf);
        this.enqueue(Buffer.from(this.eol === "\r\n" ? lf.replace(/\n/g, "\r\n") : lf, "utf8"));
    }

    /** Waits for queued writes; the first write error, if any. */
    async flush(): Promise<ToolResult<null>> {
        await this.settle();
        if (this.failure) {
            return toolError(
                "io_error",
                `Writing ${this.relPath} failed: ${describeError(this.failure)}. The partial file was kept.`
            );
        }
        return toolOk(null);
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

    /** The stream ended without a close tag: keep the partial file, await a continuation. */
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
        if (this.state !== "interrupted") {
            return toolError(
                "invalid_args",
                `The write session for ${this.relPath} has already ended.`
            );
        }
        try {
            this.handle = await fs.open(this.realPath, "a");
        } catch (error) {
            return toolError("io_error", `Cannot reopen ${this.relPath}: ${describeError(error)}`);
        }
        this.state = "open";
        return toolOk(null);
    }

    /**
     * Starts an interrupted session over (a new `mode="create"` block for the
     * same path): the partial content goes, the original is still what discard restores.
     */
    async restart(): Promise<ToolResult<null>> {
        if (this.state !== "interrupted") {
            return toolError(
                "invalid_args",
                `The write session for ${this.relPath} is not waiting for a continuation.`
            );
        }
        try {
            this.handle = await fs.open(this.realPath, "w");
        } catch (error) {
            return toolError("io_error", `Cannot rewrite ${this.relPath}: ${describeError(error)}`);
        }
        this.state = "open";
        this.completeLines = 0;
        this.tail = "";
        this.pendingCr = false;
        this.failure = null;
        if (this.bom) this.enqueue(BOM);
        return toolOk(null);
    }

    /** The block closed: finish writing and prepare the review of original → new. */
    async complete(): Promise<ToolResult<PreparedWrite>> {
        if (this.pendingCr) {
            this.pendingCr = false;
            this.track("\r");
            this.enqueue(Buffer.from("\r"));
        }
        const flushed = await this.flush();
        await this.close();
        if (!flushed.ok) return flushed;
        this.state = "completed";
        let bytes: Buffer;
        try {
            bytes = await fs.readFile(this.realPath);
        } catch (error) {
            return toolError(
                "io_error",
                `Cannot read back ${this.relPath}: ${describeError(error)}`
            );
        }
        const now = decodeText(bytes);
        const before = this.original ? decodeText(this.original) : null;
        const newText = now.ok ? now.doc.text : bytes.toString("utf8");
        const oldText =
            this.original === null
                ? null
                : before?.ok
                  ? before.doc.text
                  : this.original.toString("utf8");
        const diff = await computeFileDiff(this.relPath, oldText, newText);
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
        return toolOk({
            kind: "prepared_write",
            summary: `${this.original === null ? "Creating" : "Editing"} ${this.relPath}`,
            diffs: [diff],
            apply: async () => toolOk(result),
            discard: () => this.discard(),
        });
    }

    /** Undoes the session: a new file is deleted, an overwritten one gets its old bytes back. */
    async discard(): Promise<void> {
        if (this.state === "discarded") return;
        await this.settle();
        await this.close();
        this.state = "discarded";
        if (this.original) {
            await writeFileAtomic(this.realPath, this.original);
            return;
        }
        await fs.unlink(this.realPath).catch(() => undefined);
        if (!this.createdDir) return;
        for (let dir = dirname(this.realPath); ; dir = dirname(dir)) {
            const removed = await fs.rmdir(dir).then(
                () => true,
                () => false
            );
            if (!removed || dir === this.createdDir || dirname(dir) === dir) return;
        }
    }

    private enqueue(data: Uint8Array): void {
        this.buffered.push(data);
        this.draining ??= this.drain();
    }

    /** Writes buffered data until none is left: one write per batch, never out of order. */
    private async drain(): Promise<void> {
        while (this.buffered.length > 0) {
            const chunk = Buffer.concat(this.buffered.splice(0));
            if (this.failure || !this.handle) continue;
            try {
                await this.handle.write(chunk);
            } catch (error) {
                this.failure = error instanceof Error ? error : new Error(String(error));
            }
        }
        this.draining = null;
    }

    /** Resolves once everything queued so far is on disk (or failed). */
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
