/**
 * Turns computed file contents into a `PreparedWrite`: review diffs now,
 * and an `apply()` that, holding a lock per file against other applies,
 * re-checks every file (where its path leads now, and its bytes against those
 * read at prepare time), then writes them all atomically — checking each
 * again right before its rename — or, if one write fails or is refused, puts
 * back the ones already written, so a change lands whole or not at all.
 */
import { dirname } from "node:path";
import { type PathRoots, resolveWritablePath } from "../path-guard";
import type {
    CheckpointOutcome,
    FileCheckpointer,
    FileDiff,
    PreparedWrite,
    ToolError,
    ToolResult,
} from "../types";
import { toolError, toolOk } from "../types";
import { ApplyLockTimeout } from "./apply-lock";
import { computeFileDiff } from "./diff";
import type { EditOperations, LoadedFile } from "./files";
import { describeError, errnoCode, readOnlyError } from "./files";
import type { Tolerance } from "./match";
import { encodeText } from "./text-doc";

/** Mode of a file North creates. */
const NEW_FILE_MODE = 0o644;

export interface PendingChange {
    file: LoadedFile;
    /** Decoded new content (BOM excluded; re-added on write when the file had one). */
    newText: string;
}

/** A match that needed a tolerance, reported to the model with the result. */
export interface ToleranceUse {
    path: string;
    line: number;
    kind: Tolerance;
    note: string;
}

export interface AppliedFile {
    path: string;
    linesAdded: number;
    linesRemoved: number;
}

/** What `apply()` returns to the model. */
export interface EditApplied {
    applied: true;
    files: AppliedFile[];
    tolerance?: ToleranceUse[];
}

function summaryFor(changes: readonly PendingChange[]): string {
    const first = changes[0];
    if (changes.length === 1 && first) {
        return `${first.file.original === null ? "Creating" : "Editing"} ${first.file.relPath}`;
    }
    return `Editing ${changes.length} files`;
}

const REREAD = "nothing was written. Re-read it (read_file) and make the edit again.";

/**
 * Null when the path still leads where it did at prepare time; otherwise the
 * error. A folder swapped for a symlink (out of the project, or onto another
 * file such as protected configuration) changes the real path.
 */
async function checkTarget(
    roots: PathRoots,
    change: PendingChange
): Promise<ToolResult<never> | null> {
    const { relPath, realPath } = change.file;
    const now = await resolveWritablePath(roots.repoRoot, relPath, {
        mustExist: false,
        addedRoots: roots.addedRoots,
    });
    if (!now.ok) return toolError(now.error.code, `${now.error.message} Nothing was written.`);
    if (now.data.realPath === realPath) return null;
    return toolError(
        "file_changed",
        `${relPath} leads somewhere else than when this edit was prepared (a folder or link on its path was replaced); ${REREAD}`
    );
}

/** Both checks, location first. */
async function checkFile(
    roots: PathRoots,
    change: PendingChange,
    ops: EditOperations
): Promise<ToolResult<never> | null> {
    return (await checkTarget(roots, change)) ?? (await checkUnchanged(change, ops));
}

/** Thrown from `beforeRename` to stop a write whose last check failed. */
class WriteRefused extends Error {
    constructor(readonly error: ToolError) {
        super(error.message);
    }
}

