/**
 * git and ripgrep as references for the ignore-aware walker: what git reports a
 * checkout holds, and what `rg --files` lists with the flags search_text uses.
 */
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { ALWAYS_IGNORED_NAMES, comparePaths } from "../../src/util/ignore-walk";

/** No user or system git configuration (a global excludes file would change the answers). */
const NOWHERE = path.join(os.tmpdir(), "north-walk-git-kit-no-such-dir");
const GIT_ENV: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: NOWHERE,
    XDG_CONFIG_HOME: NOWHERE,
    GIT_CONFIG_GLOBAL: os.devNull,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_DATE: "2024-05-01T12:00:00Z",
    GIT_COMMITTER_DATE: "2024-05-01T12:00:00Z",
};

export function git(cwd: string, ...args: string[]): string {
    return execFileSync(
        "git",
        [
            "-c",
            "user.name=North Test",
            "-c",
            "user.email=test@example.com",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
            ...args,
        ],
        { cwd, env: GIT_ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }
    );
}

function nulList(text: string): string[] {
    return text.split("\0").filter((p) => p !== "");
}

/**
 * What git says the checkout holds: tracked paths (`git ls-files`) plus untracked
 * ones it does not ignore (`--others --exclude-standard`), sorted like the walk.
 */
export function gitListing(root: string): string[] {
    const tracked = nulList(git(root, "ls-files", "-z"));
    const others = nulList(git(root, "ls-files", "-z", "--others", "--exclude-standard"));
    return [...new Set([...tracked, ...others])].sort(comparePaths);
}

export function hasRipgrep(): boolean {
    try {
        execFileSync("rg", ["--version"], { stdio: "ignore" });
        return true;
    } catch {
        return false;
    }
}

/** `rg --files` with the flags that make ripgrep walk like `walkFiles` (see search-ripgrep). */
export function ripgrepListing(root: string): string[] {
    const args = [
        "--files",
        "--no-config",
        "--hidden",
        "--no-follow",
        "--no-require-git",
        "--no-ignore-global",
        "--no-ignore-parent",
        "--no-messages",
    ];
    for (const name of ALWAYS_IGNORED_NAMES) args.push("--glob", `!${name}`);
    let out: string;
    try {
        out = execFileSync("rg", [...args, "--null"], {
            cwd: root,
            encoding: "utf8",
            maxBuffer: 1 << 28,
        });
    } catch (error) {
        // rg exits 1 when it lists nothing.
        const status = (error as { status?: number }).status;
        if (status !== 1) throw error;
        out = "";
    }
    return nulList(out).sort(comparePaths);
}
