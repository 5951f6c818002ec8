/**
 * Processes that leave their process group on purpose (`setsid`, double-fork
 * daemons) escape the group kills of the shell, hooks and MCP servers. Every
 * process North starts carries an environment mark that its descendants
 * inherit; when North exits (or a service is disposed) the processes still
 * carrying it are found in /proc and killed, so they die with North.
 *
 * Linux only (elsewhere the group kill is all there is). A process that clears
 * its environment, runs as another user (sudo) or belongs to a service manager
 * (systemd, docker) is not found. Nothing runs after `kill -9` of North: the
 * next North in the same project reaps what it left (processes/leftovers.ts).
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

/** The variable holding the marks; a North started by North adds its own. */
export const OWNER_ENV = "NORTH_OWNER";

const PROCESS_TAG = `${process.pid}-${randomBytes(4).toString("hex")}`;
/** A killed process may fork once more before it dies; a few passes catch its children. */
const MAX_PASSES = 4;

/** A tag of its own for one service (a shell), under this process's tag. */
export function newOwnerTag(): string {
    return `${PROCESS_TAG}.${randomBytes(4).toString("hex")}`;
}

/** Kills what this process started, as it exits. One function, so `process` holds it once. */
const reapAtExit = (): void => void reapOwned(PROCESS_TAG);

/**
 * The mark for a child's environment: the marks North inherited plus `tag`.
 * The first call arranges for marked processes to be killed when North exits.
 */
export function ownerEnv(tag: string = PROCESS_TAG): Record<string, string> {
    if (!process.listeners("exit").includes(reapAtExit)) process.on("exit", reapAtExit);
    const inherited = process.env[OWNER_ENV];
    return { [OWNER_ENV]: inherited ? `${inherited} ${tag}` : tag };
}

/** The marks in a raw `/proc/<pid>/environ`, or none. */
function marksOf(environ: Buffer): string[] {
    const key = `${OWNER_ENV}=`;
    let start = environ.indexOf(`\0${key}`);
    if (start !== -1) start += 1;
    else if (environ.subarray(0, key.length).toString() === key) start = 0;
    else return [];
    const end = environ.indexOf(0, start);
    return environ
        .subarray(start + key.length, end === -1 ? environ.length : end)
        .toString()
        .split(" ");
}

/** Whether process `pid` (still) carries `tag` or a tag under it. */
export function carriesOwnerTag(pid: number, tag: string): boolean {
    let environ: Buffer;
    try {
        environ = readFileSync(`/proc/${pid}/environ`);
    } catch {
        return false; // gone, or another user's
    }
    return marksOf(environ).some((mark) => mark === tag || mark.startsWith(`${tag}.`));
}

function livePids(): number[] {
    try {
        return readdirSync("/proc")
            .filter((name) => /^\d+$/.test(name))
            .map(Number);
    } catch {
        return [];
    }
}

/**
 * SIGKILLs every process (but North) marked with `tag` or a tag under it.
 * Synchronous, so it can run in an exit hook. Returns how many were killed.
 */
export function reapOwned(tag: string): number {
    if (process.platform !== "linux") return 0;
    const killed = new Set<number>();
    for (let pass = 0; pass < MAX_PASSES; pass++) {
        let found = 0;
        for (const pid of livePids()) {
            if (pid === process.pid || killed.has(pid) || !carriesOwnerTag(pid, tag)) continue;
            try {
                process.kill(pid, "SIGKILL");
                killed.add(pid);
                found++;
            } catch {
                // exited meanwhile
            }
        }
        if (found === 0) break;
    }
    return killed.size;
}
