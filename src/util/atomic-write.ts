import { randomBytes } from "node:crypto";
import {
    closeSync,
    promises as fs,
    fsyncSync,
    openSync,
    readlinkSync,
    realpathSync,
    renameSync,
    statSync,
    unlinkSync,
    writeSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { isPathInside } from "./read-regular-file";

export interface AtomicWriteOptions {
    /** File mode for a new file; an existing file keeps its own mode. */
    mode?: number;
    /**
     * Runs once the temp file is complete, right before the rename; if it
     * throws, nothing is replaced. Lets a caller re-check the target last.
     */
    beforeRename?: () => Promise<void>;
}

/** A temp file beside `path`: in the same folder, so the rename stays on one filesystem. */
function tempBeside(path: string): string {
    return join(dirname(path), `.${basename(path)}.north-${randomBytes(4).toString("hex")}.tmp`);
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
    const temp = tempBeside(path);
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

/** Writes all of `data` at the fd's position (appends for an fd opened with "a"). */
export function writeAll(fd: number, data: string): number {
    const buffer = Buffer.from(data, "utf8");
    let done = 0;
    while (done < buffer.length) done += writeSync(fd, buffer, done, buffer.length - done);
    return buffer.length;
}

/**
 * Replaces `path` synchronously, for North's own small files: a temp file (mode 0600)
 * in the same directory, then rename. `sync` also fsyncs the data first.
 * A symlink at `path` is replaced, not followed: config files use `writeConfigFileAtomicSync`.
 */
export function writeFileAtomicSync(path: string, data: string, sync = false, mode = 0o600): void {
    const temp = tempBeside(path);
    try {
        const fd = openSync(temp, "wx", mode);
        try {
            writeAll(fd, data);
            if (sync) fsyncSync(fd);
        } finally {
            closeSync(fd);
        }
        renameSync(temp, path);
    } catch (error) {
        try {
            unlinkSync(temp);
        } catch {
            // never created
        }
        throw error;
    }
}

/** Linux's own limit on links followed while resolving one path. */
const MAX_LINK_HOPS = 40;

/**
 * The file a write to `path` lands in: folders resolved to their real place,
 * and a symlink at the end followed to its target, which may not exist yet
 * (a dangling link). Throws when a folder on the way does not exist.
 */
function resolveWriteTarget(path: string): string {
    let current = resolve(path);
    for (let hop = 0; hop <= MAX_LINK_HOPS; hop++) {
        const leaf = join(realpathSync(dirname(current)), basename(current));
        let link: string;
        try {
            link = readlinkSync(leaf);
        } catch (error) {
            const code = (error as NodeJS.ErrnoException).code;
            // EINVAL: a file that is not a link; ENOENT: nothing there yet.
            if (code === "EINVAL" || code === "ENOENT") return leaf;
            throw error;
        }
        current = resolve(dirname(leaf), link);
    }
    throw new Error(`${path}: too many levels of symbolic links`);
}

/**
 * Where a config write to `path` lands (`writeConfigFileAtomicSync`): links
 * followed; with `within`, a target outside that folder throws.
 */
export function configWriteTarget(path: string, within?: string): string {
    const target = resolveWriteTarget(path);
    if (within !== undefined) {
        const root = realpathSync(within);
        if (!isPathInside(root, target)) {
            throw new Error(
                `${path} leads through a symbolic link to ${target}, outside the project ${root}; ` +
                    "North does not write through it. Replace the link with a file of its own."
            );
        }
    }
    return target;
}

export interface ConfigWriteOptions {
    /** Mode of a new file (default 0600); an existing file keeps its own. */
    mode?: number;
    /** fsync the data before the rename. */
    sync?: boolean;
    /**
     * A project-level file: where it lands (links followed) must be inside
     * this folder, or nothing is written and the error says why.
     */
    within?: string;
}

/**
 * Writes a file North keeps for the user or the project (config.json, trust,
 * costs, profiles, prompt history, a project's local settings, `.mcp.json`)
 * atomically without breaking how the user set it up: a symlink (a dotfiles
 * link) is written through, the temp file beside its target and renamed over
 * the target, so it stays a link. With `within`, a file whose link (or a
 * linked folder on its way) leads outside that folder is refused.
 */
export function writeConfigFileAtomicSync(
    path: string,
    data: string,
    options: ConfigWriteOptions = {}
): void {
    const target = configWriteTarget(path, options.within);
    let mode = options.mode ?? 0o600;
    try {
        mode = statSync(target).mode & 0o777;
    } catch {
        // a new file
    }
    writeFileAtomicSync(target, data, options.sync ?? false, mode);
}
