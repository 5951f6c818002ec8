/**
 * What `north rewind` and the chat's `/rewind` share: the wording of a
 * restore's files and outcome, and carrying out a plan with North's own
 * path guard and file locks (so an edit in another process waits).
 */
import type {
    ConversationCheckpoints,
    RestoreFile,
    RestoreOutcome,
    RestorePlan,
    RestoreReport,
} from "../../storage/checkpoints";
import { acquireApplyLocks } from "../../tools/editing/apply-lock";
import { resolveWritablePath } from "../../tools/path-guard";

export const SHELL_NOT_TRACKED =
    "Changes made by shell commands are not tracked: rewind does not undo them.";

/** What restoring would do to one file, for a summary. */
export function fileNote(file: RestoreFile): string {
    const what = file.action === "delete" ? `${file.path} (deleted)` : file.path;
    if (file.problem) return `${what} [cannot restore: ${file.problem}]`;
    return file.changedSince ? `${what} [changed since]` : what;
}

/** The files restoring would change (ones already as they were left out). */
export function filesToRestore(plan: RestorePlan): RestoreFile[] {
    return plan.files.filter((f) => f.action !== "unchanged");
}

/** One line per file a restore changed or kept. */
export function reportLines(report: RestoreReport): string[] {
    const lines = [
        ...report.restored.map((p) => `restored ${p}`),
        ...report.deleted.map((p) => `deleted ${p} (North created it)`),
        ...report.skipped.map((s) => `kept ${s.path}: ${s.reason}`),
    ];
    if (lines.length === 0) lines.push("no file needed restoring");
    return lines;
}

/** Carries out `plan`; `includeChanged` also overwrites files changed since North changed them. */
export function restorePlan(
    checkpoints: ConversationCheckpoints,
    plan: RestorePlan,
    includeChanged: boolean,
    addedRoots: readonly string[] = []
): Promise<RestoreOutcome> {
    return checkpoints.applyRestore(plan, {
        includeChanged,
        lock: (paths) => acquireApplyLocks(paths),
        resolve: async (root, relPath) => {
            const safe = await resolveWritablePath(root, relPath, {
                mustExist: false,
                addedRoots,
            });
            return safe.ok
                ? { ok: true, realPath: safe.data.realPath }
                : { ok: false, error: safe.error.message };
        },
    });
}
