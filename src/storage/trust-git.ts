/**
 * Programs a repository's own git configuration names: keys of `.git/config`
 * (and `config.worktree`, and files it includes from inside the repository)
 * that make git run a program, and the git hooks that are not samples. North's
 * own git calls switch them all off (util/git-no-repo-programs.ts), but the
 * user's git and the commands the user lets North run do not, so the trust
 * question shows them and a change to them asks again. Read as text: nothing
 * runs while reading.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { parseGitConfig } from "../util/git-config-file";
import { isGitProgramKey } from "../util/git-program-keys";
import { gitDirOf } from "../util/git-index";
import { isPathInside, readRegularFileSync } from "../util/read-regular-file";

/** One program git would run for this repository. */
export interface GitProgram {
    /** Where it is set: `.git/config`, `.git/hooks/pre-commit` (absolute when outside the project). */
    source: string;
    /** `core.fsmonitor = ./watch.sh`, or what a hook is. */
    text: string;
    /** Digest of a hook's content; a config key's text is its own content. */
    digest?: string;
}

export interface GitProgramsFingerprint {
    programs: GitProgram[];
    /** Null when git would run nothing of the repository's. */
    digest: string | null;
}

/** Includes are followed this deep (git's own limit is 10). */
const MAX_INCLUDE_DEPTH = 5;
/** Hooks are read up to this size; a larger one counts by size and time. */
const MAX_HOOK_BYTES = 1024 * 1024;
const MAX_HOOKS = 200;

class GitProgramReader {
    readonly programs: GitProgram[] = [];
    private readonly hash = createHash("sha256");
    private readonly visited = new Set<string>();
    private hooksPath: string | undefined;

    constructor(
        private readonly realRoot: string,
        private readonly gitDir: string
    ) {}

    /** A path as shown: relative to the project when inside it, else absolute. */
    display(path: string): string {
        return isPathInside(this.realRoot, path)
            ? relative(this.realRoot, path).split(sep).join("/")
            : path;
    }

    private inside(path: string): boolean {
        return isPathInside(this.realRoot, path) || isPathInside(this.gitDir, path);
    }

    private add(source: string, text: string, content?: Buffer): void {
        const digest =
            content === undefined ? undefined : createHash("sha256").update(content).digest("hex");
        this.programs.push({ source, text, digest });
        this.hash.update(`${source}\0${text}\0${digest ?? ""}\0`);
    }

    readConfig(path: string, depth: number): void {
        let real: string;
        let text: string;
        try {
            real = realpathSync(path);
            if (this.visited.has(real)) return;
            this.visited.add(real);
            text = readRegularFileSync(real, { cap: MAX_HOOK_BYTES }).bytes.toString("utf8");
        } catch {
            return;
        }
        const source = this.display(real);
        for (const { key, value } of parseGitConfig(text)) {
            if (!isGitProgramKey(key, value)) continue;
            if (key === "core.hookspath") this.hooksPath = value;
            const isInclude = key === "include.path" || /^includeif\..+\.path$/.test(key);
            if (!isInclude) {
                this.add(source, `${key} = ${value}`);
                continue;
            }
            // Relative to the including file, as git resolves it; `~/` is the user's home.
            const target = value.startsWith("~/")
                ? join(homedir(), value.slice(2))
                : resolve(dirname(real), value);
            let included = target;
            try {
                included = realpathSync(target);
            } catch {
                // missing: git skips it too
            }
            // A link inside the project that leads out is outside.
            const followed = this.inside(included) && depth < MAX_INCLUDE_DEPTH;
            this.add(
                source,
                `${key} = ${value}${followed ? "" : " (outside the project: not checked)"}`
            );
            if (followed) this.readConfig(included, depth + 1);
        }
    }

    readHooks(commonDir: string): void {
        // core.hooksPath replaces .git/hooks; relative to the working tree, where hooks run.
        const configured = this.hooksPath;
        const dir =
            configured === undefined
                ? join(commonDir, "hooks")
                : configured.startsWith("~/")
                  ? join(homedir(), configured.slice(2))
                  : isAbsolute(configured)
                    ? configured
                    : resolve(this.realRoot, configured);
        let names: string[];
        try {
            const real = realpathSync(dir);
            if (!this.inside(real)) return; // listed above as the core.hooksPath value
            names = readdirSync(real).sort();
        } catch {
            return;
        }
        let count = 0;
        for (const name of names) {
            if (name.endsWith(".sample") || name.startsWith(".")) continue;
            const path = join(dir, name);
            let content: Buffer;
            try {
                const stats = statSync(path);
                if (!stats.isFile()) continue;
                content =
                    stats.size > MAX_HOOK_BYTES || count >= MAX_HOOKS
                        ? Buffer.from(`${stats.size}\0${stats.mtimeMs}`)
                        : readRegularFileSync(path).bytes;
            } catch {
                continue;
            }
            count++;
            this.add(this.display(path), "a git hook: git runs it by itself", content);
        }
    }

    digest(): string | null {
        return this.programs.length > 0 ? this.hash.digest("hex") : null;
    }
}

/** Where a linked worktree's shared git directory is (`commondir`), else the git dir itself. */
function commonDirOf(gitDir: string): string {
    try {
        const text = readFileSync(join(gitDir, "commondir"), "utf8").trim();
        return text === "" ? gitDir : resolve(gitDir, text);
    } catch {
        return gitDir;
    }
}

/** The programs the git configuration of the repository at `repoRoot` names. Never throws. */
export function fingerprintGitPrograms(repoRoot: string): GitProgramsFingerprint {
    let realRoot: string;
    try {
        realRoot = realpathSync(repoRoot);
    } catch {
        return { programs: [], digest: null };
    }
    const gitDir = gitDirOf(realRoot);
    if (gitDir === null) return { programs: [], digest: null };
    const commonDir = commonDirOf(gitDir);
    const reader = new GitProgramReader(realRoot, commonDir);
    reader.readConfig(join(commonDir, "config"), 0);
    reader.readConfig(join(gitDir, "config.worktree"), 0);
    reader.readHooks(commonDir);
    return { programs: reader.programs, digest: reader.digest() };
}
