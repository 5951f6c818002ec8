/**
 * Runs the hooks that match an event, in parallel, and merges what they said
 * into one `HookOutcome`. Exit codes and JSON output follow Claude Code:
 * 0 → success (stdout may be JSON with decisions), 2 → block with stderr as
 * the reason, anything else → a non-blocking warning.
 */
import { PROVIDER_SECRET_ENV, childEnv } from "../../util/child-env";
import { MAX_HOOK_CONTEXT_CHARS } from "../../tools/limits";
import { runHookProcess, type HookProcessResult } from "./exec";
import {
    type CommandHook,
    emptyHookOutcome,
    type HookEvent,
    type HookGroup,
    type HookInput,
    type HookOutcome,
    type HookSettings,
} from "./types";

export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/** Claude Code's names for a tool (`Bash`, `Edit`…), so matchers in `.claude/settings.json` keep working. */
export type ToolAliases = (toolName: string) => readonly string[];

/** No tool has other names (events without a tool, tests). */
const NO_ALIASES: ToolAliases = () => [];

/** The aliases the run's tools declare on their definitions; none for a tool it does not have. */
export function toolAliasesOf(tools: {
    list(): ReadonlyArray<{ name: string; hookAliases?: readonly string[] }>;
}): ToolAliases {
    return (name) => tools.list().find((tool) => tool.name === name)?.hookAliases ?? [];
}

/** Events whose exit code 2 / `decision: "block"` can stop something. */
const BLOCKING_EVENTS = new Set<HookEvent>([
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
]);
/** Events whose plain stdout becomes context for the model. */
const STDOUT_CONTEXT_EVENTS = new Set<HookEvent>(["UserPromptSubmit", "SessionStart"]);

export interface RunHooksOptions {
    /** Working directory of the hooks and the payload's `cwd` (the project root). */
    cwd: string;
    signal?: AbortSignal;
    /** Base environment; default `process.env`. `CLAUDE_PROJECT_DIR` and `NORTH_PROJECT_DIR` are added. */
    env?: Record<string, string | undefined>;
    /** Variables removed from `env` (provider keys); default the built-in ones. */
    hiddenEnv?: readonly string[];
    /** Default `cwd`. */
    projectDir?: string;
    /** For hooks without their own `timeout`. Default 60 s. */
    defaultTimeoutMs?: number;
    /** The run's tools' Claude Code names (`toolAliasesOf`); default none. */
    toolAliases?: ToolAliases;
}

/** What a matcher is compared with: the tool for tool events, else the event's sub-kind. */
function matchTarget(event: HookEvent, input: Record<string, unknown>): string | undefined {
    const field =
        event === "PreToolUse" || event === "PostToolUse"
            ? "tool_name"
            : event === "SessionStart"
              ? "source"
              : event === "PreCompact"
                ? "trigger"
                : event === "SessionEnd"
                  ? "reason"
                  : event === "Notification"
                    ? "notification_type"
                    : undefined;
    const value = field ? input[field] : undefined;
    return typeof value === "string" ? value : undefined;
}

/**
 * `""`, `"*"` or no target → match. `A|B` (names only) → exact match of the
 * target or one of its Claude Code aliases. Anything else → a regex that must
 * match the whole name (`mcp__github__.*`, `Notebook.*`).
 */
export function matcherMatches(
    matcher: string,
    target: string | undefined,
    aliases: ToolAliases = NO_ALIASES
): boolean {
    if (matcher === "" || matcher === "*" || target === undefined) return true;
    const names = [target, ...aliases(target)];
    if (/^[A-Za-z0-9_|-]+$/.test(matcher)) {
        const wanted = matcher.split("|");
        return names.some((name) => wanted.includes(name));
    }
    try {
        const regex = new RegExp(`^(?:${matcher})$`);
        return names.some((name) => regex.test(name));
    } catch {
        return false;
    }
}

