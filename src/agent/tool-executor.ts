import type { ToolCallBlock, ToolSchema } from "../providers/types";
import type { Logger } from "../storage/logger";
import path from "node:path";
import {
    type PathRoots,
    type SafePath,
    protectedConfigFor,
    resolveWritablePath,
} from "../tools/path-guard";
import { judgeCommand, suggestPrefixRule } from "../tools/permissions/command-judge";
import {
    createWriteTargetJudge,
    denyingEditRuleOfWrite,
    protectedWriteOf,
} from "../tools/permissions/write-targets";
import type { PermissionRule, PermissionRules, RuleMatch } from "../tools/permissions/rules";
import type { CommandVerdict } from "../tools/permissions/types";
import type {
    AnyToolDefinition,
    FileCheckpointer,
    FileDiff,
    PreparedWrite,
    ToolContext,
    ToolResult,
} from "../tools/types";
import { isPreparedWrite, toolError, toolOk } from "../tools/types";
import { inputSchema } from "../tools/tool-input";
import type { ApprovalDecision, ApprovalRequest, ApprovalSettings, Approver } from "./approvals";
import type { EngineEvent } from "./events";
import { PLAN_REQUIRED_MESSAGE } from "./plan";

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

/** A PreToolUse hook's say: block the call, or allow / force-ask its approval. */
export interface PreToolVerdict {
    block?: { reason: string };
    permission?: { decision: "allow" | "ask"; reason?: string };
}

/** Whether the run accepts edits without review, and the switch an edit review's "all" turns on. */
export interface EditsMode {
    accepting(): boolean;
    acceptFromNowOn(): void;
}

export interface ToolExecutorDeps {
    /** Runs PreToolUse hooks; absent when none are configured. */
    preToolUse?: (call: ToolCallBlock, signal: AbortSignal) => Promise<PreToolVerdict | null>;
    /** Plan mode before a plan was accepted: changes and commands are refused. */
    planRequired?: boolean;
    /** The run's `accept-edits` mode; absent: edits are reviewed unless a setting accepts them. */
    editsMode?: EditsMode;
    tools: ToolRunner;
    approver: Approver;
    settings: ApprovalSettings;
    repoRoot: string;
    /** `--add-dir` directories paths may also lead into; absent: none. */
    addedRoots?: readonly string[];
    /** Keeps files' prior content before each edit lands (rewind). */
    checkpoint?: FileCheckpointer;
    logger: Logger;
    emit: (event: EngineEvent) => void;
}

function denied(message: string): ToolResult<never> {
    return { ok: false, error: { code: "denied", message } };
}

/** "Bash(rm:*) in /p/.north/settings.json": a rule as messages name it. */
function ruleLabel(rule: Pick<PermissionRule, "text" | "source">): string {
    return `${rule.text} (${rule.source})`;
}

function deniedByRule(what: string, rule: Pick<PermissionRule, "text" | "source">, after = "") {
    return denied(
        `${what} is denied by the permission rule ${ruleLabel(rule)}${after}; do not try to get around it: tell the user what you wanted to do and why`
    );
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
    const rules = deps.settings.permissionRules;
    const ctx: ToolContext = {
        repoRoot: deps.repoRoot,
        addedRoots: deps.addedRoots,
        signal,
        checkpoint: deps.checkpoint,
        onOutput: (text) => deps.emit({ type: "tool_output", id: call.id, name: call.name, text }),
        readDenial: rules ? (absPath) => rules.readDenial(absPath) : undefined,
        toolCallId: call.id,
        hostDenial: rules ? (host) => denyingRuleText(rules.forDomain(host)) : undefined,
    };
    if (tool && !allowedNames.has(call.name)) return notInMode(call.name);
    if (tool && tool.approvalPolicy !== "none" && deps.planRequired) {
        return { ok: false, error: { code: "plan_required", message: PLAN_REQUIRED_MESSAGE } };
    }
    // Never run hooks for, or ask the user about, arguments that would be rejected anyway.
    if (!tool || !validInput(tool, call.input)) {
        return deps.tools.execute(call.name, call.input, ctx);
    }
    // A deny rule is final: no hook runs for the call and no "allow" can bring it back.
    const byName = rules?.forTool(call.name, tool.hookAliases ?? []);
    if (byName?.decision === "deny") return deniedByRule(`${call.name}`, byName.rule);
    const verdict = deps.preToolUse ? await deps.preToolUse(call, signal) : null;
    if (verdict?.block) return denied(`blocked by a PreToolUse hook: ${verdict.block.reason}`);
    const forced = verdict?.permission?.decision;
    if (tool.approvalPolicy === "none") return runListedTool(deps.tools, tool, call.input, ctx);
    if (tool.approvalPolicy === "shell") {
        return runShellCall(call, tool, ctx, signal, deps, forced, byName);
    }
    return runWriteCall(call, tool, ctx, signal, deps, forced, byName);
}

