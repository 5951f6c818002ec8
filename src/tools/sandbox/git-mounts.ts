/**
 * git's program-running files in the project's repositories, for the sandbox:
 * a command may write objects, refs, the index and HEAD (so `git commit`
 * works), never what makes git run a program or read another repository on
 * the user's next `git` outside: `config`, `config.worktree`, `commondir`,
 * `gitdir`, `objects/info/alternates`, `hooks/`, `info/`. Those that exist
 * are mounted read-only; those that do not are watched (their parent, the git
 * dir, must stay writable for git) and removed after the command if it made
 * them. Repositories covered: the project's own (a `.git` folder, or the git
 * dir a `.git` file points to, as in a linked worktree or a submodule), its
 * submodules (`.git/modules/**`), its linked worktrees' git dirs
 * (`.git/worktrees/*`), and repositories nested one folder below the root.
 * Each git dir is also mounted onto itself, so it cannot be renamed away and
 * replaced by a planted one, and each `.git` file (a linked worktree's, a
 * submodule checkout's) is read-only, so it cannot point git elsewhere.
 */
import { readFileSync, readdirSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { lstatQuiet, statQuiet } from "./path-probe";

/** Files and folders of a git dir that decide which programs git runs or which repository it reads. */
export const GIT_PROGRAM_ENTRIES = [
    "config",
    "config.worktree",
    "commondir",
    "gitdir",
    "objects/info/alternates",
    "hooks",
    "info",
];

/** Submodules nest; a bound on how deep `.git/modules` is followed. */
const MAX_MODULE_DEPTH = 4;

export interface GitMounts {
    /** Git dirs (real paths), each bound onto itself writable: not renamable, not replaceable. */
    gitDirs: string[];
    /**
     * Outside the project, writable: the git dir the project's `.git` file points to (a linked
     * worktree's, a submodule checkout's) and a linked worktree's common objects, refs and logs.
     */
    writable: string[];
    /** The common dirs of linked worktrees: git reads their config, so they must be visible. */
    commonDirs: string[];
    /** Existing program files: read-only. */
    readOnly: string[];
    /** Program files that do not exist: must not exist after the command either. */
    watched: string[];
    /** Program files and `.git` entries as named in the git dir (links included, unresolved). */
    named: string[];
}

function realOrNull(path: string): string | null {
    try {
        return realpathSync(path);
    } catch {
        return null;
    }
}

// Looked up before every command: no exception for a path that is not there.
function isDirectory(path: string): boolean {
    return statQuiet(path)?.isDirectory() ?? false;
}

function exists(path: string): boolean {
    return lstatQuiet(path) !== undefined;
}

function entriesOf(dir: string): string[] {
    if (!isDirectory(dir)) return [];
    try {
        return readdirSync(dir);
    } catch {
        return [];
    }
}

/** Names of the folders (and links, which may lead to one) in `dir`. */
function folderEntriesOf(dir: string): string[] {
    try {
        return readdirSync(dir, { withFileTypes: true })
            .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
            .map((entry) => entry.name);
    } catch {
        return [];
    }
}

/** The git dir a `.git` entry stands for: the folder itself, or where a `gitdir: …` file points. */
export function gitDirOf(dotGit: string): string | null {
    if (isDirectory(dotGit)) return realOrNull(dotGit);
    let text: string;
    try {
        text = readFileSync(dotGit, "utf8");
    } catch {
        return null;
    }
    const match = /^gitdir: (.+)$/m.exec(text);
    if (!match) return null;
    const target = match[1]!.trim();
    const abs = isAbsolute(target) ? target : resolve(dirname(dotGit), target);
    return isDirectory(abs) ? realOrNull(abs) : null;
}

/** A linked worktree's git dir names its repository's common dir in `commondir`. */
export function commonDirOf(gitDir: string): string | null {
    if (!exists(join(gitDir, "commondir"))) return null;
    let text: string;
    try {
        text = readFileSync(join(gitDir, "commondir"), "utf8").trim();
    } catch {
        return null;
    }
    if (text === "") return null;
    const abs = isAbsolute(text) ? text : resolve(gitDir, text);
    return isDirectory(abs) ? realOrNull(abs) : null;
}

/** Every git dir reachable from the project: its own, submodules', worktrees', nested ones'. */
/** A submodule's git dir names its checkout in `core.worktree`; the checkout's `.git` file points back. */
function worktreeOf(gitDir: string): string | null {
    let text: string;
    try {
        text = readFileSync(join(gitDir, "config"), "utf8");
    } catch {
        return null;
    }
    const match = /^\s*worktree\s*=\s*(.+?)\s*$/m.exec(text);
    return match ? resolve(gitDir, match[1]!) : null;
}

interface GitDirs {
    dirs: string[];
    linked: { gitDir: string; common: string }[];
    /** `.git` files (a linked worktree's, a submodule checkout's): rewritten, they point git elsewhere. */
    dotGitFiles: string[];
}

function gitDirsOf(root: string): GitDirs {
    const dirs: string[] = [];
    const linked: { gitDir: string; common: string }[] = [];
    const dotGitFiles: string[] = [];
    const visitDotGit = (dotGit: string, depth: number): void => {
        const stat = lstatQuiet(dotGit);
        if (stat === undefined) return;
        if (stat.isFile() && !dotGitFiles.includes(dotGit)) dotGitFiles.push(dotGit);
        visit(gitDirOf(dotGit), depth);
    };
    const visit = (gitDir: string | null, depth: number): void => {
        if (gitDir === null || dirs.includes(gitDir)) return;
        dirs.push(gitDir);
        const checkout = worktreeOf(gitDir);
        if (checkout !== null) visitDotGit(join(checkout, ".git"), depth);
        const common = commonDirOf(gitDir);
        if (common !== null && common !== gitDir) {
            linked.push({ gitDir, common });
            // Not its other worktrees or submodules: those are other projects' to write.
            visit(common, MAX_MODULE_DEPTH);
        }
        if (depth >= MAX_MODULE_DEPTH) return;
        for (const kind of ["modules", "worktrees"]) {
            const parent = join(gitDir, kind);
            for (const name of entriesOf(parent)) visitModule(join(parent, name), depth + 1);
        }
    };
    // `modules/a/b` is submodule `a/b`: a git dir is a folder with HEAD, else look below.
    const visitModule = (dir: string, depth: number): void => {
        if (!isDirectory(dir)) return;
        if (exists(join(dir, "HEAD"))) return visit(realOrNull(dir), depth);
        if (depth >= MAX_MODULE_DEPTH) return;
        for (const name of entriesOf(dir)) visitModule(join(dir, name), depth + 1);
    };
    visitDotGit(join(root, ".git"), 0);
    for (const entry of folderEntriesOf(root)) {
        if (entry === ".git" || entry === "node_modules") continue;
        visitDotGit(join(root, entry, ".git"), 0);
    }
    return { dirs, linked, dotGitFiles };
}

/** What to mount for the project's repositories; the caller drops git dirs outside writable places. */
export function gitMounts(root: string): GitMounts {
    const { dirs, linked, dotGitFiles } = gitDirsOf(root);
    const mounts: GitMounts = {
        gitDirs: dirs,
        writable: [],
        commonDirs: [...new Set(linked.map((link) => link.common))],
        readOnly: [...dotGitFiles],
        watched: [],
        named: [...dotGitFiles, join(root, ".git")],
    };
    const addWritable = (dir: string): void => {
        if (isDirectory(dir) && !mounts.writable.includes(dir)) mounts.writable.push(dir);
    };
    // A project whose `.git` file points out of it (a submodule checkout of a repository
    // outside): git writes that git dir as its own.
    const own = join(root, ".git");
    if (dotGitFiles.includes(own)) {
        const gitDir = gitDirOf(own);
        if (gitDir !== null) addWritable(gitDir);
    }
    for (const { gitDir, common } of linked) {
        // `git commit` in a linked worktree writes its index and HEAD, and the shared objects and refs.
        addWritable(gitDir);
        for (const dir of ["objects", "refs", "logs"]) addWritable(join(common, dir));
    }
    for (const gitDir of dirs) {
        for (const entry of GIT_PROGRAM_ENTRIES) {
            const path = join(gitDir, entry);
            if (exists(path)) {
                mounts.named.push(path);
                const real = realOrNull(path);
                if (real !== null && !mounts.readOnly.includes(real)) mounts.readOnly.push(real);
            } else mounts.watched.push(path);
        }
    }
    return mounts;
}