/** Hooks that would run for this event (and tool), deduplicated by command. */
export function matchingHooks(
    settings: HookSettings,
    event: HookEvent,
    target?: string,
    aliases?: ToolAliases
): Array<{ hook: CommandHook; source: string; group: HookGroup }> {
    const seen = new Set<string>();
    const out: Array<{ hook: CommandHook; source: string; group: HookGroup }> = [];
    for (const group of settings[event] ?? ([] as HookGroup[])) {
        if (!matcherMatches(group.matcher, target, aliases)) continue;
        for (const hook of group.hooks) {
            if (seen.has(hook.command)) continue;
            seen.add(hook.command);
            out.push({ hook, source: group.source, group });
        }
    }
    return out;
}

/** The hooks whose project is still trusted; the others are named in `warnings`, once per file. */
function trustedHooks<T extends { source: string; group: HookGroup }>(
    matched: T[],
    warnings: string[]
): T[] {
    const verdicts = new Map<HookGroup["stillTrusted"], boolean>();
    /** Source → the plugin it belongs to ("" for a project's file). */
    const skipped = new Map<string, string>();
    const kept = matched.filter(({ source, group }) => {
        const check = group.stillTrusted;
        if (check === undefined) return true;
        if (!verdicts.has(check)) verdicts.set(check, check());
        if (verdicts.get(check)) return true;
        skipped.set(source, group.plugin ?? "");
        return false;
    });
    for (const [source, plugin] of skipped) {
        warnings.push(
            plugin !== ""
                ? `${source}: its hooks did not run: plugin ${plugin} is disabled, removed or changed since you approved it`
                : `${source}: its hooks did not run: the project's configuration or a script it runs changed since you trusted it (North asks again at the next start)`
        );
    }
    return kept;
}

