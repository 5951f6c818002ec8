/**
 * The git branch the project is on, read from the files git keeps (no git
 * process): `.git/HEAD`, or the HEAD of the folder a worktree's `.git` file
 * names (`gitdir: …`). A detached HEAD reads as its short commit id. The
 * watch uses the file system's notifications (inotify, FSEvents), never a
 * timer: a `git switch` elsewhere shows within a moment and nothing runs at idle.
 */
import { type FSWatcher, readFileSync, statSync, watch } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** The folder holding HEAD for the work tree at `root` (or above it), or null outside git. */
export function findGitDir(root: string): string | null {
    let dir = resolve(root);
    for (;;) {
        const dotGit = join(dir, ".git");
        try {
            if (statSync(dotGit).isDirectory()) return dotGit;
            const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"));
            if (match?.[1]) return isAbsolute(match[1]) ? match[1] : resolve(dir, match[1]);
            return null;
        } catch {
            // no .git here: look further up
        }
        const parent = dirname(dir);
        if (parent === dir) return null;
        dir = parent;
    }
}

/** "main" for `ref: refs/heads/main`, "1a2b3c4" for a detached HEAD, null when unreadable. */
export function branchOfHead(head: string): string | null {
    const text = head.trim();
    const ref = /^ref:\s*(\S+)$/.exec(text);
    if (ref?.[1]) return ref[1].replace(/^refs\/heads\//, "");
    if (/^[0-9a-f]{7,64}$/i.test(text)) return text.slice(0, 7);
    return null;
}

export function readGitBranch(gitDir: string): string | null {
    try {
        return branchOfHead(readFileSync(join(gitDir, "HEAD"), "utf8"));
    } catch {
        return null;
    }
}

/**
 * Calls `onChange` with the branch whenever HEAD changes. Git replaces HEAD
 * by renaming a lock file over it, so the folder is watched, not the file.
 * Returns the stop; a folder that cannot be watched just never changes.
 */
export function watchGitBranch(
    gitDir: string,
    onChange: (branch: string | null) => void
): () => void {
    let last = readGitBranch(gitDir);
    let watcher: FSWatcher | null = null;
    try {
        watcher = watch(gitDir, { persistent: false }, (_event, file) => {
            if (file !== null && file !== "HEAD") return;
            const next = readGitBranch(gitDir);
            if (next === last) return;
            last = next;
            onChange(next);
        });
        watcher.on("error", () => watcher?.close());
    } catch {
        // e.g. too many watches: the branch shown stays as it was read
    }
    return () => watcher?.close();
}
