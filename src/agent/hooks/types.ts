/**
 * Hook types in Claude Code's settings schema:
 *
 *     {"hooks": {"PreToolUse": [{"matcher": "Edit|Write",
 *                                "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}}
 *
 * Payload field names are Claude Code's (snake_case), because hook scripts
 * written for it read them from stdin.
 */

export const HOOK_EVENTS = [
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
] as const;

export type HookEvent = (typeof HOOK_EVENTS)[number];

export interface CommandHook {
    type: "command";
    command: string;
    /** Seconds; default 60. */
    timeout?: number;
}

export interface HookGroup {
    /** As written: "" or "*" or absent matches everything; `A|B` names; otherwise a regex. */
    matcher: string;
    hooks: CommandHook[];
    /** The settings file it came from, for messages. */
    source: string;
    /**
     * A project's hooks: whether the project's files, and the scripts they
     * run, are still as the user trusted them. Asked before each run; false skips them.
     */
    stillTrusted?: () => boolean;
    /** Added to the hook's environment: a plugin's `CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA`. */
    env?: Record<string, string>;
    /** The plugin (`name@marketplace`) the hooks came from. */
    plugin?: string;
}

export type HookSettings = Partial<Record<HookEvent, HookGroup[]>>;

/** Fields every event carries; `cwd` and `hook_event_name` are filled in by the runner. */
export interface HookCommonInput {
    session_id: string;
    /** Path of the conversation file; may be "". */
    transcript_path?: string;
    permission_mode?: string;
}

export interface HookEventInputs {
    PreToolUse: { tool_name: string; tool_input: unknown; tool_use_id?: string };
    PostToolUse: {
        tool_name: string;
        tool_input: unknown;
        tool_response: unknown;
        tool_use_id?: string;
    };
    UserPromptSubmit: { prompt: string };
    /** `stop_hook_active`: true when the model is already continuing because of a Stop hook. */
    Stop: { stop_hook_active: boolean };
    SessionStart: { source: "startup" | "resume" | "clear" | "compact" };
    SessionEnd: { reason: "clear" | "logout" | "prompt_input_exit" | "other" | string };
    PreCompact: { trigger: "manual" | "auto"; custom_instructions: string };
    Notification: { message: string; title?: string; notification_type?: string };
}

export type HookInput<E extends HookEvent> = HookCommonInput & HookEventInputs[E];

/** What one hook command did, for logs and `/hooks`-style displays. */
export interface HookRunRecord {
    command: string;
    source: string;
    /** null when it was killed or never started. */
    exitCode: number | null;
    durationMs: number;
    timedOut: boolean;
}

/**
 * The merged answer of every hook that ran for one event.
 *
 * - `block`: the hooks said no (exit 2 with stderr as the reason, `decision: "block"`, or
 *   `permissionDecision: "deny"`). PreToolUse → do not run the tool, tell the model the
 *   reason; PostToolUse → give the reason to the model; UserPromptSubmit → drop the prompt,
 *   show the reason to the user; Stop → do not stop, send the reason as the next instruction.
 *   Other events cannot block: their exit-2 stderr arrives in `systemMessages`.
 * - `permission`: PreToolUse only, when not blocked: "allow" skips the approval prompt,
 *   "ask" forces it even if an allowlist or auto-approve would skip it ("ask" beats "allow").
 * - `stop`: `continue: false`: end the run now with this reason (shown to the user).
 * - `additionalContext`: text for the model (JSON `additionalContext`, or plain stdout of
 *   UserPromptSubmit and SessionStart hooks).
 * - `systemMessages`: notes for the user.
 * - `warnings`: non-blocking failures (exit codes other than 0 and 2, timeouts, invalid
 *   JSON output), for the user or the log.
 */
export interface HookOutcome {
    block?: { reason: string };
    permission?: { decision: "allow" | "ask"; reason?: string };
    stop?: { reason: string };
    additionalContext: string[];
    systemMessages: string[];
    warnings: string[];
    runs: HookRunRecord[];
}

export function emptyHookOutcome(): HookOutcome {
    return { additionalContext: [], systemMessages: [], warnings: [], runs: [] };
}
