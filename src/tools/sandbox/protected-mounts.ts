/**
 * The project's protected configuration, for the sandbox: an approved command
 * may write the project, not North's own settings, hooks or MCP servers, nor
 * the editor, CI and hook-manager files that run programs. What exists is
 * mounted read-only; so is a protected file's folder when the folder exists
 * (`.vscode/` with no `tasks.json` yet), so nothing new can appear in it.
 * What would land in the project root itself (`.mcp.json`, `.envrc`, …) or in
 * a folder that does not exist yet cannot be stopped by a mount without
 * leaving a placeholder in the repository: those are listed before and after
 * each command, and what the command created is removed (created-check.ts).
 * Only the project root and one folder below it are looked at.
 */
import { readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { isPathInside } from "../../util/read-regular-file";
import { PROTECTED_CONFIG, protectedConfigOf } from "../protected-paths";
import { lstatQuiet } from "./path-probe";

function realOrNull(path: string): string | null {
    try {
        return realpathSync(path);
    } catch {
        return null;
    }
}

function entriesOf(dir: string): string[] {
    try {
        return readdirSync(dir);
    } catch {
        return [];
    }
}

/** A folder, or a link (to a folder, or dangling: it may become one): counted as a folder. */
function isFolderOrLink(path: string): boolean {
    const stat = lstatQuiet(path);
    if (stat === undefined || stat.isSymbolicLink()) return stat !== undefined;
    return stat.isDirectory();
}

/** Whether `rel` (a file, or a folder when `dir`) is protected configuration. */
function isProtected(rel: string, dir: boolean): boolean {
    return protectedConfigOf(rel) !== null || (dir && protectedConfigOf(`${rel}/x`) !== null);
}

/** Root folders that hold protected files (`.vscode`, `.github`, `.cursor`, …), lower-case. */
const PROTECTED_PARENTS: ReadonlySet<string> = new Set(
    PROTECTED_CONFIG.flatMap((config) => config.patterns)
        .filter((pattern) => pattern.includes("/"))
        .map((pattern) => pattern.split("/")[0]!.toLowerCase())
        .filter((name) => !/[*?[]/.test(name))
);

/**
 * Protected configuration at the root and one folder below, as root-relative
 * paths (`.mcp.json`, `.vscode/tasks.json`, `.north`): a protected folder is
 * listed, not its contents. `.git` is git-mounts.ts's.
 */
export function protectedEntries(root: string): string[] {
    const found: string[] = [];
    for (const name of entriesOf(root)) {
        if (name.toLowerCase() === ".git") continue;
        const dir = isFolderOrLink(join(root, name));
        if (isProtected(name, dir)) {
            found.push(name);
            continue;
        }
        if (!dir || !name.startsWith(".")) continue;
        for (const inner of entriesOf(join(root, name))) {
            const rel = `${name}/${inner}`;
            if (isProtected(rel, isFolderOrLink(join(root, rel)))) found.push(rel);
        }
    }
    return found;
}

/** Absolute real paths to bind read-only, parents before children, each once. */
export function protectedMounts(root: string, entries = protectedEntries(root)): string[] {
    const found: string[] = [];
    const add = (path: string): void => {
        const real = realOrNull(path);
        // A link to the root or above it would cover the whole project read-only.
        if (real === null || isPathInside(real, root) || found.includes(real)) return;
        found.push(real);
    };
    for (const name of entriesOf(root)) {
        if (PROTECTED_PARENTS.has(name.toLowerCase()) && isFolderOrLink(join(root, name))) {
            add(join(root, name));
        }
    }
    for (const rel of entries) add(join(root, rel));
    return found.filter(
        (path, i) => !found.some((other, j) => j < i && other !== path && isPathInside(other, path))
    );
}

/** Protected paths without wildcards that do not exist at the root (`.mcp.json`, `.north`, …). */
export function missingProtectedPaths(root: string): string[] {
    return PROTECTED_CONFIG.flatMap((config) => config.patterns)
        .map((pattern) => pattern.replace(/\/\*\*$/, ""))
        .filter((pattern) => !/[*?[]/.test(pattern))
        .map((pattern) => join(root, pattern))
        .filter((path) => lstatQuiet(path) === undefined);
}