/** Null when the file is still as it was at prepare time; otherwise the error. */
async function checkUnchanged(
    change: PendingChange,
    ops: EditOperations
): Promise<ToolResult<never> | null> {
    const { relPath, realPath, original } = change.file;
    let stat;
    try {
        stat = await ops.stat(realPath);
    } catch (error) {
        if (errnoCode(error) !== "ENOENT") {
            return toolError(
                "io_error",
                `Cannot check ${relPath}: ${describeError(error)}; nothing was written.`
            );
        }
        if (original === null) return null;
        return toolError(
            "file_changed",
            `${relPath} was deleted since this edit was prepared; ${REREAD}`
        );
    }
    if (original === null) {
        return toolError(
            "file_changed",
            `${relPath} was created by something else since this edit was prepared; ${REREAD}`
        );
    }
    if ((stat.mode & 0o222) === 0) return readOnlyError(relPath, stat.mode);
    try {
        // Bytes, not sizes: an editor's text (client-operations.ts) differs in size from the disk copy.
        const now = await ops.readFile(realPath);
        if (now.equals(original)) return null;
    } catch (error) {
        return toolError(
            "io_error",
            `Cannot read ${relPath}: ${describeError(error)}; nothing was written.`
        );
    }
    return toolError(
        "file_changed",
        `${relPath} changed on disk since this edit was prepared; ${REREAD}`
    );
}

interface Written {
    change: PendingChange;
    /** First directory created for a new file, to remove on rollback. */
    createdDir?: string;
}

async function removeCreatedDirs(
    filePath: string,
    createdDir: string,
    ops: EditOperations
): Promise<void> {
    let dir = dirname(filePath);
    for (;;) {
        try {
            await ops.rmdir(dir);
        } catch {
            return;
        }
        if (dir === createdDir) return;
        const parent = dirname(dir);
        if (parent === dir) return;
        dir = parent;
    }
}

/** Undoes written files, newest first; returns the paths it could not restore. */
async function rollback(written: Written[], ops: EditOperations): Promise<string[]> {
    const failed: string[] = [];
    for (const { change, createdDir } of [...written].reverse()) {
        const { realPath, original, relPath } = change.file;
        try {
            if (original) await ops.writeFile(realPath, original, {});
            else
                await ops.unlink(realPath).catch((error: unknown) => {
                    if (errnoCode(error) !== "ENOENT") throw error;
                });
            if (!original && createdDir) await removeCreatedDirs(realPath, createdDir, ops);
        } catch {
            failed.push(relPath);
        }
    }
    return failed;
}

function restoredTail(failed: readonly string[], files: number): string {
    if (failed.length > 0) {
        return `Could not restore ${failed.join(", ")}; check ${failed.length === 1 ? "it" : "them"}.`;
    }
    return files > 1 ? "No file was changed." : "The file was not changed.";
}

/**
 * Writes every file; each rename waits for `recorded` (the checkpoint, saved
 * while the temp files are written) and is refused when it failed.
 */
async function writeAll(
    roots: PathRoots,
    changes: readonly PendingChange[],
    encoded: readonly Buffer[],
    ops: EditOperations,
    recorded: Promise<CheckpointOutcome> | null
): Promise<ToolResult<null>> {
    const written: Written[] = [];
    const checkpointSaved = async (): Promise<void> => {
        const saved = await recorded;
        if (saved && !saved.ok) {
            const refusal = checkpointFailure(
                changes.map((c) => c.file.relPath),
                saved.error
            );
            if (!refusal.ok) throw new WriteRefused(refusal.error);
        }
    };
    for (const [i, change] of changes.entries()) {
        const entry: Written = { change };
        try {
            if (change.file.original === null) {
                entry.createdDir = await ops.mkdirp(dirname(change.file.realPath));
            }
            const data = encoded[i] as Buffer;
            await ops.writeFile(change.file.realPath, data, {
                mode: NEW_FILE_MODE,
                // The last look, as close to the rename as Node allows.
                beforeRename: async () => {
                    await checkpointSaved();
                    const problem = await checkFile(roots, change, ops);
                    if (problem && !problem.ok) throw new WriteRefused(problem.error);
                },
            });
            written.push(entry);
        } catch (error) {
            await recorded;
            // The failed write itself left its file untouched (atomic); undo the others.
            const failed = await rollback(written, ops);
            if (entry.createdDir)
                await removeCreatedDirs(change.file.realPath, entry.createdDir, ops);
            if (error instanceof WriteRefused) {
                const { code, message } = error.error;
                return toolError(
                    code,
                    written.length === 0 ? message : `${message} ${restoredTail(failed, 2)}`
                );
            }
            const full = errnoCode(error) === "ENOSPC" ? " (the disk is full)" : "";
            return toolError(
                "io_error",
                `Could not write ${change.file.relPath}: ${describeError(error)}${full}. ${restoredTail(failed, changes.length)}`
            );
        }
    }
    return toolOk(null);
}

