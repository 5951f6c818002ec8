import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { basename, dirname, join } from "node:path";

export interface AtomicWriteOptions {
    /** File mode for a new file; an existing file keeps its own mode. */
    mode?: number;
    /**
     * Runs once the temp file is complete, right before the rename; if it
     * throws, nothing is replaced. Lets a caller re-check the target last.
     */
    beforeRename?: () => Promise<void>;
}

/**
 * Replaces `path` with `data` so that readers see the old or the new content,
 * never a mix: write a temp file in the same directory, fsync it, rename over.
 * Across filesystems (EXDEV) it falls back to copy then unlink. On any failure
 * (a full disk included) the original is left untouched and the temp removed.
 */
export async function writeFileAtomic(
    path: string,
    data: string | Uint8Array,
    options: AtomicWriteOptions = {}
): Promise<void> {
    const dir = dirname(path);
    const temp = join(dir, `.${basename(path)}.north-${randomBytes(4).toString("hex")}.tmp`);
    let mode = options.mode ?? 0o644;
    try {
        mode = (await fs.stat(path)).mode & 0o7777;
    } catch {
        // new file
    }
    let handle: fs.FileHandle | undefined;
    try {
        handle = await fs.open(temp, "wx", mode);
        await handle.writeFile(data);
        await handle.sync();
        await handle.close();
        handle = undefined;
        await fs.chmod(temp, mode);
        await options.beforeRename?.();
        try {
            await fs.rename(temp, path);
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
            await fs.copyFile(temp, path);
            await fs.unlink(temp);
        }
    } catch (error) {
        await handle?.close().catch(() => undefined);
        await fs.unlink(temp).catch(() => undefined);
        throw error;
    }
}
