import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export type RepoRootResult = { ok: true; root: string } | { ok: false; error: string };

/**
 * The project root for a start directory: the nearest ancestor holding `.git`,
 * or the directory itself when it is not inside a repository. Always real
 * (symlinks resolved), since path confinement compares real paths.
 */
export function detectRepoRoot(startDir: string): RepoRootResult {
    const absolute = resolve(startDir);
    let real: string;
    try {
        real = realpathSync(absolute);
        if (!statSync(real).isDirectory())
            return { ok: false, error: `${startDir} is not a directory` };
    } catch {
        return { ok: false, error: `${startDir} does not exist` };
    }
    for (let dir = real; ; dir = dirname(dir)) {
        if (existsSync(join(dir, ".git"))) return { ok: true, root: dir };
        if (dirname(dir) === dir) break;
    }
    return { ok: true, root: real };
}
