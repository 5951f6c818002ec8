/**
 * A resumed conversation's background processes (issue 35, part 6). The log
 * keeps each `process` event as a view record; a process still running at
 * its last record ended with the North that ran it (North kills its
 * processes when it exits), unless this very North still runs it (a
 * conversation left with /new and resumed). Those are recorded as ended, so
 * the chat's replay shows them so, and the model's first request is told;
 * nothing is run again.
 */
import type { ProcessInfo, ProcessTable } from "../../tools/processes/types";
import { oneLine } from "../../util/short-text";

/** Processes named in the note; older ones are counted. */
const NOTE_PROCESSES = 8;
const NOTE_COMMAND_CHARS = 80;

function processOfRecord(record: Record<string, unknown>): ProcessInfo | null {
    if (record.type !== "engine") return null;
    const event = record.event as { type?: unknown; process?: unknown } | undefined;
    if (event?.type !== "process") return null;
    const process = event.process as Partial<ProcessInfo> | undefined;
    if (typeof process?.id !== "string" || typeof process.command !== "string") return null;
    return process as ProcessInfo;
}

/** Each process's last recorded state, in the order they first appeared. */
export function recordedProcesses(view: ReadonlyArray<Record<string, unknown>>): ProcessInfo[] {
    const byId = new Map<string, ProcessInfo>();
    for (const record of view) {
        const process = processOfRecord(record);
        if (process) byId.set(process.id, process);
    }
    return [...byId.values()];
}

/** The same process, still running in this North's table. */
function stillRunning(process: ProcessInfo, table: ProcessTable | undefined): boolean {
    const live = table?.get(process.id);
    return (
        live !== undefined &&
        live.state === "running" &&
        live.startedAt === process.startedAt &&
        live.command === process.command
    );
}

export interface ResumedProcesses {
    /** Recorded running, gone now: the `exited` records to add to the log and the replay. */
    ended: ProcessInfo[];
    /** For the first request; null when the conversation had no processes that are gone. */
    note: string | null;
}

function fate(process: ProcessInfo, endedNow: boolean): string {
    if (endedNow) return "was running; it ended with that North";
    if (process.stopped) return "was stopped";
    if (typeof process.exitCode === "number") return `exited with code ${process.exitCode}`;
    return process.signal ? `was ended by ${process.signal}` : "exited";
}

export function resumedProcesses(
    view: ReadonlyArray<Record<string, unknown>>,
    table: ProcessTable | undefined
): ResumedProcesses {
    const gone = recordedProcesses(view).filter((p) => !stillRunning(p, table));
    if (gone.length === 0) return { ended: [], note: null };
    const endedIds = new Set<string>();
    const ended = gone
        .filter((p) => p.state === "running")
        .map((p): ProcessInfo => {
            endedIds.add(p.id);
            return { ...p, state: "exited", stopped: true };
        });
    const named = gone
        .slice(-NOTE_PROCESSES)
        .map(
            (p) =>
                `${p.id} \`${oneLine(p.command, NOTE_COMMAND_CHARS)}\` ${fate(p, endedIds.has(p.id))}`
        );
    const older = gone.length - named.length;
    const list = [...(older > 0 ? [`${older} older ones`] : []), ...named].join("; ");
    const note =
        "[background] This conversation was resumed: the background processes it started ran " +
        "under an earlier North and are gone; none was restarted, and their ids may now name " +
        `new processes. ${list}.`;
    return { ended, note };
}
