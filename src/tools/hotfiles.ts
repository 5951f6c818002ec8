/**
 * hotfiles: the files that change most, from `git log --name-only` over the
 * last `MAX_COMMITS` commits (existing, not ignored files only). Without git
 * or a repository it falls back to the most recently modified source files
 * and says so.
 */
import { spawn } from "node:child_process";
import { PROVIDER_SECRET_ENV, childEnv } from "../util/child-env";
import { GIT_NO_REPO_PROGRAMS_ARGS, GIT_NO_REPO_PROGRAMS_ENV } from "../util/git-no-repo-programs";
import { statSync } from "node:fs";
import path from "node:path";
import { type InputOf, toolInput } from "./tool-input";
import { createIgnoreMatcher, walkFiles } from "../util/ignore-walk";
import { isReadableRel } from "./read-denial";
import { languageOf } from "./structure/language";
import { type ToolContext, type ToolDefinition, toolError, toolOk } from "./types";
import { NAME_ONLY_DISPLAY } from "./display-text";

export const MAX_COMMITS = 500;
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 50;
const GIT_TIMEOUT_MS = 15_000;
const MAX_GIT_OUTPUT = 32 * 1024 * 1024;
const MAX_FALLBACK_FILES = 20_000;
const COMMIT_MARK = "commit ";

const input = toolInput((z) =>
    z.object({
        limit: z
            .number()
            .int()
            .min(1)
            .max(MAX_LIMIT)
            .default(DEFAULT_LIMIT)
            .describe(`Default ${DEFAULT_LIMIT}.`),
    })
);

export type HotfilesInput = InputOf<typeof input>;

export interface HotFile {
    path: string;
    /** Commits that touched it (git history). */
    commits?: number;
    /** Date of its latest commit, YYYY-MM-DD (git history). */
    lastChanged?: string;
    /** Last modification date, YYYY-MM-DD (fallback). */
    modified?: string;
}

export interface HotfilesResult {
    method: "git_history" | "recently_modified";
    files: HotFile[];
    /** Commits read (git history). */
    commitsScanned?: number;
    /** More files qualified than were returned. */
    truncated: boolean;
    note?: string;
}

export interface HotfilesOptions {
    /** The git binary (default "git" on PATH); tests point it at a missing file. */
    gitPath?: string;
}

type GitRun =
    | { kind: "ok"; stdout: string }
    | { kind: "missing" }
    | { kind: "failed"; code: number | null; stderr: string };

function runGit(
    gitPath: string,
    args: string[],
    cwd: string,
    signal: AbortSignal
): Promise<GitRun> {
    return new Promise((resolve) => {
        const child = spawn(gitPath, [...GIT_NO_REPO_PROGRAMS_ARGS, ...args], {
            cwd,
            stdio: ["ignore", "pipe", "pipe"],
            env: {
                ...childEnv(process.env, PROVIDER_SECRET_ENV),
                ...GIT_NO_REPO_PROGRAMS_ENV,
                LC_ALL: "C",
            },
        });
        const out: Buffer[] = [];
        let outBytes = 0;
        let stderr = "";
        let settled = false;
        const finish = (run: GitRun) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            signal.removeEventListener("abort", onAbort);
            resolve(run);
        };
        const onAbort = () => child.kill("SIGKILL");
        const timer = setTimeout(() => child.kill("SIGKILL"), GIT_TIMEOUT_MS);
        signal.addEventListener("abort", onAbort, { once: true });
        child.stdout.on("data", (chunk: Buffer) => {
            outBytes += chunk.length;
            if (outBytes > MAX_GIT_OUTPUT) child.kill("SIGKILL");
            else out.push(chunk);
        });
        child.stderr.on("data", (chunk: Buffer) => {
            if (stderr.length < 4000) stderr += chunk.toString("utf8");
        });
        child.once("error", (error: NodeJS.ErrnoException) => {
            finish(
                error.code === "ENOENT"
                    ? { kind: "missing" }
                    : { kind: "failed", code: null, stderr: String(error) }
            );
        });
        child.once("close", (code) => {
            if (code === 0) finish({ kind: "ok", stdout: Buffer.concat(out).toString("utf8") });
            else finish({ kind: "failed", code, stderr: stderr.trim() });
        });
    });
}

interface FileStats {
    commits: number;
    /** Newest commit time (seconds). */
    last: number;
}

