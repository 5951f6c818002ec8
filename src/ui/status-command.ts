/**
 * Claude Code's `statusLine` command: run with the session as JSON on stdin,
 * the first line it prints is shown in the status line (its colours kept,
 * every other control sequence removed). It runs when something it could
 * show changed (a turn ended, the mode or model changed), at most every
 * 300 ms, with a time limit; never on a timer while nothing happens. A
 * failure shows a short note in its place and never stops the chat.
 */
import { type HookProcessResult, runHookProcess } from "../agent/hooks/exec";

/** What Claude Code's scripts read from stdin (the fields North knows). */
export interface StatusLineInput {
    hook_event_name: "Status";
    session_id: string;
    cwd: string;
    model: { id: string; display_name: string };
    workspace: { current_dir: string; project_dir: string };
    version: string;
    output_style: { name: string };
    cost: { total_cost_usd: number | null };
    context_window: {
        context_window_size: number;
        used_tokens: number;
        used_percentage: number;
    };
    /** North's own: the chat's mode. */
    mode: string;
}

export interface StatusFacts {
    sessionId: string;
    repoRoot: string;
    cwd: string;
    model: { id: string; display: string };
    version: string;
    costUsd: number | null;
    contextUsedTokens: number;
    contextLimitTokens: number;
    mode: string;
}

export function statusLineInput(facts: StatusFacts): StatusLineInput {
    const percent =
        facts.contextLimitTokens > 0
            ? Math.round((facts.contextUsedTokens / facts.contextLimitTokens) * 100)
            : 0;
    return {
        hook_event_name: "Status",
        session_id: facts.sessionId,
        cwd: facts.cwd,
        model: { id: facts.model.id, display_name: facts.model.display },
        workspace: { current_dir: facts.cwd, project_dir: facts.repoRoot },
        version: facts.version,
        output_style: { name: "default" },
        cost: { total_cost_usd: facts.costUsd },
        context_window: {
            context_window_size: facts.contextLimitTokens,
            used_tokens: facts.contextUsedTokens,
            used_percentage: percent,
        },
        mode: facts.mode,
    };
}

/* eslint-disable no-control-regex -- control sequences are what is filtered */
/** A colour (SGR) sequence: the one kind kept. */
const COLOUR = /(\x1b\[[0-9;]*m)/;
/** Any other escape sequence (CSI, OSC, a lone ESC pair) or control character. */
const CONTROL = /\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07?|.)?|[\x00-\x1f\x7f-\x9f]/g;
/* eslint-enable no-control-regex */

/** The first non-empty line, with colour (SGR) sequences kept and every other control removed. */
export function statusLineText(stdout: string): string {
    const line = stdout.split(/\r?\n/).find((l) => l.trim() !== "") ?? "";
    return line
        .split(COLOUR)
        .map((piece, i) => (i % 2 === 1 ? piece : piece.replace(CONTROL, "")))
        .join("")
        .slice(0, 1000);
}

/** Time a status-line command may take. */
export const STATUS_COMMAND_TIMEOUT_MS = 5_000;
/** Claude Code runs it at most this often. */
export const STATUS_COMMAND_MIN_INTERVAL_MS = 300;

export interface StatusCommandOptions {
    command: string;
    cwd: string;
    env: Record<string, string>;
    input(): StatusLineInput;
    /** The line to show, or a short note when the command failed. */
    show(line: string): void;
}

export interface StatusCommand {
    /** Something shown may have changed: run again (coalesced). */
    request(): void;
    dispose(): void;
}

/** What the status line shows for one run of the command. */
function lineOf(result: HookProcessResult): string {
    if (result.spawnError !== undefined) return `status line: ${result.spawnError}`;
    if (result.timedOut) return "status line: the command took too long";
    return result.exitCode === 0
        ? statusLineText(result.stdout)
        : `status line: the command failed (exit ${result.exitCode ?? "signal"})`;
}

export function createStatusCommand(options: StatusCommandOptions): StatusCommand {
    let running = false;
    let again = false;
    let lastStart = -Infinity;
    let timer: NodeJS.Timeout | null = null;
    let disposed = false;
    let stop: AbortController | null = null;

    const finish = (line: string): void => {
        running = false;
        stop = null;
        if (!disposed) options.show(line);
        if (again) {
            again = false;
            schedule();
        }
    };

    // Run as a hook is (its own process group, stdin, time limit): the same runner.
    const run = (): void => {
        timer = null;
        if (disposed) return;
        running = true;
        lastStart = Date.now();
        const abort = new AbortController();
        stop = abort;
        void runHookProcess(options.command, JSON.stringify(options.input()), {
            cwd: options.cwd,
            env: options.env,
            timeoutMs: STATUS_COMMAND_TIMEOUT_MS,
            signal: abort.signal,
        }).then((result) => finish(lineOf(result)));
    };

    function schedule(): void {
        if (disposed || timer !== null) return;
        if (running) {
            again = true;
            return;
        }
        const wait = Math.max(0, lastStart + STATUS_COMMAND_MIN_INTERVAL_MS - Date.now());
        timer = setTimeout(run, wait);
    }

    return {
        request: schedule,
        dispose() {
            disposed = true;
            if (timer !== null) clearTimeout(timer);
            stop?.abort();
        },
    };
}