/** The refusal when the prior content could not be kept. */
export function checkpointFailure(relPaths: readonly string[], error: string): ToolResult<never> {
    return toolError(
        "checkpoint_failed",
        `Could not save a checkpoint of ${relPaths.join(", ")} (${error}); nothing was changed: ` +
            "North does not change a file it could not restore. Free space in North's data directory or make it writable."
    );
}

/** The checks, the checkpoint and the writes of one apply, under the file locks. */
async function applyLocked(
    roots: PathRoots,
    changes: readonly PendingChange[],
    ops: EditOperations,
    checkpoint: FileCheckpointer | undefined
): Promise<ToolResult<null>> {
    for (const change of changes) {
        const problem = await checkFile(roots, change, ops);
        if (problem) return problem;
    }
    const encoded = changes.map((c) => encodeText(c.newText, c.file.doc.bom));
    // Saved while the temp files are written, awaited before the first rename: a
    // kill -9 after that leaves each file at its recorded before or after, which
    // rewind tells apart from a user's change.
    const recorded = checkpoint
        ? checkpoint
              .record(
                  changes.map((c, i) => ({
                      path: c.file.realPath,
                      relPath: c.file.relPath,
                      before: c.file.original,
                      after: encoded[i] as Buffer,
                  }))
              )
              .catch((error: unknown) => ({ ok: false as const, error: describeError(error) }))
        : null;
    return writeAll(roots, changes, encoded, ops, recorded);
}

function lockFailure(error: unknown, changes: readonly PendingChange[]): ToolResult<never> {
    if (error instanceof ApplyLockTimeout) {
        const file = changes.find((c) => c.file.realPath === error.path)?.file.relPath;
        return toolError(
            "file_changed",
            `Another North process kept ${file ?? error.path} busy; nothing was written. Re-read it (read_file) and make the edit again.`
        );
    }
    return toolError("io_error", `Cannot lock the files to write: ${describeError(error)}`);
}

/**
 * A prepared write over `changes` (files whose content really changes), in
 * the project (or an added directory) of `roots`. `apply()` succeeds once; a second call finds the
 * files changed.
 */
export async function prepareWrite(
    roots: PathRoots,
    changes: PendingChange[],
    tolerance: ToleranceUse[],
    ops: EditOperations,
    checkpoint?: FileCheckpointer
): Promise<PreparedWrite> {
    const diffs: FileDiff[] = [];
    for (const c of changes) {
        const oldText = c.file.original === null ? null : c.file.doc.text;
        diffs.push(await computeFileDiff(c.file.relPath, oldText, c.newText, c.file.realPath));
    }
    return {
        kind: "prepared_write",
        summary: summaryFor(changes),
        diffs,
        async apply(): Promise<ToolResult> {
            let release: () => Promise<void>;
            try {
                release = await ops.lock(changes.map((c) => c.file.realPath));
            } catch (error) {
                return lockFailure(error, changes);
            }
            let written: ToolResult<null>;
            try {
                written = await applyLocked(roots, changes, ops, checkpoint);
            } finally {
                await release().catch(() => undefined);
            }
            if (!written.ok) return written;
            const result: EditApplied = {
                applied: true,
                files: diffs.map((d) => ({
                    path: d.path,
                    linesAdded: d.linesAdded,
                    linesRemoved: d.linesRemoved,
                })),
            };
            if (tolerance.length > 0) result.tolerance = tolerance;
            return toolOk(result);
        },
    };
}
