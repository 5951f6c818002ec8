/**
 * The check for repositories a sandboxed command made that the user's git may
 * enter: `git init sub`, a config naming a program, then a gitlink for `sub`
 * in the project's index, and the user's next `git status` outside runs it.
 * No mount can stop this (the repository did not exist before the command),
 * so after the command the repositories git may enter are compared with
 * before: those one or two folders below the root, and those the project's
 * index names as gitlinks (listed again only when the index changed, cached
 * per index otherwise). One that is new, or whose config, `config.worktree`,
 * `commondir`, hooks or `.git` entry changed, loses the config keys that run
 * programs (trust's list, util/git-program-keys.ts; includes too) and its
 * hooks that are not samples, and the command's result says so. Its other
 * files stay: a nested repository with no programs, or a submodule, keeps
 * working. Files outside the project are never changed: a `.git` file or
 * `commondir` the command left that leads to programs outside is removed instead.
 */
import { readFileSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { isPathInside } from "../../util/read-regular-file";
import { writeFileAtomicSync } from "../../util/atomic-write";
import { formatGitConfig, parseGitConfig } from "../../util/git-config-file";
import { listGitlinks } from "../../util/git-index";
import { isGitProgramKey } from "../../util/git-program-keys";
import { commonDirOf, gitDirOf } from "./git-mounts";
import { lstatQuiet } from "./path-probe";

export interface NestedGitCheck {
    /** Neutralises what repositories the command made or changed would run, and says what. */
    finish(): string | undefined;
}

/** A config larger than this is removed whole rather than read. */
const MAX_CONFIG_BYTES = 1024 * 1024;
const SKIPPED_FOLDERS = new Set([".git", "node_modules"]);

/** Gitlinks of an index, by index path: reused while the index file is unchanged. */
export type GitlinkCache = Map<string, { stamp: string; links: string[] }>;

/** Inode, change time and size: a file rewritten, replaced or renamed in changes it. */
function stampOf(path: string): string {
    const stat = lstatQuiet(path);
    return stat === undefined ? "-" : `${stat.ino}:${stat.ctimeMs}:${stat.size}`;
}

function realOrSelf(path: string): string {
    try {
        return realpathSync(path);
    } catch {
        return path;
    }
}

/** Real folders (not links) in `dir`, but `.git` and node_modules. */
function foldersIn(dir: string): string[] {
    try {
        return readdirSync(dir, { withFileTypes: true })
            .filter((entry) => entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name))
            .map((entry) => join(dir, entry.name));
    } catch {
        return [];
    }
}

/** Names of the hooks in `dir` git would run: not samples, not hidden. */
function hookNames(dir: string): string[] {
    try {
        return readdirSync(dir)
            .filter((name) => !name.endsWith(".sample") && !name.startsWith("."))
            .sort();
    } catch {
        return [];
    }
}

interface NestedRepo {
    gitDir: string;
    commonDir: string;
}

function repoOf(dotGit: string): NestedRepo | undefined {
    const gitDir = gitDirOf(dotGit);
    if (gitDir === null) return undefined;
    return { gitDir, commonDir: commonDirOf(gitDir) ?? gitDir };
}

/** What decides which programs the repository at `dotGit` runs; undefined when there is none. */
function signatureOf(dotGit: string): string | undefined {
    const entry = lstatQuiet(dotGit);
    if (entry === undefined) return undefined;
    // A .git folder changes with every commit: only its identity counts, a .git file's text too.
    const parts = [entry.isDirectory() ? `${entry.ino}` : stampOf(dotGit)];
    const repo = repoOf(dotGit);
    if (repo !== undefined) {
        const { gitDir, commonDir } = repo;
        parts.push(gitDir, commonDir);
        for (const path of [
            join(commonDir, "config"),
            join(gitDir, "config"),
            join(gitDir, "config.worktree"),
            join(gitDir, "commondir"),
            join(commonDir, "hooks"),
        ]) {
            parts.push(stampOf(path));
        }
        for (const name of hookNames(join(commonDir, "hooks"))) {
            parts.push(name, stampOf(join(commonDir, "hooks", name)));
        }
    }
    return parts.join("\0");
}

/** The project's index and its gitlinks (cached while the index is unchanged). */
function gitlinksOf(root: string, index: string | undefined, gitlinkCache: GitlinkCache): string[] {
    if (index === undefined) return [];
    const stamp = stampOf(index);
    if (stamp === "-") return [];
    const cached = gitlinkCache.get(index);
    if (cached?.stamp === stamp) return cached.links;
    const links = listGitlinks(root) ?? [];
    gitlinkCache.set(index, { stamp, links });
    return links;
}

/** `.git` entries one and two folders below the root, and those the index's gitlinks lead to. */
function candidatesOf(
    root: string,
    index: string | undefined,
    gitlinks: GitlinkCache
): Map<string, string> {
    const found = new Map<string, string>();
    const look = (dotGit: string): void => {
        if (found.has(dotGit)) return;
        const signature = signatureOf(dotGit);
        if (signature !== undefined) found.set(dotGit, signature);
    };
    for (const first of foldersIn(root)) {
        look(join(first, ".git"));
        for (const second of foldersIn(first)) look(join(second, ".git"));
    }
    for (const link of gitlinksOf(root, index, gitlinks)) look(join(root, link, ".git"));
    return found;
}