function denyingRuleText(match: RuleMatch | undefined): string | undefined {
    return match?.decision === "deny" ? ruleLabel(match.rule) : undefined;
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
    forced?: "allow" | "ask",
    byName?: RuleMatch
): Promise<ToolResult> {
    // Commands and MCP calls share this review; the run's definition says what it shows and
    // what "always" keeps (a definition without one: its name).
    const approval = tool.approval;
    const { summary, rememberKey, command, cwd, sandbox, domain } = approval?.(call.input) ?? {
        summary: call.name,
        rememberKey: call.name,
    };
    const { settings } = deps;
    // A removal in another North session's /permissions holds here before this check.
    settings.refreshStanding?.();
    const ruled = await judgeShellByRules(deps, command, cwd, byName);
    if ("refusal" in ruled) return ruled.refusal;
    const byDomain = domain === undefined ? undefined : settings.permissionRules?.forDomain(domain);
    if (byDomain?.decision === "deny") return deniedByRule(`fetching ${summary}`, byDomain.rule);
    const askRule =
        ruled.askRule ?? (byDomain?.decision === "ask" ? ruleLabel(byDomain.rule) : undefined);
    const allowedBy =
        ruled.allowedBy ?? (byDomain?.decision === "allow" ? ruleLabel(byDomain.rule) : undefined);
    const mustAsk = askRule !== undefined || forced === "ask";
    let approvedBy = "user";
    if (!mustAsk && forced === "allow") approvedBy = "hook";
    else if (!mustAsk && settings.isShellAutoApproved()) approvedBy = "auto";
    else if (!mustAsk && allowedBy !== undefined) approvedBy = "rule";
    else if (!mustAsk && settings.isCommandAllowed(rememberKey)) approvedBy = "allowlist";
    else {
        const request: ApprovalRequest = {
            id: `approval-${call.id}`,
            kind: "shell",
            toolName: call.name,
            toolCallId: call.id,
            input: call.input,
            summary,
            command,
            cwd,
        };
        if (askRule !== undefined) request.askRule = askRule;
        if (sandbox !== undefined) request.sandbox = sandbox;
        if (domain !== undefined) request.domain = domain;
        const noStanding =
            ruled.forcedBy ??
            (command === undefined
                ? undefined
                : await protectedWriteOf(
                      command,
                      deps.repoRoot,
                      cwd ?? deps.repoRoot,
                      settings.permissionRules?.bases.home
                  ));
        if (noStanding !== undefined) request.noStanding = noStanding;
        if (settings.keepsLocalAnswers?.() === false) request.noLocalScope = true;
        const prefix =
            command === undefined || noStanding !== undefined
                ? null
                : await suggestPrefixRule(command);
        if (prefix !== null && prefix !== command) request.prefixRule = prefix;
        const answer = await ask(deps, request, signal);
        if (answer.outcome === "deny")
            return denied(answer.reason ?? "the user denied this command");
        // A front-end that offers no standing option cannot have one kept either.
        const decision: typeof answer = noStanding === undefined ? answer : { outcome: "approve" };
        // "Always" for a web host is a session rule, never a saved command.
        if (decision.remember === "exact" && domain !== undefined) {
            settings.permissionRules?.add("allow", rememberKey, "this session");
        } else if (decision.remember === "exact")
            settings.allowCommand(rememberKey, decision.scope);
        if (decision.remember === "prefix" && request.prefixRule !== undefined) {
            settings.allowCommandPattern?.(request.prefixRule, decision.scope);
        }
        if (decision.remember === "all") settings.approveAllCommandsForSession();
    }
    deps.logger.info("shell_run_start", { approvedBy });
    const result = await runListedTool(deps.tools, tool, call.input, ctx);
    deps.logger.info("shell_run_complete", { ok: result.ok });
    return result;
}

