/**
 * Background processes in words, for `/ps` (print mode's listing) and the
 * chat's processes view: one row per process with its id, state, age, exit
 * status, output size and command, and the one-line notes the transcript
 * shows when one starts or ends.
 */
import type { ProcessInfo, ProcessNotice } from "../tools/processes/types";
import { oneLine } from "../util/short-text";

/** "42s", "5m", "3h", "2d": how long ago `startedAt` was. */
export function processAge(info: ProcessInfo, now: number): string {
    const seconds = Math.max(0, Math.round((now - info.startedAt) / 1000));
    if (seconds < 60) return `${seconds}s`;
    if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
    if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
    return `${Math.floor(seconds / 86_400)}d`;
}

/** "0 B", "950 B", "4.1 KB", "12.3 MB". */
export function outputSize(bytes: number): string {
    if (bytes < 1024) return `${bytes} B`;
    if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
    return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** "running", "exit 0", "exit 1", "killed by SIGKILL", "stopped". */
export function processStatus(info: ProcessInfo): string {
    if (info.state === "running") return "running";
    if (info.stopped) return "stopped";
    if (info.exitCode !== undefined && info.exitCode !== null) return `exit ${info.exitCode}`;
    return info.signal ? `killed by ${info.signal}` : "ended";
}

/** One row: `p1  running  12s  4.1 KB  npm run dev` (the command cut to `commandWidth`). */
export function processRow(info: ProcessInfo, now: number, commandWidth = 60): string {
    const kind = info.tty ? " tty" : "";
    return [
        info.id,
        processStatus(info) + kind,
        processAge(info, now),
        outputSize(info.outputBytes),
        oneLine(info.command, Math.max(8, commandWidth)),
    ].join("  ");
}

/** Print mode's `/ps`: every process, or a note that there are none. */
export function processListing(processes: readonly ProcessInfo[], now: number): string {
    if (processes.length === 0) return "No background processes.";
    const running = processes.filter((p) => p.state === "running").length;
    const head = `${processes.length} background process${processes.length === 1 ? "" : "es"} (${running} running):`;
    return [head, ...processes.map((p) => `  ${processRow(p, now)}`)].join("\n");
}

/** The transcript's line when a process starts or ends. */
export function processChangeLine(change: "started" | "exited", info: ProcessInfo): string {
    const command = `\`${oneLine(info.command, 60)}\``;
    if (change === "started") {
        const kind = info.tty ? " in a terminal" : "";
        return `${info.id} ${command} runs in the background${kind} (/ps shows it)`;
    }
    return `${info.id} ${command} ended: ${processStatus(info)}`;
}

/** The transcript's line for a watched pattern's match (an exit has its own line). */
export function processNoticeLine(notice: ProcessNotice): string | undefined {
    if (notice.kind !== "matched") return undefined;
    const line = oneLine(notice.lines.at(-1) ?? "", 80);
    return `${notice.process.id} printed a watched line: ${line}`;
}
