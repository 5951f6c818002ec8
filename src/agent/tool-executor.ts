import type { ToolCallBlock, ToolSchema } from "../providers/types";
import type { AnyToolDefinition, FileCheckpointer, ToolContext, ToolResult } from "../tools/types";
import { isPreparedWrite } from "../tools/types";
import { inputSchema } from "../tools/tool-input";
import type { RuleMatch } from "../tools/permissions/rules";
import { refusalOf, requestFields, settleApproval } from "./approval-driver";
import {
    type PreToolVerdict,
    approvalRequirement,
    hookRefusal,
    refusalBeforeHooks,
    ruleLabel,
} from "./approval-requirement";
import type { ApprovalRequest } from "./approvals";
import type { ProcessPort } from "./process-port";
import { type WriteReviewDeps, reviewPreparedWrite } from "./write-review";

/** The part of the tool registry the engine needs. */
export interface ToolRunner {
    list(): AnyToolDefinition[];
    schemas(filter?: (tool: AnyToolDefinition) => boolean): ToolSchema[];
    execute(name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolResult>;
    /** `execute` for a definition from `list()`, skipping the lookup by name (the registry has it; wrappers may not). */
    executeDefinition?(
        tool: AnyToolDefinition,
        rawInput: unknown,
        ctx: ToolContext
    ): Promise<ToolResult>;
}

/** Runs a definition the runner listed, through its entry point for one when it has it. */
function runListedTool(
    tools: ToolRunner,
    tool: AnyToolDefinition,
    rawInput: unknown,
    ctx: ToolContext
): Promise<ToolResult> {
    return tools.executeDefinition
        ? tools.executeDefinition(tool, rawInput, ctx)
        : tools.execute(tool.name, rawInput, ctx);
}

/** What running one tool call needs: the approval driver's deps, the registry and the run's state. */
export interface ToolExecutorDeps extends WriteReviewDeps {
    /** Runs PreToolUse hooks; absent when none are configured. */
    preToolUse?: (call: ToolCallBlock, signal: AbortSignal) => Promise<PreToolVerdict | null>;
    /** Plan mode before a plan was accepted: changes and commands are refused. */
    planRequired?: boolean;
    tools: ToolRunner;
    /** Keeps files' prior content before each edit lands (rewind). */
    checkpoint?: FileCheckpointer;
    /** Background processes: Ctrl+B detaches running commands, password prompts reach the user. */
    processes?: ProcessPort;
}

/** Whether `input` passes the tool's schema; a schema that cannot be built counts as no. */
function validInput(tool: AnyToolDefinition, input: unknown): boolean {
    try {
        return inputSchema(tool.input).safeParse(input).success;
    } catch {
        return false;
    }
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
    const tool = deps.tools.list().find((t) => t.name === call.name);
    // Only while this call runs can Ctrl+B move it to the background.
    const detach = tool?.detachable ? deps.processes?.detachable(call.id) : undefined;
    try {
        return await executeCheckedCall(call, tool, allowedNames, signal, deps, detach?.signal);
    } finally {
        detach?.release();
    }
}

async function executeCheckedCall(
    call: ToolCallBlock,
    tool: AnyToolDefinition | undefined,
    allowedNames: Set<string>,
    signal: AbortSignal,
    deps: ToolExecutorDeps,
    detach: AbortSignal | undefined
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
    const rules = deps.settings.permissionRules;
    const processes = deps.processes;
    const ctx: ToolContext = {
        repoRoot: deps.repoRoot,
        addedRoots: deps.addedRoots,
        signal,
        checkpoint: deps.checkpoint,
        onOutput: (text) => deps.emit({ type: "tool_output", id: call.id, name: call.name, text }),
        readDenial: rules ? (absPath) => rules.readDenial(absPath) : undefined,
        toolCallId: call.id,
        hostDenial: rules ? (host) => denyingRuleText(rules.forDomain(host)) : undefined,
        detach,
        requestSecret: processes
            ? (process, prompt) => processes.requestSecret(process, prompt)
            : undefined,
    };
    const modeRefusal = tool
        ? refusalBeforeHooks(call.name, {
              inMode: allowedNames.has(call.name),
              planRequired:
                  (tool.approvalPolicy !== "none" || tool.changesUnreviewed === true) &&
                  deps.planRequired === true,
          })
        : null;
    if (modeRefusal) return refusalOf(modeRefusal);
    // Never run hooks for, or ask the user about, arguments that would be rejected anyway.
    if (!tool || !validInput(tool, call.input)) {
        return deps.tools.execute(call.name, call.input, ctx);
    }
    // A deny rule is final: no hook runs for the call and no "allow" can bring it back.
    const byName = rules?.forTool(call.name, tool.hookAliases ?? []);
    const nameRefusal = refusalBeforeHooks(call.name, { byName });
    if (nameRefusal) return refusalOf(nameRefusal);
    const hook = deps.preToolUse ? await deps.preToolUse(call, signal) : null;
    // Before the attempt, or an edit's preparation: a blocked call does nothing at all.
    const hookRefused = hookRefusal(hook);
    if (hookRefused) return refusalOf(hookRefused);
    if (tool.approvalPolicy === "none") return runListedTool(deps.tools, tool, call.input, ctx);
    if (tool.approvalPolicy === "shell") {
        return runShellCall(call, tool, ctx, signal, deps, hook, byName);
    }
    const prepared = await runListedTool(deps.tools, tool, call.input, ctx);
    if (!prepared.ok || !isPreparedWrite(prepared.data)) return prepared;
    return reviewPreparedWrite(
        prepared.data,
        { toolName: call.name, toolCallId: call.id, input: call.input },
        signal,
        deps,
        hook,
        byName
    );
}

function denyingRuleText(match: RuleMatch | undefined): string | undefined {
    return match?.decision === "deny" ? ruleLabel(match.rule) : undefined;
}

/**
 * A command, MCP call or web fetch: its requirement, settled by the driver,
 * then the attempt. The tool says what its review shows and what "always"
 * keeps (a definition without one: its name).
 */
async function runShellCall(
    call: ToolCallBlock,
    tool: AnyToolDefinition,
    ctx: ToolContext,
    signal: AbortSignal,
    deps: ToolExecutorDeps,
    hook: PreToolVerdict | null,
    byName: RuleMatch | undefined
): Promise<ToolResult> {
    const approval = tool.approval?.(call.input) ?? {
        summary: call.name,
        rememberKey: call.name,
    };
    // A removal in another North session's /permissions holds here before this check.
    deps.settings.refreshStanding?.();
    const requirement = await approvalRequirement(
        { kind: "shell", toolName: call.name, approval },
        { ...deps, hook, byName }
    );
    const { summary, command, cwd, sandbox, domain } = approval;
    const request = (): ApprovalRequest => ({
        id: `approval-${call.id}`,
        kind: "shell",
        toolName: call.name,
        toolCallId: call.id,
        input: call.input,
        summary,
        command,
        cwd,
        ...(requirement.kind === "needs-approval" ? requestFields(requirement, "shell") : {}),
        ...(sandbox !== undefined ? { sandbox } : {}),
        ...(domain !== undefined ? { domain } : {}),
    });
    const deniedBase =
        domain !== undefined ? "the user denied this fetch" : "the user denied this command";
    const settled = await settleApproval(requirement, request, deniedBase, signal, deps);
    if (!settled.run) return settled.refusal;
    deps.logger.info("shell_run_start", { approvedBy: settled.approvedBy });
    const result = await runListedTool(deps.tools, tool, call.input, ctx);
    deps.logger.info("shell_run_complete", { ok: result.ok });
    return result;
}
