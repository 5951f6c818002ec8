/**
 * The path guard for plugin folders: every path a plugin names stays inside
 * the plugin folder, lexically and after symlinks are resolved. A symlink
 * out of the folder is never followed.
 */
import { lstatSync, realpathSync, type Stats } from "node:fs";
import { normalize, resolve } from "node:path";
import { isPathInside } from "../../util/read-regular-file";

/** A manifest path that breaks the rules: the plugin fails with this message. */
export class PluginPathError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "PluginPathError";
    }
}

/**
 * Checks a path as a manifest writes it (`./commands/x.md`) and returns it
 * absolute. It must start with `./` (`"."` too when `allowDot`), and may not
 * leave the plugin folder (`./../x`); `where` names the file and field.
 */
export function manifestPath(
    root: string,
    written: string,
    where: string,
    allowDot = false
): string {
    if (written === "." || written === "./") {
        if (allowDot) return root;
        throw new PluginPathError(
            `${where}: "${written}" is the plugin folder itself; name a path inside it`
        );
    }
    if (!written.startsWith("./")) {
        throw new PluginPathError(
            `${where}: "${written}" must be relative to the plugin folder and start with "./"`
        );
    }
    const absolute = resolve(root, normalize(written));
    if (!isPathInside(root, absolute)) {
        throw new PluginPathError(
            `${where}: "${written}" leaves the plugin folder; only the plugin folder is installed`
        );
    }
    return absolute;
}

export type GuardedPath =
    | { kind: "missing" }
    | { kind: "outside"; message: string }
    | { kind: "file" | "directory" | "other"; real: string; stats: Stats };

/**
 * What `path` (inside `root`, which is already real) is once symlinks are
 * resolved; `outside` when it resolves out of the plugin folder.
 */
export function guardPath(root: string, path: string, label: string): GuardedPath {
    let link: Stats;
    try {
        link = lstatSync(path);
    } catch {
        return { kind: "missing" };
    }
    let real: string;
    try {
        // The path itself or a folder above it may be a symlink.
        real = realpathSync(path);
    } catch {
        return { kind: "missing" };
    }
    if (!isPathInside(root, real)) {
        return {
            kind: "outside",
            message: `${label} is a symlink leading out of the plugin folder; refused`,
        };
    }
    const stats = link.isSymbolicLink() ? lstatSync(real) : link;
    const kind = stats.isFile() ? "file" : stats.isDirectory() ? "directory" : "other";
    return { kind, real, stats };
}

/** A display path relative to the plugin folder: `commands/x.md`. */
export function shown(root: string, path: string): string {
    const rel = path.startsWith(root) ? path.slice(root.length).replace(/^[/\\]/, "") : path;
    return rel === "" ? "." : rel;
}
