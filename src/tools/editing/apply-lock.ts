/**
 * Serializes the last check and the rename of an edit between North
 * processes (and within one): a lock per file, held only while an apply runs,
 * so two applies to one file cannot both pass "still as prepared?" and then
 * overwrite each other. Lock files live in a private folder under the temp
 * directory, named by a hash of the real path: nothing appears in the project,
 * and a file whose folder does not exist yet can be locked too.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileLockTimeout, waitForFileLock } from "../../util/file-lock";

/** How long an apply waits for another one on the same file. */
export const APPLY_LOCK_TIMEOUT_MS = 10_000;
/** A lock older than this is taken over even if its process seems alive (an apply takes ms). */
const STALE_MS = 30_000;

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
    const usable = await ensureLockDir();
    const held: Array<() => void> = [];
    const release = async (): Promise<void> => {
        for (const releaseOne of held.splice(0).reverse()) releaseOne();
    };
    for (const lockPath of [...byLock.keys()].sort()) {
        if (!usable) break;
        try {
            const timeoutMs = Math.max(0, deadline - Date.now());
            held.push(await waitForFileLock(lockPath, { timeoutMs, staleMs: STALE_MS }));
        } catch (error) {
            if (!(error instanceof FileLockTimeout)) continue;
            await release();
            throw new ApplyLockTimeout(byLock.get(lockPath) ?? lockPath);
        }
    }
    return release;
}
