/**
 * Background processes in print mode, stream-json and the Node API: their
 * events and results as snake_case objects, the end of a run stopping what it
 * left running (nothing outlives `north -p`), and password prompts, which
 * nobody can type in print mode, declined with a message.
 */
import type { EngineEvent, RunResult } from "../agent/events";
import type { EngineHostPort } from "../agent/protocol";
import type { ProcessInfo, ProcessNotice } from "../tools/processes/types";

/** A process as stream-json, `json` results and the Node API show it. */
export function processObject(info: ProcessInfo): Record<string, unknown> {
    return {
        id: info.id,
        command: info.command,
        cwd: info.cwd,
        tty: info.tty,
        sandboxed: info.sandboxed,
        ...(info.pid !== undefined ? { pid: info.pid } : {}),
        state: info.state,
        ...(info.exitCode !== undefined ? { exit_code: info.exitCode } : {}),
        ...(info.signal !== undefined ? { signal: info.signal } : {}),
        ...(info.stopped !== undefined ? { stopped: info.stopped } : {}),
        started_at: info.startedAt,
        ...(info.endedAt !== undefined ? { ended_at: info.endedAt } : {}),
        output_bytes: info.outputBytes,
        ...(info.spillPath !== undefined ? { spill_path: info.spillPath } : {}),
        origin: info.origin,
    };
}

export function processNoticeObject(notice: ProcessNotice): Record<string, unknown> {
    return {
        kind: notice.kind,
        process: processObject(notice.process),
        ...(notice.pattern !== undefined ? { pattern: notice.pattern } : {}),
        lines: notice.lines,
    };
}

/** The `secret_request` line a stream-json client answers with a `secret_response`. */
export function secretRequestLine(
    event: Extract<EngineEvent, { type: "secret_request" }>
): Record<string, unknown> {
    return {
        type: "secret_request",
        id: event.requestId,
        process: processObject(event.process),
        prompt: event.prompt,
    };
}

/** "exited with code 1", "ended by SIGTERM", "stopped", "running". */
export function processEnding(info: ProcessInfo): string {
    if (info.state === "running") return "running";
    if (info.stopped) return "stopped";
    if (info.exitCode !== undefined && info.exitCode !== null)
        return `exited with code ${info.exitCode}`;
    return info.signal ? `ended by ${info.signal}` : "ended";
}

/** Text mode's progress line for a process event (stderr, on a terminal). */
export function processProgressLine(event: Extract<EngineEvent, { type: "process" }>): string {
    const { process } = event;
    return event.change === "started"
        ? `⚙ ${process.id} started in the background: ${process.command}\n`
        : `⚙ ${process.id} ${processEnding(process)}: ${process.command}\n`;
}

/** What text mode says on stderr about the processes the end of the run stopped; "" for none. */
export function stoppedProcessesText(stopped: readonly ProcessInfo[]): string {
    if (stopped.length === 0) return "";
    const names = stopped.map((p) => `${p.id} (${p.command})`).join(", ");
    const noun = stopped.length === 1 ? "background process" : "background processes";
    return `north: the run ended, so North stopped its ${noun} ${names}\n`;
}

/**
 * Stops every process still running (they must not outlive the run) and
 * gives the final state of each process the host knows, and of those it
 * stopped.
 */
export async function stopRunningProcesses(
    host: EngineHostPort
): Promise<{ stopped: ProcessInfo[]; all: ProcessInfo[] }> {
    const running = (await host.submit({ type: "processes" })).filter((p) => p.state === "running");
    await Promise.all(running.map((p) => host.submit({ type: "stop_process", id: p.id })));
    const all = await host.submit({ type: "processes" });
    const ids = new Set(running.map((p) => p.id));
    // One that ended by itself meanwhile was not stopped by North.
    return { stopped: all.filter((p) => ids.has(p.id) && p.stopped === true), all };
}

/** The run's result with its processes as they are now (after the end of the run stopped them). */
export function withFinalProcesses(result: RunResult, now: readonly ProcessInfo[]): RunResult {
    if (!result.processes || result.processes.length === 0) return result;
    const latest = new Map(now.map((p) => [p.id, p]));
    return { ...result, processes: result.processes.map((p) => latest.get(p.id) ?? p) };
}

/** What a declined password prompt was; `why` says why nobody could answer it. */
export function declinedSecretText(
    event: Extract<EngineEvent, { type: "secret_request" }>,
    why: string
): string {
    return `${event.process.id} (${event.process.command}) asks for a password ("${event.prompt}"); ${why}`;
}

export const PRINT_MODE_SECRET_REFUSAL =
    "print mode cannot ask anyone, so it was declined. Run it in the chat (north) to type it there.";

/**
 * Declines every password prompt at once (nobody can type one), saying so
 * through `warn`; returns the unsubscribe.
 */
export function declineSecrets(
    host: EngineHostPort,
    warn: (message: string) => void,
    why = PRINT_MODE_SECRET_REFUSAL
): () => void {
    return host.subscribe((event) => {
        if (event.type !== "secret_request") return;
        warn(declinedSecretText(event, why));
        void host.submit({ type: "secret_answer", requestId: event.requestId, secret: null });
    });
}
