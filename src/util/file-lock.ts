/**
 * North's one lock between processes: a lock file holding the pid of its
 * holder, created with O_EXCL so only one process holds it. A lock whose
 * process is gone (a `kill -9`) is taken over; with `staleMs`, so is one
 * older than that, for locks only ever held for a moment.
 *
 * Three ways to hold one: `withFileLock` (wait, run, release; synchronous),
 * `waitForFileLock` (wait without blocking the event loop) and `tryLockFile`
 * (one attempt, for a lock held as long as a conversation is open).
 */
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { isProcessAlive } from "./process-alive";

export interface LockOptions {
    /** A lock older than this (ms) is taken over even if its process is alive; default: never. */
    staleMs?: number;
}

export interface WaitingLockOptions extends LockOptions {
    /** Give up after this long (ms); default 5000. */
    timeoutMs?: number;
}

/** What a lock file holds. */
interface LockOwner {
    pid: number;
    /** Which run of `pid` holds it: a pid is reused, e.g. by a restarted container. */
    process?: string;
    /** This hold of the lock, so a release never removes a lock taken over since. */
    token: string;
}

export type LockAttempt =
    | { ok: true; release: () => void }
    /** Held by a live process (this one included); its pid when the lock file says. */
    | { ok: false; pid: number | undefined };

/** The lock is still held when the wait ran out. */
export class FileLockTimeout extends Error {
    constructor(readonly lockPath: string) {
        super(`timed out waiting for lock ${lockPath}`);
    }
}

/** Tells this process's locks from those of an earlier process that had the same pid. */
const THIS_PROCESS = randomBytes(8).toString("hex");
/** A lock file that cannot be read is one between its create and its write, or one whose writer died there. */
const UNREADABLE_STALE_MS = 2000;
const DEFAULT_TIMEOUT_MS = 5000;
/** Locks `withFileLock` holds for a moment: one this old lost its holder. */
const MOMENTARY_STALE_MS = 30_000;

function readOwner(lockPath: string): LockOwner | undefined {
    try {
        const value: unknown = JSON.parse(readFileSync(lockPath, "utf8"));
        if (typeof value !== "object" || value === null) return undefined;
        const { pid, process: run, token } = value as Record<string, unknown>;
        if (typeof pid !== "number" || typeof token !== "string") return undefined;
        return { pid, token, process: typeof run === "string" ? run : undefined };
    } catch {
        return undefined;
    }
}

function ownerAlive(owner: LockOwner): boolean {
    if (owner.pid === process.pid) return owner.process === THIS_PROCESS;
    return isProcessAlive(owner.pid);
}

/** Removes the lock file if its holder is gone or it is stale; true when it is gone. */
function clearIfStale(lockPath: string, staleMs: number | undefined): boolean {
    let before;
    try {
        before = statSync(lockPath);
    } catch {
        return true; // released meanwhile
    }
    const age = Date.now() - before.mtimeMs;
    const owner = readOwner(lockPath);
    const holderGone = owner === undefined ? age > UNREADABLE_STALE_MS : !ownerAlive(owner);
    if (!holderGone && (staleMs === undefined || age < staleMs)) return false;
    try {
        // Only remove the file that was judged, not a fresh lock created since.
        const now = statSync(lockPath);
        if (now.ino !== before.ino || now.mtimeMs !== before.mtimeMs) return false;
        unlinkSync(lockPath);
    } catch {
        // gone already
    }
    return true;
}

function releaser(lockPath: string, token: string): () => void {
    let released = false;
    return () => {
        if (released) return;
        released = true;
        if (readOwner(lockPath)?.token !== token) return;
        try {
            unlinkSync(lockPath);
        } catch {
            // gone already
        }
    };
}

/**
 * One attempt at `lockPath`: taken (with its release), or held by a live
 * process. A file system error (no folder, no space) throws.
 */
export function tryLockFile(lockPath: string, options: LockOptions = {}): LockAttempt {
    const token = randomBytes(8).toString("hex");
    const owner: LockOwner = { pid: process.pid, process: THIS_PROCESS, token };
    // A few rounds: a stale lock removed here may be taken by another process first.
    for (let round = 0; round < 3; round++) {
        if (createLockFile(lockPath, JSON.stringify(owner))) {
            return { ok: true, release: releaser(lockPath, token) };
        }
        const holder = readOwner(lockPath);
        if (!clearIfStale(lockPath, options.staleMs)) return { ok: false, pid: holder?.pid };
    }
    return { ok: false, pid: readOwner(lockPath)?.pid };
}

/** Creates the lock file with O_EXCL and writes `owner`; false when it exists. */
function createLockFile(lockPath: string, owner: string): boolean {
    let fd: number;
    try {
        fd = openSync(lockPath, "wx", 0o600);
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw error;
    }
    try {
        writeSync(fd, owner);
    } catch (error) {
        unlinkSync(lockPath);
        throw error;
    } finally {
        closeSync(fd);
    }
    return true;
}

/** Growing, jittered pauses between attempts: 2 ms doubling to 50 ms. */
function nextDelay(delay: number): { wait: number; next: number } {
    return { wait: delay + Math.random() * delay, next: Math.min(delay * 2, 50) };
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `fn` while holding `<path>.lock`, waiting for it up to `timeoutMs`
 * (throws `FileLockTimeout`). Synchronous and not re-entrant: a lock this
 * process already holds throws at once. Taken over after 30 s by default.
 */
export function withFileLock<T>(path: string, fn: () => T, options: WaitingLockOptions = {}): T {
    const lockPath = `${path}.lock`;
    const staleMs = options.staleMs ?? MOMENTARY_STALE_MS;
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    let delay = 2;
    for (;;) {
        const attempt = tryLockFile(lockPath, { staleMs });
        if (attempt.ok) {
            try {
                return fn();
            } finally {
                attempt.release();
            }
        }
        if (attempt.pid === process.pid) {
            throw new Error(`lock ${lockPath} is already held by this process`);
        }
        if (Date.now() >= deadline) throw new FileLockTimeout(lockPath);
        const pause = nextDelay(delay);
        Atomics.wait(sleeper, 0, 0, pause.wait);
        delay = pause.next;
    }
}

/**
 * Takes `lockPath`, waiting (without blocking the event loop) while another
 * process, or another task of this one, holds it; resolves to its release.
 * Throws `FileLockTimeout` after `timeoutMs`.
 */
export async function waitForFileLock(
    lockPath: string,
    options: WaitingLockOptions = {}
): Promise<() => void> {
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    let delay = 2;
    for (;;) {
        const attempt = tryLockFile(lockPath, { staleMs: options.staleMs ?? MOMENTARY_STALE_MS });
        if (attempt.ok) return attempt.release;
        if (Date.now() >= deadline) throw new FileLockTimeout(lockPath);
        const pause = nextDelay(delay);
        await new Promise((resolve) => setTimeout(resolve, pause.wait));
        delay = pause.next;
    }
}