/** Parses `git log -z --name-only --format=%x00commit %ct` output. */
function parseLog(stdout: string): { files: Map<string, FileStats>; commits: number } {
    const files = new Map<string, FileStats>();
    let commits = 0;
    let time = 0;
    for (const raw of stdout.split("\0")) {
        if (raw.startsWith(COMMIT_MARK)) {
            commits++;
            time = Number(raw.slice(COMMIT_MARK.length)) || 0;
            continue;
        }
        const name = raw.replace(/^\n+/, "");
        if (name === "") continue;
        const stats = files.get(name);
        if (stats) {
            stats.commits++;
            if (time > stats.last) stats.last = time;
        } else files.set(name, { commits: 1, last: time });
    }
    return { files, commits };
}

function day(ms: number): string {
    return new Date(ms).toISOString().slice(0, 10);
}

function isFile(abs: string): { mtimeMs: number } | null {
    try {
        const stat = statSync(abs, { throwIfNoEntry: false });
        return stat?.isFile() ? stat : null;
    } catch {
        return null;
    }
}

async function fromGit(
    ctx: ToolContext,
    limit: number,
    stdout: string
): Promise<HotfilesResult | null> {
    const { files, commits } = parseLog(stdout);
    if (commits === 0) return null;
    const ranked = [...files.entries()].sort(
        (a, b) => b[1].commits - a[1].commits || b[1].last - a[1].last || (a[0] < b[0] ? -1 : 1)
    );
    const matcher = createIgnoreMatcher(ctx.repoRoot);
    const out: HotFile[] = [];
    let qualified = 0;
    for (const [rel, stats] of ranked) {
        if (ctx.signal.aborted) break;
        if (
            !isReadableRel(ctx, rel) ||
            !isFile(path.join(ctx.repoRoot, rel)) ||
            (await matcher.isIgnored(rel, false))
        )
            continue;
        qualified++;
        if (out.length < limit) {
            out.push({ path: rel, commits: stats.commits, lastChanged: day(stats.last * 1000) });
        } else break;
    }
    return {
        method: "git_history",
        files: out,
        commitsScanned: commits,
        truncated: qualified > out.length,
        ...(out.length === 0 ? { note: "No file changed in the history still exists." } : {}),
    };
}

async function fromModifiedTimes(
    ctx: ToolContext,
    limit: number,
    reason: string
): Promise<HotfilesResult> {
    const found: { path: string; mtimeMs: number }[] = [];
    for await (const rel of walkFiles(ctx.repoRoot, {
        signal: ctx.signal,
        maxFiles: MAX_FALLBACK_FILES,
    })) {
        const category = languageOf(rel)?.category;
        if (category !== "code" && category !== "markup") continue;
        if (!isReadableRel(ctx, rel)) continue;
        const stat = isFile(path.join(ctx.repoRoot, rel));
        if (stat) found.push({ path: rel, mtimeMs: stat.mtimeMs });
    }
    found.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1));
    return {
        method: "recently_modified",
        files: found.slice(0, limit).map((f) => ({ path: f.path, modified: day(f.mtimeMs) })),
        truncated: found.length > limit,
        note: `${reason}, so files are ranked by last modification time instead of change frequency.`,
    };
}

export function createHotfilesTool(
    options: HotfilesOptions = {}
): ToolDefinition<HotfilesInput, HotfilesResult> {
    const gitPath = options.gitPath ?? "git";
    return {
        name: "hotfiles",
        description:
            `The files changed most often in the last ${MAX_COMMITS} git commits, with counts; ` +
            "without git history, the most recently modified source files.",
        input,
        approvalPolicy: "none",
        readOnly: true,
        display: NAME_ONLY_DISPLAY,
        async execute(args, ctx) {
            const limit = args.limit;
            const run = await runGit(
                gitPath,
                [
                    "log",
                    "--relative",
                    "--name-only",
                    "--no-merges",
                    "--no-renames",
                    "--no-show-signature",
                    "--no-ext-diff",
                    "--no-textconv",
                    "-z",
                    `-n${MAX_COMMITS}`,
                    `--format=%x00${COMMIT_MARK}%ct`,
                ],
                ctx.repoRoot,
                ctx.signal
            );
            if (ctx.signal.aborted) return toolError("cancelled", "hotfiles cancelled.");
            let reason: string;
            if (run.kind === "ok") {
                const result = await fromGit(ctx, limit, run.stdout);
                if (result) return toolOk(result);
                reason = "The git repository has no commits yet";
            } else if (run.kind === "missing") {
                reason = "git is not installed";
            } else {
                // git's own words say why (not a repository, no commits yet, …).
                const why =
                    run.stderr.split("\n")[0]?.replace(/^fatal:\s*/, "") || `exit ${run.code}`;
                reason = `git log failed (${why})`;
            }
            const result = await fromModifiedTimes(ctx, limit, reason);
            if (ctx.signal.aborted) return toolError("cancelled", "hotfiles cancelled.");
            return toolOk(result);
        },
    };
}
