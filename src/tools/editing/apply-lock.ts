/**
 * Serializes the last check and the rename of an edit between North
 * processes (and within one): a lock per file, held only while an apply runs,
 * so two applies to one file cannot both pass "still as prepared?" and then
 * overwrite each other. Lock files live in a private folder under the temp
 * directory, named by a hash of the real path: nothing appears in the project,
 * and a file whose folder does not exist yet can be locked too.
 */
import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isProcessAlive as pidAlive } from "../../util/process-alive";
import { errnoCode } from "../path-guard";

/** How long an apply waits for another one on the same file. */
export const APPLY_LOCK_TIMEOUT_MS = 10_000;
/** A lock older than this is taken over even if its process seems alive (an apply takes ms). */
const STALE_MS = 30_000;
/** A lock file still empty after this long lost its writer between create and write. */
const UNREADABLE_STALE_MS = 2_000;

export interface ApplyLockOptions {
    /** Give up after this long (ms); default `APPLY_LOCK_TIMEOUT_MS`. */
    timeoutMs?: number;
}

/** Another apply held the file for longer than the timeout. */
export class ApplyLockTimeout extends Error {
    constructor(
        /** The real path of the file that stayed locked. */
        readonly path: string
    ) {
        super(`another process kept ${path} locked`);
    }
}

/** Lock files this process holds right now. */
const heldHere = new Set<string>();

function lockDir(): string {
    return join(tmpdir(), `north-apply-locks-${process.getuid?.() ?? "user"}`);
}

/** The lock file for a real path (exported for tests that play another process). */
export function applyLockPath(realPath: string): string {
    const digest = createHash("sha256").update(realPath).digest("hex").slice(0, 32);
    return join(lockDir(), `${digest}.lock`);
}

/** False when the folder cannot be made ours (e.g. another user created it). */
async function ensureLockDir(): Promise<boolean> {
    const dir = lockDir();
    await fs.mkdir(dir, { recursive: true, mode: 0o700 }).catch(() => undefined);
    try {
        const stat = await fs.lstat(dir);
        const uid = process.getuid?.();
        return stat.isDirectory() && (uid === undefined || stat.uid === uid);
    } catch {
        return false;
    }
}

async function readOwner(lockPath: string): Promise<{ pid: number; token: string } | undefined> {
    try {
        const value: unknown = JSON.parse(await fs.readFile(lockPath, "utf8"));
        const { pid, token } = (value ?? {}) as Record<string, unknown>;
        return typeof pid === "number" && typeof token === "string" ? { pid, token } : undefined;
    } catch {
        return undefined;
    }
}

/** Removes a lock whose owner is gone (or that is too old); true when it is gone. */
async function clearIfStale(lockPath: string): Promise<boolean> {
    let before;
    try {
        before = await fs.stat(lockPath);
    } catch {
        return true;
    }
    const age = Date.now() - before.mtimeMs;
    const owner = await readOwner(lockPath);
    const ownerGone =
        owner === undefined
            ? age > UNREADABLE_STALE_MS
            : owner.pid === process.pid
              ? !heldHere.has(lockPath)
              : !pidAlive(owner.pid);
    if (!ownerGone && age < STALE_MS) return false;
    try {
        // Only the lock that was judged, not one created since.
        const now = await fs.stat(lockPath);
        if (now.ino !== before.ino || now.mtimeMs !== before.mtimeMs) return false;
        await fs.unlink(lockPath);
    } catch {
        // gone already
    }
    return true;
}

async function acquireOne(lockPath: string, token: string, deadline: number): Promise<boolean> {
    let delay = 2;
    for (;;) {
        let handle: fs.FileHandle;
        try {
            handle = await fs.open(lockPath, "wx", 0o600);
        } catch (error) {
            if (errnoCode(error) !== "EEXIST") return false;
            if (await clearIfStale(lockPath)) continue;
            if (Date.now() >= deadline) throw new ApplyLockTimeout(lockPath);
            await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay));
            delay = Math.min(delay * 2, 50);
            continue;
        }
        heldHere.add(lockPath);
        try {
            await handle.writeFile(JSON.stringify({ pid: process.pid, token }));
            return true;
        } catch {
            heldHere.delete(lockPath);
            await fs.unlink(lockPath).catch(() => {});
            return false;
        } finally {
            await handle.close().catch(() => {});
        }
    }
}

async function releaseOne(lockPath: string, token: string): Promise<void> {
    heldHere.delete(lockPath);
    if ((await readOwner(lockPath))?.token === token) await fs.unlink(lockPath).catch(() => {});
}

/**
 * Locks every real path (in one global order, so two batches cannot deadlock)
 * and returns the release. Throws `ApplyLockTimeout` naming the real path that
 * stayed locked. A lock that cannot be created (no usable lock folder, a
 * read-only or full temp directory) is skipped: the content checks still run.
 */
export async function acquireApplyLocks(
    realPaths: readonly string[],
    options: ApplyLockOptions = {}
): Promise<() => Promise<void>> {
    const deadline = Date.now() + (options.timeoutMs ?? APPLY_LOCK_TIMEOUT_MS);
    const byLock = new Map(realPaths.map((p) => [applyLockPath(p), p]));
    const token = randomBytes(8).toString("hex");
    const usable = await ensureLockDir();
    const held: string[] = [];
    const release = async (): Promise<void> => {
        for (const lockPath of held.splice(0).reverse()) await releaseOne(lockPath, token);
    };
    try {
        for (const lockPath of [...byLock.keys()].sort()) {
            if (!usable) break;
            try {
                if (await acquireOne(lockPath, token, deadline)) held.push(lockPath);
            } catch (error) {
                if (error instanceof ApplyLockTimeout)
                    throw new ApplyLockTimeout(byLock.get(lockPath) ?? lockPath);
                throw error;
            }
        }
    } catch (error) {
        await release();
        throw error;
    }
    return release;
}