/** Takes the program keys out of one config file; says what it did, or undefined. */
function neutraliseConfig(path: string, name: (p: string) => string): string | undefined {
    const stat = lstatQuiet(path);
    if (stat === undefined) return undefined;
    let text: string | undefined;
    if (stat.isFile() && stat.size <= MAX_CONFIG_BYTES) {
        try {
            text = readFileSync(path, "utf8");
        } catch {
            text = undefined;
        }
    }
    if (text === undefined) {
        rmSync(path, { recursive: true, force: true });
        return name(path);
    }
    const entries = parseGitConfig(text);
    const programs = entries.filter(({ key, value }) => isGitProgramKey(key, value));
    if (programs.length === 0) return undefined;
    const kept = entries.filter((entry) => !programs.includes(entry));
    writeFileAtomicSync(path, formatGitConfig(kept), false, stat.mode & 0o777);
    const keys = [...new Set(programs.map(({ key }) => key))].join(", ");
    return `${keys} from ${name(path)}`;
}

/** Whether a config file outside the project names a program (it is read, never changed). */
function namesPrograms(path: string): boolean {
    const stat = lstatQuiet(path);
    if (!stat?.isFile() || stat.size > MAX_CONFIG_BYTES) return false;
    try {
        const entries = parseGitConfig(readFileSync(path, "utf8"));
        return entries.some(({ key, value }) => isGitProgramKey(key, value));
    } catch {
        return false;
    }
}

/**
 * Neutralises one repository, reached through `dotGit`; the paths it changed, or why it
 * could not. Program files outside the project are not changed: the `.git` file or
 * `commondir` in the project that leads to them is removed instead.
 */
function neutraliseRepo(
    root: string,
    dotGit: string,
    repo: NestedRepo,
    mounted: ReadonlySet<string>,
    name: (p: string) => string,
    kept: string[]
): string[] {
    const removed: string[] = [];
    // A git dir the mounts protect (the project's own, shared by a new linked worktree) keeps
    // the user's keys: the command could not change them.
    const changeable = (gitDir: string, path: string): boolean =>
        !mounted.has(gitDir) && isPathInside(root, realOrSelf(path));
    const configs = [
        ...(mounted.has(repo.commonDir) ? [] : [join(repo.commonDir, "config")]),
        ...(mounted.has(repo.gitDir)
            ? []
            : [join(repo.gitDir, "config"), join(repo.gitDir, "config.worktree")]),
    ];
    const outside = (path: string): boolean => !isPathInside(root, realOrSelf(path));
    const hooks = join(repo.commonDir, "hooks");
    const leadsToPrograms =
        configs.some((config) => outside(config) && namesPrograms(config)) ||
        (!mounted.has(repo.commonDir) && outside(hooks) && hookNames(hooks).length > 0);
    if (leadsToPrograms) {
        const pointer = outside(repo.gitDir) ? dotGit : join(repo.gitDir, "commondir");
        // The pointer itself is removed (a link too), where it is in the project.
        if (!lstatQuiet(pointer)?.isDirectory() && !outside(dirname(pointer))) {
            try {
                rmSync(pointer, { force: true });
                removed.push(name(pointer));
            } catch (error) {
                kept.push(`${name(pointer)} (${(error as Error).message})`);
            }
        }
    }
    for (const config of [...new Set(configs)]) {
        if (outside(config)) continue;
        try {
            const what = neutraliseConfig(config, name);
            if (what !== undefined) removed.push(what);
        } catch (error) {
            kept.push(`${name(config)} (${(error as Error).message})`);
        }
    }
    if (changeable(repo.commonDir, hooks)) {
        for (const hook of hookNames(hooks)) {
            const path = join(hooks, hook);
            try {
                rmSync(path, { recursive: true, force: true });
                removed.push(name(path));
            } catch (error) {
                kept.push(`${name(path)} (${(error as Error).message})`);
            }
        }
    }
    return removed;
}

/**
 * Starts the check for one command in the project at `root` (real path);
 * `ownGitDir` is the project's own git dir, whose index names the gitlinks;
 * `mountedGitDirs` are those whose program files the mounts keep read-only;
 * `gitlinks` is the sandbox's cache of the index's gitlinks.
 */
export function startNestedGitCheck(
    root: string,
    ownGitDir: string | null,
    mountedGitDirs: readonly string[],
    gitlinks: GitlinkCache
): NestedGitCheck {
    const mounted = new Set(mountedGitDirs);
    const index = ownGitDir === null ? undefined : join(ownGitDir, "index");
    const before = candidatesOf(root, index, gitlinks);
    const name = (path: string): string => {
        const rel = relative(root, path);
        return rel.startsWith("..") ? path : rel;
    };
    return {
        finish() {
            const after = candidatesOf(root, index, gitlinks);
            const removed: string[] = [];
            const kept: string[] = [];
            const done = new Set<string>();
            for (const [dotGit, signature] of after) {
                if (before.get(dotGit) === signature) continue;
                const repo = repoOf(dotGit);
                if (repo === undefined || done.has(repo.gitDir)) continue;
                done.add(repo.gitDir);
                removed.push(...neutraliseRepo(root, dotGit, repo, mounted, name, kept));
            }
            const parts: string[] = [];
            if (removed.length > 0) {
                parts.push(
                    `The sandbox removed ${removed.join(", ")}: a sandboxed command may not make a ` +
                        `repository git may enter (a nested one, a submodule) run programs; its ` +
                        `other files are kept.`
                );
            }
            if (kept.length > 0) {
                parts.push(
                    `The sandbox could not undo ${kept.join(", ")}, in a repository the command ` +
                        `created or changed: check it before running git in the project.`
                );
            }
            return parts.length > 0 ? parts.join(" ") : undefined;
        },
    };
}
