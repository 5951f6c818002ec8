/**
 * Copies a plugin folder out of its marketplace clone into North's staging
 * folder: folders and regular files (modes kept, set-id bits dropped), never
 * `.git`, and a symlink only when it resolves inside the plugin (recreated
 * relative); a link out of the plugin is skipped with a warning, never
 * followed. Bounded like the fingerprint, so a huge or looping tree stops.
 */
import {
    chmodSync,
    copyFileSync,
    lstatSync,
    mkdirSync,
    readdirSync,
    realpathSync,
    statSync,
    symlinkSync,
} from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { isPathInside } from "../../util/read-regular-file";

export const MAX_PLUGIN_FILES = 5_000;
export const MAX_PLUGIN_BYTES = 256 * 1024 * 1024;

export class PluginCopyError extends Error {}

class TreeCopy {
    readonly warnings: string[] = [];
    private files = 0;
    private bytes = 0;

    constructor(
        private readonly realRoot: string,
        private readonly destRoot: string
    ) {}

    private count(size: number, path: string): void {
        this.files += 1;
        this.bytes += size;
        if (this.files > MAX_PLUGIN_FILES) {
            throw new PluginCopyError(
                `the plugin has more than ${MAX_PLUGIN_FILES} files (at ${path}); North does not install it`
            );
        }
        if (this.bytes > MAX_PLUGIN_BYTES) {
            throw new PluginCopyError(
                `the plugin is larger than ${MAX_PLUGIN_BYTES / 1024 / 1024} MB; North does not install it`
            );
        }
    }

    copyDir(relativeDir: string): void {
        const from = join(this.realRoot, relativeDir);
        const to = join(this.destRoot, relativeDir);
        mkdirSync(to, { recursive: true, mode: 0o755 });
        for (const name of readdirSync(from).sort()) {
            if (name === ".git") continue;
            this.copyEntry(join(relativeDir, name));
        }
    }

    private copyEntry(path: string): void {
        const from = join(this.realRoot, path);
        const to = join(this.destRoot, path);
        const shown = path.split(sep).join("/");
        const stat = lstatSync(from);
        if (stat.isDirectory()) return this.copyDir(path);
        if (stat.isFile()) {
            this.count(stat.size, shown);
            copyFileSync(from, to);
            chmodSync(to, stat.mode & 0o777);
            return;
        }
        if (stat.isSymbolicLink()) {
            let target: string;
            try {
                target = realpathSync(from);
            } catch {
                this.warnings.push(`${shown}: a symlink to nothing; skipped`);
                return;
            }
            if (!isPathInside(this.realRoot, target) || target === this.realRoot) {
                this.warnings.push(`${shown}: a symlink out of the plugin folder; skipped`);
                return;
            }
            this.count(0, shown);
            const relativeTarget = relative(dirname(from), target);
            symlinkSync(relativeTarget, to, statSync(target).isDirectory() ? "dir" : "file");
            return;
        }
        this.warnings.push(`${shown}: not a regular file, folder or symlink; skipped`);
    }
}

/**
 * Copies `source` (a folder) into `dest` (created); returns warnings for what
 * it skipped. Throws PluginCopyError when the plugin is over the bounds.
 */
export function copyPluginTree(source: string, dest: string): { warnings: string[] } {
    const realRoot = realpathSync(resolve(source));
    if (!statSync(realRoot).isDirectory()) {
        throw new PluginCopyError(`${source} is not a folder`);
    }
    const copy = new TreeCopy(realRoot, dest);
    copy.copyDir("");
    return { warnings: copy.warnings };
}
