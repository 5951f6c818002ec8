/**
 * Background processes left by a North that could not clean up (`kill -9`,
 * a power cut of the terminal, an OOM kill). Each shell service with running
 * background processes keeps a small record in `<dataDir>/processes/`: the
 * project, North's pid and its start time (so a reused pid is not taken for
 * it), the service's owner tag and the processes. It is rewritten atomically
 * as processes start and end, and removed when none runs and at North's exit.
 * The next North started in the same project reads the folder (one readdir
 * when nothing is there), and for each record whose North is gone kills the
 * processes still carrying its owner tag (child-reaper), removes its spill
 * folder and record, and tells the user once. Elsewhere than Linux nothing
 * can be found by its mark: the user is told what may still run.
 */
import { removeQuietly } from "../../util/remove-quietly";
import {
    mkdirSync,
    readFileSync,
    readdirSync,
    readlinkSync,
    realpathSync,
    renameSync,
} from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../../util/atomic-write";
import { isProcessAlive } from "../../util/process-alive";
import { atProcessExit } from "../../util/process-exit";
import { isPathInside } from "../../util/read-regular-file";
import { carriesOwnerTag, reapOwned } from "../child-reaper";
import type { ProcessInfo } from "./types";

const RECORD_SUFFIX = ".json";
/** A record being reaped: taken by one North only (the rename), should two start at once. */
const REAPING_SUFFIX = ".reaping";
/** Commands longer than this are cut in the message. */
const COMMAND_SHOWN_CHARS = 60;

/** One background process as the record keeps it. */
export interface RecordedProcess {
    id: string;
    command: string;
    pid?: number;
}

/** What a record file holds (JSON, 0600). */
export interface LeftoverRecord {
    version: 1;
    /** The project's root, as the service has it. */
    root: string;
    north: {
        pid: number;
        /** Field 22 of /proc/<pid>/stat (clock ticks since boot); absent off Linux. */
        startTime?: string;
        /** /proc/sys/kernel/random/boot_id: a record from before a reboot names no live North. */
        bootId?: string;
        /** Its pid namespace (`pid:[…]`): another container's North is not judged from here. */
        pidNamespace?: string;
    };
    /** The service's owner tag (child-reaper): every process it started carries it. */
    ownerTag: string;
    /** The service's spill folder (output beyond the rings), removed with the record. */
    spillDir?: string;
    processes: RecordedProcess[];
}

export interface ProcessRecordPlace {
    /** `<dataDir>/processes`: the records, and the spill folders beside them. */
    dir: string;
    ownerTag: string;
    root: string;
    /** Default `<dir>/<ownerTag>`. */
    spillDir?: string;
}

/** This process's start time and the boot's id (Linux), read once per record. */
function northIdentity(pid: number): LeftoverRecord["north"] {
    const identity: LeftoverRecord["north"] = { pid };
    const startTime = startTimeOf(pid);
    if (startTime !== undefined) identity.startTime = startTime;
    const bootId = readQuiet("/proc/sys/kernel/random/boot_id")?.trim();
    if (bootId) identity.bootId = bootId;
    const pidNamespace = pidNamespaceOf(pid);
    if (pidNamespace !== undefined) identity.pidNamespace = pidNamespace;
    return identity;
}

function pidNamespaceOf(pid: number): string | undefined {
    try {
        return readlinkSync(`/proc/${pid}/ns/pid`);
    } catch {
        return undefined;
    }
}

function readQuiet(path: string): string | undefined {
    try {
        return readFileSync(path, "utf8");
    } catch {
        return undefined;
    }
}