/**
 * The deny rule behind a judge's verdict, with its source: the `Bash(...)`
 * rule of the pattern that matched, or the Edit rule the write judge found
 * over the path a command writes.
 */
function denyRuleOf(
    rules: PermissionRules,
    commandRules: ReturnType<PermissionRules["commandRules"]>,
    verdict: Extract<CommandVerdict, { decision: "deny" }>
): Pick<PermissionRule, "text" | "source"> {
    const { deniedBy } = verdict;
    if (deniedBy.type === "command") {
        const rule = commandRules.ruleOf("deny", deniedBy.pattern);
        if (rule) return rule;
    } else {
        const match = denyingEditRuleOfWrite(rules, deniedBy.path, deniedBy.cwd);
        if (match) return match.rule;
    }
    // A pattern matched against a rule's glob: the verdict names that rule as written.
    const named = rules
        .list()
        .find((r) => r.kind === "deny" && r.active() && r.text === verdict.rule);
    return named ?? { text: verdict.rule, source: "permission rules" };
}

/**
 * The rules' say on a shell-policy call: its name's rule (a bare `Bash`, an
 * MCP server), then, for a command, the judge over the `Bash(...)` patterns.
 * A refusal names the deny rule; `askRule` forces the review.
 */
async function judgeShellByRules(
    deps: Pick<ToolExecutorDeps, "settings" | "repoRoot">,
    command: string | undefined,
    cwd: string | undefined,
    byName: RuleMatch | undefined
): Promise<
    { refusal: ToolResult<never> } | { askRule?: string; allowedBy?: string; forcedBy?: string }
> {
    let askRule = byName?.decision === "ask" ? ruleLabel(byName.rule) : undefined;
    let allowedBy = byName?.decision === "allow" ? ruleLabel(byName.rule) : undefined;
    const rules: PermissionRules | undefined = deps.settings.permissionRules;
    // Without Bash patterns or Edit deny/ask rules the judge could only say "ask": skip the parse.
    if (command === undefined || !rules?.judgesCommands()) return { askRule, allowedBy };
    const commandRules = rules.commandRules();
    const verdict = await judgeCommand(
        command,
        commandRules,
        createWriteTargetJudge(deps.repoRoot, deps.settings),
        {
            cwd: cwd ?? deps.repoRoot,
            home: rules.bases.home,
            editDenyGlobs: rules.pathGlobs("deny", "edit"),
        }
    );
    if (verdict.decision === "deny") {
        const rule = denyRuleOf(rules, commandRules, verdict);
        return { refusal: deniedByRule(`\`${command}\``, rule, ` (${verdict.reason})`) };
    }
    if (verdict.decision === "ask" && verdict.forced) {
        askRule ??= verdict.reason;
        return { askRule, allowedBy, forcedBy: verdict.reason };
    }
    if (verdict.decision === "allow") allowedBy ??= "Bash rules";
    return { askRule, allowedBy };
}

async function runWriteCall(
    call: ToolCallBlock,
    tool: AnyToolDefinition,
    ctx: ToolContext,
    signal: AbortSignal,
    deps: ToolExecutorDeps,
    forced?: "allow" | "ask",
    byName?: RuleMatch
): Promise<ToolResult> {
    const prepared = await runListedTool(deps.tools, tool, call.input, ctx);
    if (!prepared.ok || !isPreparedWrite(prepared.data)) return prepared;
    return reviewPreparedWrite(
        prepared.data,
        { toolName: call.name, toolCallId: call.id, input: call.input },
        signal,
        deps,
        forced,
        byName
    );
}

