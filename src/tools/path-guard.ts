/**
 * Confines user-supplied paths to the project root, symlinks included:
 * normalize, check the boundary, resolve symlinks (realpath), check again.
 * A path that does not exist yet is judged by its nearest existing ancestor,
 * so a file cannot be created through a symlinked directory that leaves the repo.
 */
import { promises as fs, lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { type ProtectedConfig, isGitInternal, protectedConfigOf } from "./protected-paths";
import { type ToolResult, toolError, toolOk } from "./types";
import { isPathInside } from "../util/read-regular-file";

export interface SafePath {
    /** Normalized absolute path as requested (symlinks not resolved). */
    absPath: string;
    /** Symlink-resolved absolute path; for a missing path, its real ancestor plus the rest. */
    realPath: string;
    /** Repo-relative POSIX form of `absPath` ("." for the root itself). */
    relPath: string;
    exists: boolean;
}

export interface ResolveOptions {
    /** Fail with `not_found` when the path does not exist. */
    mustExist: boolean;
    /**
     * `--add-dir`: directories outside the project that paths may also lead
     * into (absolute and symlink-resolved). A path in one is judged exactly
     * like a path in the project, symlinks included. Absent: none.
     */
    addedRoots?: readonly string[];
}

/** Where paths may lead: the project and the `--add-dir` directories (a `ToolContext` is one). */
export interface PathRoots {
    repoRoot: string;
    addedRoots?: readonly string[];
}

function toRel(root: string, abs: string): string {
    const rel = path.relative(root, abs);
    return rel === "" ? "." : rel.split(path.sep).join("/");
}

function outside(userPath: string, detail: string, added: boolean): ToolResult<never> {
    const rule = added
        ? "Paths must stay inside the project or a directory added with --add-dir; use a path relative to the project root, or an absolute path in an added directory."
        : "Paths must stay inside the project; use a path relative to the project root.";
    return toolError("path_outside_repo", `Path "${userPath}" ${detail}. ${rule}`);
}

/** The `code` of an fs error (ENOENT, ...), if it has one. */
export function errnoCode(error: unknown): string | undefined {
    return typeof error === "object" && error !== null && "code" in error
        ? String((error as { code: unknown }).code)
        : undefined;
}

/**
 * Resolves `userPath` (relative to `repoRoot`, or absolute inside it) and makes
 * sure neither the path nor what its symlinks point at leaves the project.
 * `repoRoot` must already be absolute and symlink-resolved.
 */
export async function resolveSafePath(
    repoRoot: string,
    userPath: string,
    options: ResolveOptions
): Promise<ToolResult<SafePath>> {
    if (typeof userPath !== "string" || userPath.trim() === "") {
        return toolError(
            "invalid_path",
            "Path is empty; give a path relative to the project root."
        );
    }
    if (userPath.includes("\0")) {
        return toolError("invalid_path", `Path ${JSON.stringify(userPath)} contains a NUL byte.`);
    }
    const added = options.addedRoots ?? [];
    const roots = [repoRoot, ...added];
    const allowed = (target: string): boolean => roots.some((r) => isPathInside(r, target));
    const viaLink = (): ToolResult<never> =>
        outside(
            userPath,
            `goes through a symbolic link that points outside the project${added.length > 0 ? " and the added directories" : ""}`,
            added.length > 0
        );
    const absPath = path.resolve(repoRoot, userPath);
    // The root the path lies in: the project first, then the added directories.
    const root = roots.find((r) => isPathInside(r, absPath));
    if (root === undefined) {
        const detail = `is outside the project root${added.length > 0 ? " and the added directories" : ""}`;
        return outside(userPath, detail, added.length > 0);
    }
    const relPath = toRel(repoRoot, absPath);

    try {
        const realPath = await fs.realpath(absPath);
        if (!allowed(realPath)) return viaLink();
        return toolOk({ absPath, realPath, relPath, exists: true });
    } catch (error) {
        const code = errnoCode(error);
        if (code === "ELOOP") {
            return toolError("invalid_path", `Path "${userPath}" has a symbolic link loop.`);
        }
        if (code !== "ENOENT" && code !== "ENOTDIR") {
            return toolError("io_error", `Cannot resolve "${userPath}": ${String(error)}`);
        }
    }

    // Missing: judge the nearest existing ancestor (it may be a symlink out of the repo).
    let candidate = absPath;
    for (;;) {
        const broken = await brokenLink(candidate);
        if (broken !== null) {
            return allowed(broken)
                ? toolError(
                      "invalid_path",
                      `Path "${userPath}" goes through a broken symbolic link.`
                  )
                : viaLink();
        }
        const ancestor = path.dirname(candidate);
        if (ancestor === candidate || !isPathInside(root, ancestor)) {
            return toolError("io_error", "The project root no longer exists.");
        }
        candidate = ancestor;
        let realAncestor: string;
        try {
            realAncestor = await fs.realpath(ancestor);
        } catch (error) {
            const code = errnoCode(error);
            if (code === "ENOENT" || code === "ENOTDIR") continue;
            return toolError("io_error", `Cannot resolve "${userPath}": ${String(error)}`);
        }
        if (!allowed(realAncestor)) return viaLink();
        if (options.mustExist) {
            return toolError(
                "not_found",
                `"${relPath}" does not exist. Use find_files to look for the right path.`
            );
        }
        const realPath = path.join(realAncestor, path.relative(ancestor, absPath));
        return toolOk({ absPath, realPath, relPath, exists: false });
    }
}

/** Links followed before a path counts as a loop (Linux's own limit). */
const MAX_LINKS = 40;

/**
 * Where a write to `absPath` lands: the symlinks of its existing part followed
 * (a link to a missing file too), the rest as written; undefined for a link
 * loop. Synchronous, for the command judge, which judges redirections as it parses.
 */
export function realPathOfWriteSync(absPath: string): string | undefined {
    let existing = absPath;
    const rest: string[] = [];
    for (let links = 0; links <= MAX_LINKS;) {
        try {
            return path.join(realpathSync(existing), ...rest);
        } catch {
            // Missing or a broken link: follow the link, else go up one level.
        }
        let target: string | undefined;
        try {
            if (lstatSync(existing).isSymbolicLink()) target = readlinkSync(existing);
        } catch {
            target = undefined;
        }
        if (target !== undefined) {
            existing = path.resolve(path.dirname(existing), target);
            links++;
            continue;
        }
        const parent = path.dirname(existing);
        if (parent === existing) return absPath;
        rest.unshift(path.basename(existing));
        existing = parent;
    }
    return undefined;
}

/** For a symlink whose target is missing, the (lexical) absolute target; otherwise null. */
async function brokenLink(candidate: string): Promise<string | null> {
    try {
        const stat = await fs.lstat(candidate);
        if (!stat.isSymbolicLink()) return null;
        const target = await fs.readlink(candidate);
        return path.resolve(path.dirname(candidate), target);
    } catch {
        return null;
    }
}

/**
 * `resolveSafePath` for writes: also refuses anything in git's internals, at
 * any depth (a `.git` folder, or the `.git` file of a worktree or submodule):
 * a hook or a `core.fsmonitor` line written there would run on the next git
 * command. Judged on the path as asked and on where its symlinks lead.
 * Protected configuration (`.north/`, `.mcp.json`, ...) is writable here; the
 * write review decides whether it needs the user (`protectedConfigFor`).
 */
export async function resolveWritablePath(
    repoRoot: string,
    userPath: string,
    options: ResolveOptions
): Promise<ToolResult<SafePath>> {
    const safe = await resolveSafePath(repoRoot, userPath, options);
    if (!safe.ok) return safe;
    for (const rel of [safe.data.relPath, toRel(repoRoot, safe.data.realPath)]) {
        if (isGitInternal(rel)) {
            return toolError(
                "path_outside_repo",
                `"${userPath}" is inside git's internals (a .git folder or file), which North never writes to: git runs hooks and settings from there.`
            );
        }
    }
    return safe;
}

/**
 * The protected-config entry a resolved path falls under, judged on the path
 * as asked and on its real path (a symlink `notes -> .mcp.json` is protected).
 */
export function protectedConfigFor(repoRoot: string, safe: SafePath): ProtectedConfig | null {
    return protectedConfigOf(safe.relPath) ?? protectedConfigOf(toRel(repoRoot, safe.realPath));
}