/** Cheap check before building a payload. */
export function hasHooks(
    settings: HookSettings,
    event: HookEvent,
    target?: string,
    aliases?: ToolAliases
): boolean {
    return matchingHooks(settings, event, target, aliases).length > 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

function capContext(text: string): string {
    return text.length <= MAX_HOOK_CONTEXT_CHARS
        ? text
        : `${text.slice(0, MAX_HOOK_CONTEXT_CHARS)}\n[hook output cut at ${MAX_HOOK_CONTEXT_CHARS} characters]`;
}

function short(command: string): string {
    const line = command.trim().split("\n")[0] ?? "";
    return line.length <= 80 ? line : `${line.slice(0, 79)}…`;
}

function str(value: unknown): string | undefined {
    return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

interface Verdict {
    block?: string;
    permission?: { decision: "allow" | "ask"; reason?: string };
    stop?: string;
    context?: string;
    systemMessage?: string;
    warning?: string;
}

/** Reads a hook's JSON stdout (exit 0). */
function readJsonOutput(event: HookEvent, json: Record<string, unknown>): Verdict {
    const verdict: Verdict = {};
    const specific = isRecord(json.hookSpecificOutput) ? json.hookSpecificOutput : {};
    if (json.continue === false) verdict.stop = str(json.stopReason) ?? "stopped by a hook";
    if (json.decision === "block") verdict.block = str(json.reason) ?? "blocked by a hook";
    if (event === "PreToolUse") {
        const reason = str(specific.permissionDecisionReason) ?? str(json.reason);
        const decision = specific.permissionDecision;
        if (decision === "deny") verdict.block = reason ?? "denied by a hook";
        else if (decision === "ask") verdict.permission = { decision: "ask", reason };
        else if (decision === "allow" || json.decision === "approve") {
            verdict.permission = { decision: "allow", reason };
        }
    }
    const context = str(specific.additionalContext);
    if (context) verdict.context = context;
    const message = str(json.systemMessage);
    if (message) verdict.systemMessage = message;
    return verdict;
}

function interpret(event: HookEvent, command: string, run: HookProcessResult): Verdict {
    const name = short(command);
    if (run.spawnError) return { warning: `hook "${name}" could not start: ${run.spawnError}` };
    if (run.aborted) return { warning: `hook "${name}" was cancelled` };
    if (run.timedOut) {
        return {
            warning: `hook "${name}" timed out after ${(run.durationMs / 1000).toFixed(1)} s and was killed`,
        };
    }
    const stderr = run.stderr.trim();
    if (run.exitCode === 2) {
        return { block: stderr || `blocked by hook "${name}" (exit code 2, no message)` };
    }
    if (run.exitCode !== 0) {
        const why = run.exitCode === null ? "was killed" : `exited with code ${run.exitCode}`;
        return { warning: `hook "${name}" ${why}${stderr ? `: ${stderr.slice(0, 500)}` : ""}` };
    }
    const stdout = run.stdout.trim();
    if (stdout.startsWith("{")) {
        let json: unknown;
        try {
            json = JSON.parse(stdout);
        } catch (error) {
            return {
                warning: `hook "${name}" printed invalid JSON (${(error as Error).message}); its output was ignored`,
            };
        }
        if (isRecord(json)) return readJsonOutput(event, json);
    }
    if (stdout && STDOUT_CONTEXT_EVENTS.has(event)) return { context: stdout };
    return {};
}

function merge(event: HookEvent, outcome: HookOutcome, verdict: Verdict): void {
    if (verdict.warning) outcome.warnings.push(verdict.warning);
    if (verdict.systemMessage) outcome.systemMessages.push(verdict.systemMessage);
    if (verdict.context) outcome.additionalContext.push(capContext(verdict.context));
    if (verdict.stop && !outcome.stop) outcome.stop = { reason: verdict.stop };
    if (verdict.block) {
        if (!BLOCKING_EVENTS.has(event)) outcome.systemMessages.push(verdict.block);
        else if (outcome.block) outcome.block.reason += `\n${verdict.block}`;
        else outcome.block = { reason: verdict.block };
    }
    if (verdict.permission && outcome.permission?.decision !== "ask") {
        outcome.permission = verdict.permission;
    }
}

/**
 * Runs every hook matching `event` (and, for tool events, `input.tool_name`)
 * in parallel with the event JSON on stdin, and merges their answers. Never
 * throws; with no matching hook it returns at once without spawning anything.
 */
export async function runHooks<E extends HookEvent>(
    settings: HookSettings,
    event: E,
    input: HookInput<E>,
    options: RunHooksOptions
): Promise<HookOutcome> {
    const record = input as unknown as Record<string, unknown>;
    const outcome = emptyHookOutcome();
    const hooks = trustedHooks(
        matchingHooks(settings, event, matchTarget(event, record), options.toolAliases),
        outcome.warnings
    );
    if (hooks.length === 0) return outcome;

    const payload = JSON.stringify({
        transcript_path: "",
        ...record,
        cwd: options.cwd,
        hook_event_name: event,
    });
    const projectDir = options.projectDir ?? options.cwd;
    const env = childEnv(options.env ?? process.env, options.hiddenEnv ?? PROVIDER_SECRET_ENV, {
        CLAUDE_PROJECT_DIR: projectDir,
        NORTH_PROJECT_DIR: projectDir,
    });

    const runs = await Promise.all(
        hooks.map(({ hook, group }) =>
            runHookProcess(hook.command, payload, {
                cwd: options.cwd,
                env: group.env ? { ...env, ...group.env } : env,
                timeoutMs:
                    hook.timeout !== undefined
                        ? hook.timeout * 1000
                        : (options.defaultTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS),
                signal: options.signal,
            })
        )
    );
    runs.forEach((run, index) => {
        const { hook, source } = hooks[index] as { hook: CommandHook; source: string };
        outcome.runs.push({
            command: hook.command,
            source,
            exitCode: run.exitCode,
            durationMs: run.durationMs,
            timedOut: run.timedOut,
        });
        merge(event, outcome, interpret(event, hook.command, run));
    });
    if (outcome.block && outcome.permission) delete outcome.permission;
    return outcome;
}
