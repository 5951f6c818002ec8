/**
 * Background processes in the editor: each one is a tool call of its own
 * (`process-p1`), `in_progress` while it runs and `completed` or `failed`
 * once it ended, so the editor lists it beside the call that started it. A
 * process in one of the editor's terminals shows that terminal (its live
 * output, kept after the exit); one in North's own shell shows its last lines
 * when it ends. These come whenever the process changes, also between turns.
 *
 * A password prompt is declined: ACP has no input made for secrets (its
 * elicitation forms have no masked field, and their answers travel as plain
 * JSON that clients may log), and a permission request only offers buttons.
 * The user is told to type it in a terminal of their own.
 */
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { EngineEvent } from "../../agent/events";
import type { EngineHostPort } from "../../agent/protocol";
import { processEnding } from "../../headless/print-processes";
import { recordedProcesses } from "../../agent/host/resumed-processes";
import type { ProcessInfo } from "../../tools/processes/types";
import { commandContent, tailOf, textContent } from "./tool-call-view";

/** A process's last lines shown when it ends (North's own shell; an editor terminal shows itself). */
const LAST_LINES = 20;

export function processToolCallId(id: string): string {
    return `process-${id}`;
}

function processTitle(info: ProcessInfo): string {
    const state = info.state === "running" ? "background" : processEnding(info);
    return `${info.id}: ${info.command} (${state})`;
}

/** Where it runs, in words: the start of its card. */
function placeText(info: ProcessInfo): string {
    const where = info.terminalId !== undefined ? "in the editor's terminal" : "in North's shell";
    const pid = info.pid !== undefined ? `, pid ${info.pid}` : "";
    const tty = info.tty ? ", in a terminal North drives" : "";
    return `Runs in the background ${where}${pid}${tty}, in ${info.cwd}.`;
}

function startedUpdate(info: ProcessInfo): SessionUpdate {
    const content: ToolCallContent[] =
        info.terminalId !== undefined
            ? [{ type: "terminal", terminalId: info.terminalId }]
            : [commandContent(info.command, ""), textContent(placeText(info))];
    return {
        sessionUpdate: "tool_call",
        toolCallId: processToolCallId(info.id),
        title: processTitle(info),
        kind: "execute",
        status: "in_progress",
        rawInput: { command: info.command, cwd: info.cwd },
        content,
    };
}

function exitedUpdate(info: ProcessInfo, lastLines: string | null): SessionUpdate {
    const failed = !info.stopped && info.exitCode !== 0;
    const content: ToolCallContent[] =
        info.terminalId !== undefined
            ? [{ type: "terminal", terminalId: info.terminalId }]
            : [commandContent(info.command, lastLines === null ? "" : tailOf(lastLines))];
    return {
        sessionUpdate: "tool_call_update",
        toolCallId: processToolCallId(info.id),
        title: processTitle(info),
        status: failed ? "failed" : "completed",
        content,
        rawOutput: {
            exitCode: info.exitCode ?? null,
            signal: info.signal ?? null,
            stopped: info.stopped === true,
        },
    };
}

/**
 * A loaded session's background processes (session/load), each as its tool
 * call in its last recorded state. One recorded as running ended with the
 * North that ran it: North stops its processes when it exits, and nothing
 * is started again.
 */
export function replayedProcessUpdates(
    view: ReadonlyArray<Record<string, unknown>>
): SessionUpdate[] {
    return recordedProcesses(view).map((info) => {
        const ended: ProcessInfo =
            info.state === "running" ? { ...info, state: "exited", stopped: true } : info;
        const title =
            info.state === "running"
                ? `${info.id}: ${info.command} (ended with the North that ran it)`
                : processTitle(ended);
        return {
            sessionUpdate: "tool_call",
            toolCallId: processToolCallId(info.id),
            title,
            kind: "execute",
            status: !ended.stopped && ended.exitCode !== 0 ? "failed" : "completed",
            rawInput: { command: info.command, cwd: info.cwd },
            content: [commandContent(info.command, "")],
        };
    });
}

export function secretDeclinedText(
    event: Extract<EngineEvent, { type: "secret_request" }>
): string {
    return (
        `⚠ ${event.process.id} (${event.process.command}) asks for a password ("${event.prompt}"). ` +
        "The editor has no field made for secrets, so North declined it: run the command in a terminal of your own to type it there."
    );
}

/**
 * Sends each process change of the session as a tool call (see above) and
 * declines password prompts; returns the unsubscribe.
 */
export function reportProcesses(
    host: EngineHostPort,
    send: (update: SessionUpdate) => void
): () => void {
    return host.subscribe((event) => {
        switch (event.type) {
            case "process":
                if (event.change === "started") send(startedUpdate(event.process));
                else void sendExited(host, event.process, send);
                return;
            case "secret_request":
                send({
                    sessionUpdate: "agent_message_chunk",
                    content: { type: "text", text: `\n\n${secretDeclinedText(event)}\n\n` },
                });
                void host.submit({
                    type: "secret_answer",
                    requestId: event.requestId,
                    secret: null,
                });
                return;
            default:
                return;
        }
    });
}

async function sendExited(
    host: EngineHostPort,
    info: ProcessInfo,
    send: (update: SessionUpdate) => void
): Promise<void> {
    if (info.terminalId !== undefined) {
        send(exitedUpdate(info, null));
        return;
    }
    const read = await host.submit({
        type: "process_output",
        id: info.id,
        request: { mode: "tail", lines: LAST_LINES, reader: "view" },
    });
    send(exitedUpdate(info, read.ok ? read.result.text : null));
}