/** A diff of a change with where it would land, resolved from the disk. */
interface ResolvedTarget {
    diff: FileDiff;
    safe: SafePath;
}

/**
 * Where a prepared write would land: an error when a path is (now) outside
 * the project or in git's internals, else each diff with its resolved path.
 */
async function resolveTargets(
    roots: PathRoots,
    diffs: readonly FileDiff[]
): Promise<ToolResult<ResolvedTarget[]>> {
    const targets: ResolvedTarget[] = [];
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

/** The diffs' paths that are protected configuration. */
function protectedPathsOf(repoRoot: string, targets: readonly ResolvedTarget[]): string[] {
    return targets.flatMap(({ diff, safe }) =>
        protectedConfigFor(repoRoot, safe) ? [diff.path] : []
    );
}

/**
 * The Edit rules over every file of a change (the path as written and where
 * its links lead): a refusal naming the deny rule, the ask rule that forces
 * the review, or whether allow rules cover every file.
 */
function judgeEditRules(
    rules: PermissionRules | undefined,
    repoRoot: string,
    targets: readonly ResolvedTarget[]
): { refusal: ToolResult<never> } | { askRule?: string; allAllowed: boolean } {
    if (!rules) return { allAllowed: false };
    let askRule: string | undefined;
    let allAllowed = targets.length > 0;
    for (const { diff, safe } of targets) {
        const paths = [path.join(repoRoot, diff.path), safe.realPath];
        const matches = paths.map((p) => rules.forPath("edit", p));
        const deny = matches.find((m) => m?.decision === "deny");
        if (deny) {
            return {
                refusal: deniedByRule(`editing ${diff.path}`, deny.rule, "; nothing was written"),
            };
        }
        const asked = matches.find((m) => m?.decision === "ask");
        if (asked) askRule ??= ruleLabel(asked.rule);
        // A link out of an allowed folder is allowed only where it leads is allowed too.
        if (!matches.every((m) => m?.decision === "allow")) allAllowed = false;
    }
    return { askRule, allAllowed };
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
    deps: Pick<
        ToolExecutorDeps,
        "approver" | "settings" | "logger" | "emit" | "repoRoot" | "editsMode"
    >,
    forced?: "allow" | "ask",
    byName?: RuleMatch
): Promise<ToolResult> {
    const targets = await resolveTargets(deps, change.diffs);
    if (!targets.ok) return refuse(change, targets);
    const protectedPaths = protectedPathsOf(deps.repoRoot, targets.data);
    const ruled = judgeEditRules(deps.settings.permissionRules, deps.repoRoot, targets.data);
    if ("refusal" in ruled) return refuse(change, ruled.refusal);
    const askRule =
        ruled.askRule ?? (byName?.decision === "ask" ? ruleLabel(byName.rule) : undefined);
    const mustAsk = forced === "ask" || askRule !== undefined;
    const allowedByRule = ruled.allAllowed || byName?.decision === "allow";
    const autoAccepted =
        protectedPaths.length > 0
            ? !mustAsk && deps.settings.areProtectedEditsAllowed?.() === true
            : !mustAsk &&
              (forced === "allow" ||
                  allowedByRule ||
                  deps.editsMode?.accepting() === true ||
                  deps.settings.isEditsAutoAccepted());
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
        if (askRule !== undefined) request.askRule = askRule;
        const decision = await ask(deps, request, signal);
        if (decision.outcome === "deny") {
            return refuse(
                change,
                denied(decision.reason ?? "the user rejected this edit; nothing was written")
            );
        }
        if (decision.remember === "all" && protectedPaths.length === 0)
            deps.editsMode?.acceptFromNowOn();
    }
    // The review may have been open for a while: a path swapped meanwhile must not
    // land outside, in .git, or on a protected file nobody reviewed as such.
    const again = await resolveTargets(deps, change.diffs);
    if (!again.ok) return refuse(change, again);
    const unreviewed = protectedPathsOf(deps.repoRoot, again.data).filter(
        (p) => !protectedPaths.includes(p)
    );
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
