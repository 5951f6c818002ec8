/**
 * The project's protected configuration that exists right now, as absolute
 * real paths to mount read-only inside the sandbox: an approved command may
 * write the project, not North's own settings, hooks or MCP servers, nor git's
 * config and hooks (which run programs on the user's next `git` outside).
 * Only the project root and one folder below it are looked at (a nested
 * project has its own); a protected file the command creates is not stopped.
 */
import { readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { isInside } from "../path-guard";
import { protectedConfigOf } from "../protected-paths";

/** git internals that configure programs git runs: read-only, unlike objects, refs and the index. */
const GIT_CONFIG_ENTRIES = ["config", "hooks", "info"];

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

function isDirectory(path: string): boolean {
    try {
        return statSync(path).isDirectory();
    } catch {
        return false;
    }
}

/** Whether `rel` (a file, or a folder when `dir`) is protected configuration. */
function isProtected(rel: string, dir: boolean): boolean {
    return protectedConfigOf(rel) !== null || (dir && protectedConfigOf(`${rel}/x`) !== null);
}

/** Absolute real paths to bind read-only, parents before children, each once. */
export function protectedMounts(root: string): string[] {
    const found: string[] = [];
    const add = (path: string): void => {
        const real = realOrNull(path);
        // A link to the root or above it would cover the whole project read-only.
        if (real === null || isInside(real, root) || found.includes(real)) return;
        found.push(real);
    };
    for (const name of entriesOf(root)) {
        const abs = join(root, name);
        const dir = isDirectory(abs);
        if (name.toLowerCase() === ".git") {
            if (!dir) continue; // a worktree's pointer file; its real git dir is elsewhere
            const gitEntries = entriesOf(abs);
            for (const entry of GIT_CONFIG_ENTRIES) {
                if (gitEntries.includes(entry)) add(join(abs, entry));
            }
            continue;
        }
        if (isProtected(name, dir)) {
            add(abs);
            continue;
        }
        // `.vscode/tasks.json`, `.github/workflows/`, `.cursor/mcp.json`: one level down.
        if (!dir || !name.startsWith(".")) continue;
        for (const inner of entriesOf(abs)) {
            const rel = `${name}/${inner}`;
            if (isProtected(rel, isDirectory(join(abs, inner)))) add(join(abs, inner));
        }
    }
    return found;
}
