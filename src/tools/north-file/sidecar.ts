/**
 * Sidecar files of NORTH_FILE blocks: `.<name>.north-<pid>-<8 hex>.partial`
 * next to the target, so the final rename stays on one filesystem (atomic)
 * and a leftover says what it is and which process wrote it. A sidecar whose
 * process is gone (kill -9, power loss) is stale and removed the next time a
 * block opens in that directory.
 */
import { randomBytes } from "node:crypto";
import { unlinkSync, promises as fs } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isProcessAlive } from "../../util/process-alive";

/** The exact sidecar name; nothing else is ever deleted as stale. */
const SIDECAR_NAME = /^\.(.+)\.north-([1-9]\d{0,9})-[0-9a-f]{8}\.partial$/;

/** The part of a file handle a write session uses (Node's FileHandle fits). */
export interface SidecarHandle {
    write(data: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
    sync(): Promise<void>;
    close(): Promise<void>;
}

/** Opens a sidecar: "wx" to create it, "a" to continue it, "w" to start it over. */
export type OpenSidecar = (path: string, flags: "wx" | "a" | "w") => Promise<SidecarHandle>;

export const openSidecarFile: OpenSidecar = (path, flags) => fs.open(path, flags, 0o644);

/** A fresh sidecar path for `target` (absolute), owned by this process. */
export function sidecarPathFor(target: string): string {
    const name = `.${basename(target)}.north-${process.pid}-${randomBytes(4).toString("hex")}.partial`;
    return join(dirname(target), name);
}

/** The pid in a sidecar's file name, or null when the name is not a sidecar's. */
export function sidecarOwner(name: string): number | null {
    const match = SIDECAR_NAME.exec(name);
    return match ? Number(match[2]) : null;
}

function isAlive(pid: number): boolean {
    return pid === process.pid || isProcessAlive(pid);
}

/**
 * Deletes sidecars in `dir` left by processes that no longer run; returns
 * their names. Only regular files with North's exact sidecar name are touched.
 */
export async function removeStaleSidecars(
    dir: string,
    alive: (pid: number) => boolean = isAlive
): Promise<string[]> {
    let names: string[];
    try {
        names = await fs.readdir(dir);
    } catch {
        return [];
    }
    const removed: string[] = [];
    for (const name of names) {
        const pid = sidecarOwner(name);
        if (pid === null || alive(pid)) continue;
        const path = join(dir, name);
        const stat = await fs.lstat(path).catch(() => null);
        if (!stat?.isFile()) continue;
        const gone = await fs.unlink(path).then(
            () => true,
            () => false
        );
        if (gone) removed.push(name);
    }
    return removed;
}

/**
 * Removes the sidecar at `path` if the process exits normally while it is
 * still on disk; the function returned stops that (the sidecar was renamed
 * into place or removed). A few sidecars live at once: one hook each.
 */
export function trackSidecar(path: string): () => void {
    const remove = (): void => {
        try {
            unlinkSync(path);
        } catch {
            // already gone
        }
    };
    process.once("exit", remove);
    return () => void process.off("exit", remove);
}
