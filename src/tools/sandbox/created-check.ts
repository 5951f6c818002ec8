/**
 * The check that stands in for a read-only mount where a mount cannot work:
 * a protected file in the project root, one in a folder that does not exist
 * yet, git's `commondir` or `config.worktree` in a git dir git must keep
 * writing to. Listed before the command; whatever of those exists after it
 * and did not before is removed and named in the command's result. The
 * command's processes are all gone by then (bubblewrap's PID namespace), so
 * nothing can recreate it behind the check. A protected entry that is a link
 * (`.mcp.json -> config/mcp.json`, a linked `.git/config`) is protected by a
 * mount on its target, which does not stop the link itself from being
 * replaced: a link changed by the command is put back.
 */
import { readlinkSync, rmSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { protectedEntries } from "./protected-mounts";
import { lstatQuiet } from "./path-probe";

export interface CreatedCheck {
    /** Removes what the command created that it may not, and says what, or undefined. */
    finish(): string | undefined;
}

function exists(path: string): boolean {
    return lstatQuiet(path) !== undefined;
}

/** Where `path` links to, or undefined when it is not a link. */
function linkTarget(path: string): string | undefined {
    if (!lstatQuiet(path)?.isSymbolicLink()) return undefined;
    try {
        return readlinkSync(path);
    } catch {
        return undefined;
    }
}

/**
 * Starts the check for one command: `watched` are absolute paths that do not exist now,
 * `entries` the protected entries that do (protectedEntries, already listed by the caller).
 */
export function startCreatedCheck(
    root: string,
    watched: readonly string[],
    entries = protectedEntries(root),
    /** Protected paths outside the listed entries that may be links (git's program files). */
    maybeLinks: readonly string[] = []
): CreatedCheck {
    const before = new Set(entries);
    const links = new Map<string, string>();
    for (const path of [...entries.map((rel) => join(root, rel)), ...maybeLinks]) {
        const target = linkTarget(path);
        if (target !== undefined) links.set(path, target);
    }
    const nameOf = (path: string): string => {
        const rel = relative(root, path);
        return rel.startsWith("..") ? path : rel;
    };
    return {
        finish() {
            const created = [
                ...protectedEntries(root)
                    .filter((rel) => !before.has(rel))
                    .map((rel) => join(root, rel)),
                ...watched.filter(exists),
            ];
            const changedLinks = [...links].filter(([path, target]) => linkTarget(path) !== target);
            if (created.length === 0 && changedLinks.length === 0) return undefined;
            const removed: string[] = [];
            const restored: string[] = [];
            const kept: string[] = [];
            for (const path of created) {
                try {
                    rmSync(path, { recursive: true, force: true });
                    removed.push(nameOf(path));
                } catch (error) {
                    kept.push(`${nameOf(path)} (${(error as Error).message})`);
                }
            }
            for (const [path, target] of changedLinks) {
                try {
                    rmSync(path, { recursive: true, force: true });
                    symlinkSync(target, path);
                    restored.push(nameOf(path));
                } catch (error) {
                    kept.push(`${nameOf(path)} (${(error as Error).message})`);
                }
            }
            const parts: string[] = [];
            if (restored.length > 0) {
                parts.push(
                    `The sandbox put back the link ${restored.join(", ")}, which the command replaced: ` +
                        `a sandboxed command may not change configuration that runs programs.`
                );
            }
            if (removed.length > 0) {
                parts.push(
                    `The sandbox removed ${removed.join(", ")}: a sandboxed command may not create ` +
                        `configuration that runs programs (North's, editors', CI's, git's config, ` +
                        `hooks, commondir, alternates); the user can write it outside the sandbox.`
                );
            }
            if (kept.length > 0) {
                parts.push(
                    `The sandbox could not undo ${kept.join(", ")}, which the command created or changed: ` +
                        `check it before running git or opening the project in an editor.`
                );
            }
            return parts.join(" ");
        },
    };
}