/** Field 22 of /proc/<pid>/stat; the command name (field 2) may hold spaces and parentheses. */
function startTimeOf(pid: number): string | undefined {
    const stat = readQuiet(`/proc/${pid}/stat`);
    if (stat === undefined) return undefined;
    // Fields 3 onwards follow the last ')'; starttime is the 20th of them.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

/**
 * Whether the North a record names may still run: it does (the same process,
 * not a reused pid), or it ran in another pid namespace, which its pid means
 * nothing in (a container sharing the data folder).
 */
function northAlive(north: LeftoverRecord["north"]): boolean {
    const here = pidNamespaceOf(process.pid);
    if (north.pidNamespace !== undefined && here !== undefined && north.pidNamespace !== here) {
        return true;
    }
    if (north.startTime === undefined) return isProcessAlive(north.pid);
    const bootId = readQuiet("/proc/sys/kernel/random/boot_id")?.trim();
    if (north.bootId !== undefined && bootId !== undefined && bootId !== north.bootId) return false;
    return startTimeOf(north.pid) === north.startTime;
}

/**
 * The record of one service's background processes. The service calls
 * `recordProcesses` with its table's list whenever a process starts or ends
 * (only running ones are kept; none removes the file) and `remove` when it
 * is disposed; North's exit removes it too.
 */
export class ProcessRecord {
    private readonly file: string;
    /** Read at the first write: a service that never backgrounds anything reads nothing. */
    private north: LeftoverRecord["north"] | undefined;
    private forgetExitRemoval: (() => void) | undefined;

    constructor(private readonly place: ProcessRecordPlace) {
        this.file = join(place.dir, `${place.ownerTag}${RECORD_SUFFIX}`);
    }

    /** Rewrites the record with the running processes; never throws (a full disk costs only this). */
    recordProcesses(processes: readonly ProcessInfo[]): void {
        const running = processes.filter((info) => info.state === "running");
        if (running.length === 0) {
            this.remove();
            return;
        }
        const record: LeftoverRecord = {
            version: 1,
            root: this.place.root,
            north: (this.north ??= northIdentity(process.pid)),
            ownerTag: this.place.ownerTag,
            spillDir: this.place.spillDir ?? join(this.place.dir, this.place.ownerTag),
            processes: running.map(({ id, command, pid }) =>
                pid === undefined ? { id, command } : { id, command, pid }
            ),
        };
        try {
            mkdirSync(this.place.dir, { recursive: true, mode: 0o700 });
            writeFileAtomicSync(this.file, JSON.stringify(record) + "\n");
            this.forgetExitRemoval ??= atProcessExit(() => removeQuietly(this.file));
        } catch {
            // No record: a North killed later leaves these to the owner mark's other guards.
        }
    }

    remove(): void {
        this.forgetExitRemoval?.();
        this.forgetExitRemoval = undefined;
        removeQuietly(this.file);
    }
}

/** A record's file, parsed, or undefined when it is not one of ours. */
function readRecord(file: string): LeftoverRecord | undefined {
    const text = readQuiet(file);
    if (text === undefined) return undefined;
    try {
        const record = JSON.parse(text) as LeftoverRecord;
        const valid =
            record.version === 1 &&
            typeof record.root === "string" &&
            typeof record.ownerTag === "string" &&
            record.ownerTag !== "" &&
            typeof record.north?.pid === "number" &&
            Array.isArray(record.processes);
        return valid ? record : undefined;
    } catch {
        return undefined;
    }
}

function realpathQuiet(path: string): string {
    try {
        return realpathSync(path);
    } catch {
        return path;
    }
}

function shownCommand(command: string): string {
    const line = command.replace(/\s+/g, " ").trim();
    return line.length > COMMAND_SHOWN_CHARS ? `${line.slice(0, COMMAND_SHOWN_CHARS - 1)}…` : line;
}

function listed(processes: readonly RecordedProcess[]): string {
    return processes.map((p) => `${p.id} \`${shownCommand(p.command)}\``).join(", ");
}

function plural(count: number, word: string): string {
    return `${count} ${word}${count === 1 ? "" : "es"}`;
}

/** Stops what one dead North's service left; what the user is told about it, if anything. */
function reapRecord(record: LeftoverRecord, dir: string): string | undefined {
    if (record.spillDir !== undefined && isPathInside(dir, record.spillDir)) {
        removeQuietly(record.spillDir);
    }
    if (process.platform !== "linux") {
        return `A North that ended abruptly may have left ${plural(record.processes.length, "process")} running: ${listed(record.processes)}.`;
    }
    const running = record.processes.filter(
        (p) => p.pid !== undefined && carriesOwnerTag(p.pid, record.ownerTag)
    );
    const killed = reapOwned(record.ownerTag);
    if (killed === 0) return undefined;
    if (running.length > 0) {
        return `Stopped ${plural(running.length, "process")} left running by a North that ended abruptly: ${listed(running)}.`;
    }
    return `Stopped ${plural(killed, "process")} left running by a North that ended abruptly (started by ${listed(record.processes)}).`;
}

/**
 * At start: reaps the background processes of dead Norths of the project at
 * `root` and returns one message for the user, or undefined when there were
 * none. `dir` is `<dataDir>/processes`. Never throws.
 */
export function reapLeftovers(dir: string, root: string): string | undefined {
    let names: string[];
    try {
        names = readdirSync(dir);
    } catch {
        return undefined; // no folder: no North ever recorded a process
    }
    const records = names.filter((name) => name.endsWith(RECORD_SUFFIX) && !name.startsWith("."));
    if (records.length === 0) return undefined;
    // The service records its real root.
    const realRoot = realpathQuiet(root);
    const messages: string[] = [];
    for (const name of records) {
        const file = join(dir, name);
        const record = readRecord(file);
        if (record === undefined || record.root !== realRoot || northAlive(record.north)) continue;
        const taken = file + REAPING_SUFFIX;
        try {
            renameSync(file, taken);
        } catch {
            continue; // another North took it
        }
        try {
            const message = reapRecord(record, dir);
            if (message !== undefined) messages.push(message);
        } catch {
            // what could not be stopped stays; the record goes, not to warn at every start
        }
        removeQuietly(taken);
    }
    return messages.length > 0 ? messages.join(" ") : undefined;
}
