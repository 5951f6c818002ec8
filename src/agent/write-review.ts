/**
 * A prepared write's way from review to disk: resolve where it lands, settle
 * its approval requirement, check again that nothing moved while the review
 * was open, then apply (or discard). Shared by the edit tools and NORTH_FILE.
 */
import { type PathRoots, resolveWritablePath } from "../tools/path-guard";
import type { FileDiff, PreparedWrite, ToolResult } from "../tools/types";
import { toolError, toolOk } from "../tools/types";
import { type ApprovalDriverDeps, requestFields, settleApproval } from "./approval-driver";
import {
    type PreToolVerdict,
    type WriteTarget,
    approvalRequirement,
    protectedPathsOf,
} from "./approval-requirement";
import type { ApprovalRequest } from "./approvals";
import type { RuleMatch } from "../tools/permissions/rules";
import type { EditCheck, EditDiagnostics } from "./edit-diagnostics";

export interface WriteReviewDeps extends ApprovalDriverDeps {
    repoRoot: string;
    /** `--add-dir` directories paths may also lead into; absent: none. */
    addedRoots?: readonly string[];
    /** Asks the language servers what an applied write introduced; absent: no server runs. */
    editDiagnostics?: EditDiagnostics;
}

/**
 * Where a prepared write would land: an error when a path is (now) outside
 * the project or in git's internals, else each diff with its resolved path.
 */
async function resolveTargets(
    roots: PathRoots,
    diffs: readonly FileDiff[]
): Promise<ToolResult<WriteTarget[]>> {
    const targets: WriteTarget[] = [];
    for (const diff of diffs) {
        const safe = await resolveWritablePath(roots.repoRoot, diff.path, {
            mustExist: false,
            addedRoots: roots.addedRoots,
        });
        if (!safe.ok) {
            return toolError(safe.error.code, `${safe.error.message} Nothing was written.`);
        }
        targets.push({ diff, safe: safe.data });
    }
    return toolOk(targets);
}

async function refuse(
    change: PreparedWrite,
    result: ToolResult<never>,
    check: EditCheck | null = null
): Promise<ToolResult> {
    check?.cancel();
    await change.discard?.().catch(() => undefined);
    return result;
}

/**
 * The write review: skipped when a rule, the mode, a setting or a hook
 * accepts it, otherwise asked; applied on approval, discarded on refusal.
 * Protected configuration is always asked unless print mode's flags allow it.
 * Where a language server handles a target, what it says the write
 * introduced joins the applied result (agent/edit-diagnostics.ts).
 */
export async function reviewPreparedWrite(
    change: PreparedWrite,
    origin: { toolName: string; toolCallId: string; input: unknown },
    signal: AbortSignal,
    deps: WriteReviewDeps,
    hook?: PreToolVerdict | null,
    byName?: RuleMatch
): Promise<ToolResult> {
    const targets = await resolveTargets(deps, change.diffs);
    if (!targets.ok) return refuse(change, targets);
    // The view before the write is taken while the review is open.
    const check =
        deps.editDiagnostics?.begin(
            targets.data.map((t) => ({ realPath: t.safe.realPath, isNew: t.diff.isNewFile })),
            signal
        ) ?? null;
    const protectedPaths = protectedPathsOf(deps.repoRoot, targets.data);
    const requirement = await approvalRequirement(
        { kind: "write", toolName: origin.toolName, targets: targets.data },
        { ...deps, hook, byName }
    );
    const request = (): ApprovalRequest => ({
        id: `approval-${origin.toolCallId}`,
        kind: "write",
        toolName: origin.toolName,
        toolCallId: origin.toolCallId,
        input: origin.input,
        summary: change.summary,
        diffs: change.diffs,
        ...(protectedPaths.length > 0 ? { protectedPaths } : {}),
        ...(requirement.kind === "needs-approval" ? requestFields(requirement, "write") : {}),
    });
    const settled = await settleApproval(
        requirement,
        request,
        "the user rejected this edit; nothing was written",
        signal,
        deps
    );
    if (!settled.run) return refuse(change, settled.refusal, check);
    // The review may have been open for a while: a path swapped meanwhile must not
    // land outside, in .git, or on a protected file nobody reviewed as such.
    const again = await resolveTargets(deps, change.diffs);
    if (!again.ok) return refuse(change, again, check);
    const unreviewed = protectedPathsOf(deps.repoRoot, again.data).filter(
        (p) => !protectedPaths.includes(p)
    );
    if (unreviewed.length > 0) {
        return refuse(
            change,
            toolError(
                "file_changed",
                `${unreviewed.join(", ")} now leads to protected configuration (a link on the path changed) while this edit waited; nothing was written. Re-read it and make the edit again.`
            ),
            check
        );
    }
    if (check) {
        await check.beforeApply();
        // Esc while the view before was awaited: the user stopped the run before anything landed.
        if (signal.aborted) {
            return refuse(
                change,
                toolError(
                    "cancelled",
                    "cancelled by the user before it was written; nothing was written"
                ),
                check
            );
        }
    }
    deps.logger.info("write_apply_start", {
        files: change.diffs.length,
        protectedFiles: protectedPaths.length,
    });
    let applied: ToolResult;
    try {
        applied = await change.apply();
    } catch (error) {
        applied = { ok: false, error: { code: "io_error", message: (error as Error).message } };
    }
    deps.logger.info("write_apply_complete", { ok: applied.ok });
    if (applied.ok) {
        deps.emit({
            type: "write_applied",
            toolCallId: origin.toolCallId,
            toolName: origin.toolName,
            diffs: change.diffs,
        });
    }
    // The model reads why; the user must hear it too: every later edit will fail alike.
    if (!applied.ok && applied.error.code === "checkpoint_failed") {
        deps.emit({ type: "warning", message: applied.error.message });
    }
    if (!check) return applied;
    const edit = { toolCallId: origin.toolCallId, paths: change.diffs.map((d) => d.path) };
    return check.afterApply(applied, edit, deps.emit);
}
