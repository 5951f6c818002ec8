/**
 * The check that stands in for a read-only mount where a mount cannot work:
 * a protected file in the project root, one in a folder that does not exist
 * yet, git's `commondir` or `config.worktree` in a git dir git must keep
 * writing to. Listed before the command; whatever of those exists after it
 * and did not before is removed and named in the command's result. The
 * command's processes are all gone by then (bubblewrap's PID namespace), so
 * nothing can recreate it behind the check.
 */
import { lstatSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { protectedEntries } from "./protected-mounts";

export interface CreatedCheck {
    /** Removes what the command created that it may not, and says what, or undefined. */
    finish(): string | undefined;
}

function exists(path: string): boolean {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

/**
 * Starts the check for one command: `watched` are absolute paths that do not exist now,
 * `entries` the protected entries that do (protectedEntries, already listed by the caller).
 */
export function startCreatedCheck(
    root: string,
    watched: readonly string[],
    entries = protectedEntries(root)
): CreatedCheck {
    const before = new Set(entries);
    return {
        finish() {
            const created = [
                ...protectedEntries(root)
                    .filter((rel) => !before.has(rel))
                    .map((rel) => join(root, rel)),
                ...watched.filter(exists),
            ];
            if (created.length === 0) return undefined;
            const removed: string[] = [];
            const kept: string[] = [];
            for (const path of created) {
                const rel = relative(root, path);
                const name = rel.startsWith("..") ? path : rel;
                try {
                    rmSync(path, { recursive: true, force: true });
                    removed.push(name);
                } catch (error) {
                    kept.push(`${name} (${(error as Error).message})`);
                }
            }
            const parts: string[] = [];
            if (removed.length > 0) {
                parts.push(
                    `The sandbox removed ${removed.join(", ")}: a sandboxed command may not create ` +
                        `configuration that runs programs (North's, editors', CI's, git's config, ` +
                        `hooks, commondir, alternates); the user can write it outside the sandbox.`
                );
            }
            if (kept.length > 0) {
                parts.push(
                    `The sandbox could not remove ${kept.join(", ")}, which the command created: ` +
                        `check it before running git or opening the project in an editor.`
                );
            }
            return parts.join(" ");
        },
    };
}
