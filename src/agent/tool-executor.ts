import type { ToolCallBlock, ToolSchema } from "../providers/types";
import type { Logger } from "../storage/logger";
import { builtinTool } from "../tools/index";
import { protectedConfigFor, resolveWritablePath } from "../tools/path-guard";
import type {
    AnyToolDefinition,
    FileCheckpointer,
    FileDiff,
    PreparedWrite,
    ToolContext,
    ToolResult,
} from "../tools/types";
import { isPreparedWrite, toolError, toolOk } from "../tools/types";
import type { ApprovalDecision, ApprovalRequest, ApprovalSettings, Approver } from "./approvals";
import type { EngineEvent } from "./events";
import { PLAN_REQUIRED_MESSAGE } from "./plan";

/** The part of the tool registry the engine needs. */
export interface ToolRunner {
    list(): AnyToolDefinition[];
    schemas(filter?: (tool: AnyToolDefinition) => boolean): ToolSchema[];
    execute(name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolResult>;
}

/** A PreToolUse hook's say: block the call, or allow / force-ask its approval. */
export interface PreToolVerdict {
    block?: { reason: string };
    permission?: { decision: "allow" | "ask"; reason?: string };
}

export interface ToolExecutorDeps {
    /** Runs PreToolUse hooks; absent when none are configured. */
    preToolUse?: (call: ToolCallBlock, signal: AbortSignal) => Promise<PreToolVerdict | null>;
    /** Plan mode before a plan was accepted: changes and commands are refused. */
    planRequired?: boolean;
    tools: ToolRunner;
    approver: Approver;
    settings: ApprovalSettings;
    repoRoot: string;
    /** Keeps files' prior content before each edit lands (rewind). */
    checkpoint?: FileCheckpointer;
    logger: Logger;
    emit: (event: EngineEvent) => void;
}

function denied(message: string): ToolResult<never> {
    return { ok: false, error: { code: "denied", message } };
}

export async function ask(
    deps: Pick<ToolExecutorDeps, "approver" | "logger" | "emit">,
    request: ApprovalRequest,
    signal: AbortSignal
): Promise<ApprovalDecision> {
    deps.emit({ type: "approval_request", request });
    deps.logger.info(request.kind === "shell" ? "shell_review_shown" : "write_review_shown", {
        toolName: request.toolName,
    });
    let decision: ApprovalDecision;
    try {
        decision = await deps.approver(request, signal);
    } catch {
        decision = { outcome: "deny", reason: "the approval was interrupted" };
    }
    if (signal.aborted && decision.outcome === "approve") {
        decision = { outcome: "deny", reason: "cancelled by the user" };
    }
    deps.emit({ type: "approval_decision", requestId: request.id, decision });
    deps.logger.info(request.kind === "shell" ? "shell_review_decision" : "write_review_decision", {
        toolName: request.toolName,
        outcome: decision.outcome,
        remember: decision.outcome === "approve" ? decision.remember : undefined,
    });
    return decision;
}

/**
 * Runs one tool call under the mode's tool list and the approval rules.
 * Never throws: every failure is a result the model reads.
 */
export async function executeToolCall(
    call: ToolCallBlock,
    allowedNames: Set<string>,
    signal: AbortSignal,
    deps: ToolExecutorDeps
): Promise<ToolResult> {
    if (signal.aborted)
        return {
            ok: false,
            error: { code: "cancelled", message: "cancelled by the user before it ran" },
        };
    if (call.inputRefused) {
        return { ok: false, error: { code: "input_too_large", message: call.inputRefused } };
    }
    if (call.inputError) {
        return {
            ok: false,
            error: {
                code: "invalid_args",
                message: `the arguments for ${call.name} were not valid JSON (${call.inputError}); call it again with a JSON object that matches its schema`,
            },
        };
    }
    const tool = deps.tools.list().find((t) => t.name === call.name);
    const ctx: ToolContext = {
        repoRoot: deps.repoRoot,
        signal,
        checkpoint: deps.checkpoint,
        onOutput: (text) => deps.emit({ type: "tool_output", id: call.id, name: call.name, text }),
    };
    if (tool && !allowedNames.has(call.name)) return notInMode(call.name);
    if (tool && tool.approvalPolicy !== "none" && deps.planRequired) {
        return { ok: false, error: { code: "plan_required", message: PLAN_REQUIRED_MESSAGE } };
    }
    // Never run hooks for, or ask the user about, arguments that would be rejected anyway.
    if (!tool || !tool.input.safeParse(call.input).success) {
        return deps.tools.execute(call.name, call.input, ctx);
    }
    const verdict = deps.preToolUse ? await deps.preToolUse(call, signal) : null;
    if (verdict?.block) return denied(`blocked by a PreToolUse hook: ${verdict.block.reason}`);
    const forced = verdict?.permission?.decision;
    if (tool.approvalPolicy === "none") return deps.tools.execute(call.name, call.input, ctx);
    if (tool.approvalPolicy === "shell") return runShellCall(call, tool, ctx, signal, deps, forced);
    return runWriteCall(call, ctx, signal, deps, forced);
}

function notInMode(name: string): ToolResult<never> {
    return denied(
        `${name} is not available in this mode (read-only tools only); describe the change instead`
    );
}

async function runShellCall(
    call: ToolCallBlock,
    tool: AnyToolDefinition,
    ctx: ToolContext,
    signal: AbortSignal,
    deps: ToolExecutorDeps,
    forced?: "allow" | "ask"
): Promise<ToolResult> {
    // Commands and MCP calls share this review; the tool says what it shows and what "always"
    // keeps (a definition without one: the built-in tool's of its name, else the name).
    const approval = tool.approval ?? builtinTool(tool.name)?.approval;
    const { summary, rememberKey, command, cwd } = approval?.(call.input) ?? {
        summary: call.name,
        rememberKey: call.name,
    };
    const { settings } = deps;
    let approvedBy = "user";
    if (forced === "allow") approvedBy = "hook";
    else if (forced !== "ask" && settings.isShellAutoApproved()) approvedBy = "auto";
    else if (forced !== "ask" && settings.isCommandAllowed(rememberKey)) approvedBy = "allowlist";
    else {
        const decision = await ask(
            deps,
            {
                id: `approval-${call.id}`,
                kind: "shell",
                toolName: call.name,
                toolCallId: call.id,
                input: call.input,
                summary,
                command,
                cwd,
            },
            signal
        );
        if (decision.outcome === "deny")
            return denied(decision.reason ?? "the user denied this command");
        if (decision.remember === "exact") settings.allowCommand(rememberKey);
        if (decision.remember === "all") settings.enableShellAutoApprove();
    }
    deps.logger.info("shell_run_start", { approvedBy });
    const result = await deps.tools.execute(tool.name, call.input, ctx);
    deps.logger.info("shell_run_complete", { ok: result.ok });
    return result;
}

async function runWriteCall(
    call: ToolCallBlock,
    ctx: ToolContext,
    signal: AbortSignal,
    deps: ToolExecutorDeps,
    forced?: "allow" | "ask"
): Promise<ToolResult> {
    const prepared = await deps.tools.execute(call.name, call.input, ctx);
    if (!prepared.ok || !isPreparedWrite(prepared.data)) return prepared;
    return reviewPreparedWrite(
        prepared.data,
        { toolName: call.name, toolCallId: call.id, input: call.input },
        signal,
        deps,
        forced
    );
}

/**
 * Where a prepared write would land, judged again from the disk: an error
 * when a path is (now) outside the project or in git's internals, else the
 * diffs' paths that are protected configuration.
 */
async function judgeTargets(
    repoRoot: string,
    diffs: readonly FileDiff[]
): Promise<ToolResult<string[]>> {
    const protectedPaths: string[] = [];
    for (const diff of diffs) {
        const safe = await resolveWritablePath(repoRoot, diff.path, { mustExist: false });
        if (!safe.ok) {
            return toolError(safe.error.code, `${safe.error.message} Nothing was written.`);
        }
        if (protectedConfigFor(repoRoot, safe.data)) protectedPaths.push(diff.path);
    }
    return toolOk(protectedPaths);
}

async function refuse(change: PreparedWrite, result: ToolResult<never>): Promise<ToolResult> {
    await change.discard?.().catch(() => undefined);
    return result;
}

/**
 * The write review: auto-accepted when the project allows it, otherwise asked;
 * applied on approval, discarded on rejection. Shared by edit tools and
 * NORTH_FILE blocks. Protected configuration is always asked (auto-accept and
 * a hook's "allow" do not count) unless print mode's flags allow it.
 */
export async function reviewPreparedWrite(
    change: PreparedWrite,
    origin: { toolName: string; toolCallId: string; input: unknown },
    signal: AbortSignal,
    deps: Pick<ToolExecutorDeps, "approver" | "settings" | "logger" | "emit" | "repoRoot">,
    forced?: "allow" | "ask"
): Promise<ToolResult> {
    const judged = await judgeTargets(deps.repoRoot, change.diffs);
    if (!judged.ok) return refuse(change, judged);
    const protectedPaths = judged.data;
    const autoAccepted =
        protectedPaths.length > 0
            ? forced !== "ask" && deps.settings.areProtectedEditsAllowed?.() === true
            : forced === "allow" || (forced !== "ask" && deps.settings.isEditsAutoAccepted());
    if (!autoAccepted) {
        const request: ApprovalRequest = {
            id: `approval-${origin.toolCallId}`,
            kind: "write",
            toolName: origin.toolName,
            toolCallId: origin.toolCallId,
            input: origin.input,
            summary: change.summary,
            diffs: change.diffs,
        };
        if (protectedPaths.length > 0) request.protectedPaths = protectedPaths;
        const decision = await ask(deps, request, signal);
        if (decision.outcome === "deny") {
            return refuse(
                change,
                denied(decision.reason ?? "the user rejected this edit; nothing was written")
            );
        }
        if (decision.remember === "all") deps.settings.enableEditsAutoAccept();
    }
    // The review may have been open for a while: a path swapped meanwhile must not
    // land outside, in .git, or on a protected file nobody reviewed as such.
    const again = await judgeTargets(deps.repoRoot, change.diffs);
    if (!again.ok) return refuse(change, again);
    const unreviewed = again.data.filter((p) => !protectedPaths.includes(p));
    if (unreviewed.length > 0) {
        return refuse(
            change,
            toolError(
                "file_changed",
                `${unreviewed.join(", ")} now leads to protected configuration (a link on the path changed) while this edit waited; nothing was written. Re-read it and make the edit again.`
            )
        );
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
    // The model reads why; the user must hear it too: every later edit will fail alike.
    if (!applied.ok && applied.error.code === "checkpoint_failed") {
        deps.emit({ type: "warning", message: applied.error.message });
    }
    return applied;
}
