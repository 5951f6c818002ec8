import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { isProcessAlive as pidAlive } from "./process-alive";

export interface FileLockOptions {
    /** Give up after this long (ms); default 5000. */
    timeoutMs?: number;
    /** A lock older than this (ms) is taken over even if its owner seems alive; default 30000. */
    staleMs?: number;
}

interface LockInfo {
    pid: number;
    token: string;
}

/** Lock files of this process that are held right now. */
const held = new Set<string>();
const UNREADABLE_STALE_MS = 2000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function sleep(ms: number): void {
    Atomics.wait(sleeper, 0, 0, ms);
}

function readLock(lockPath: string): LockInfo | undefined {
    try {
        const value: unknown = JSON.parse(readFileSync(lockPath, "utf8"));
        if (typeof value !== "object" || value === null) return undefined;
        const { pid, token } = value as Record<string, unknown>;
        if (typeof pid !== "number" || typeof token !== "string") return undefined;
        return { pid, token };
    } catch {
        return undefined;
    }
}

/** Removes the lock file if its owner is gone or it is too old; true when it was removed. */
function clearIfStale(lockPath: string, staleMs: number): boolean {
    let before;
    try {
        before = statSync(lockPath);
    } catch {
        return true; // released meanwhile
    }
    const age = Date.now() - before.mtimeMs;
    const info = readLock(lockPath);
    // An unreadable lock is one being written right now, or one whose writer died in between.
    const ownerGone =
        info === undefined
            ? age > UNREADABLE_STALE_MS
            : info.pid === process.pid
              ? !held.has(lockPath)
              : !pidAlive(info.pid);
    if (!ownerGone && age < staleMs) return false;
    try {
        // Only remove the file we judged, not a fresh lock created since.
        const now = statSync(lockPath);
        if (now.ino !== before.ino || now.mtimeMs !== before.mtimeMs) return false;
        unlinkSync(lockPath);
    } catch {
        // gone already
    }
    return true;
}

function tryAcquire(lockPath: string, token: string): boolean {
    let fd: number;
    try {
        fd = openSync(lockPath, "wx", 0o600);
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw error;
    }
    try {
        writeSync(fd, JSON.stringify({ pid: process.pid, token, createdAt: Date.now() }));
    } finally {
        closeSync(fd);
    }
    return true;
}

/**
 * Runs `fn` while holding `<path>.lock`, a file created with O_EXCL so only one process
 * holds it. A lock whose process is gone, or older than `staleMs`, is taken over.
 * Retries with short sleeps; throws when `timeoutMs` passes. Synchronous and not re-entrant.
 */
export function withFileLock<T>(path: string, fn: () => T, options: FileLockOptions = {}): T {
    const lockPath = `${path}.lock`;
    const timeoutMs = options.timeoutMs ?? 5000;
    const staleMs = options.staleMs ?? 30_000;
    if (held.has(lockPath)) throw new Error(`lock ${lockPath} is already held by this process`);
    const token = randomBytes(8).toString("hex");
    const deadline = Date.now() + timeoutMs;
    let delay = 2;
    while (!tryAcquire(lockPath, token)) {
        if (clearIfStale(lockPath, staleMs)) continue;
        if (Date.now() >= deadline) throw new Error(`timed out waiting for lock ${lockPath}`);
        sleep(delay + Math.random() * delay);
        delay = Math.min(delay * 2, 50);
    }
    held.add(lockPath);
    try {
        return fn();
    } finally {
        held.delete(lockPath);
        if (readLock(lockPath)?.token === token) {
            try {
                unlinkSync(lockPath);
            } catch {
                // already gone
            }
        }
    }
}
