/**
 * What the chat's processes view and Ctrl+B need of the engine host, as ops:
 * the list, one process's output (the "view" reader, so the model's "new
 * output" cursor does not move), stopping one, moving the running commands
 * into the background, and word of every change of the table.
 */
import type { EngineHostPort, OpReply, Outcome } from "../agent/protocol";
import type { ProcessId, ProcessInfo } from "../tools/processes/types";
import type { TranscriptAction } from "./transcript/reducer";

export interface ProcessesPort {
    list(): Promise<ProcessInfo[]>;
    /** The last `lines` lines (a tty process: its screen). */
    output(id: ProcessId, lines: number): Promise<OpReply<"process_output">>;
    stop(id: ProcessId): Promise<Outcome>;
    /** Ctrl+B: the ids the running commands became. */
    background(): Promise<string[]>;
    /** Called when a process starts or ends, or prints what a watch waits for. */
    subscribe(listener: () => void): () => void;
}

export function createProcessesPort(
    host: Pick<EngineHostPort, "submit" | "subscribe">
): ProcessesPort {
    return {
        list: () => host.submit({ type: "processes" }),
        output: (id, lines) =>
            host.submit({
                type: "process_output",
                id,
                request: { mode: "tail", lines, reader: "view" },
            }),
        stop: (id) => host.submit({ type: "stop_process", id }),
        background: async () => (await host.submit({ type: "background_command" })).moved,
        subscribe: (listener) =>
            host.subscribe((event) => {
                if (event.type === "process" || event.type === "process_notice") listener();
            }),
    };
}

/** What the transcript says after Ctrl+B: the ids the commands became, or that none ran. */
export function backgroundNotice(moved: readonly string[]): TranscriptAction {
    if (moved.length === 0) {
        return {
            type: "notice",
            level: "info",
            text: "Ctrl+B: no running command to move to the background",
        };
    }
    const ids = moved.join(", ");
    return {
        type: "notice",
        level: "info",
        text: `moved to the background as ${ids}: it keeps running (/ps shows it, stops it)`,
    };
}
