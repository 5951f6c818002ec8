/**
 * Generates the edit corpus fixtures (run once, output committed):
 * `npx tsx bench/edit-corpus-gen.ts [SOURCE=GIT_DIR ...] [SOURCE ...]`; naming
 * sources without a directory regenerates only those.
 *
 * Every case is one real single-file hunk from real git history: North's own
 * (this repository) and public repositories whose licence is committed next to
 * their fixture: Go, Python, C#, TypeScript code and prose (rST and Markdown,
 * with their dash and equals underlines and tables). A hunk becomes the old_text/new_text a model would
 * send: the changed lines plus as many neighbouring lines as it takes for the
 * old text to be unique in the file, even ignoring whitespace. Only a window
 * of the file around the hunk is kept, so the fixtures stay small.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { diffArrays } from "diff";
import type { CorpusHunk } from "../test/kit/edit-corpus";

const OUT = fileURLToPath(new URL("../test/tools/fixtures/edit-corpus/", import.meta.url));
const WINDOW = 10;
const MAX_CONTEXT = 6;
const MAX_OLD_LINES = 24;
const MAX_NEW_LINES = 32;

interface Source {
    name: string;
    /** Default git directory; `name=DIR` on the command line overrides it. */
    gitDir: string;
    /** Paths (git pathspecs) whose history is read. */
    paths: string[];
    maxHunks: number;
    maxPerCommit: number;
}

const SOURCES: Source[] = [
    {
        name: "north",
        gitDir: fileURLToPath(new URL("../.git", import.meta.url)),
        paths: ["src", "test", "bench", "scripts", "README.md", "ARCHITECTURE.md", "package.json"],
        maxHunks: 100,
        maxPerCommit: 5,
    },
    {
        name: "google-uuid",
        gitDir: "/work/.mirror/google+uuid/repo",
        paths: ["*.go", ".github/workflows"],
        maxHunks: 25,
        maxPerCommit: 3,
    },
    {
        name: "pallets-itsdangerous",
        gitDir: "/work/.mirror/pallets+itsdangerous/repo",
        paths: ["src/itsdangerous", ".github/workflows", "docs/Makefile", "tox.ini"],
        maxHunks: 25,
        maxPerCommit: 3,
    },
    {
        name: "spf13-cobra",
        gitDir: "/work/.mirror/spf13+cobra/repo",
        paths: ["Makefile", ".golangci.yml", ".github/workflows", "args.go", "command_notwin.go"],
        maxHunks: 25,
        maxPerCommit: 3,
    },
    {
        name: "jbogard-mediatr",
        gitDir: "/work/.mirror/jbogard+MediatR/repo",
        paths: ["src/MediatR/Mediator.cs", "src/MediatR/Registration/ServiceRegistrar.cs"],
        maxHunks: 25,
        maxPerCommit: 3,
    },
    {
        name: "pallets-click",
        gitDir: "/work/.mirror/pallets+click/repo",
        paths: ["src/click/*.py"],
        maxHunks: 40,
        maxPerCommit: 3,
    },
    {
        name: "pallets-click-docs",
        gitDir: "/work/.mirror/pallets+click/repo",
        paths: ["docs/*.rst", "CHANGES.rst"],
        maxHunks: 40,
        maxPerCommit: 3,
    },
    {
        name: "sindresorhus-ky",
        gitDir: "/work/.mirror/sindresorhus+ky/repo",
        paths: ["source", "test", "readme.md"],
        maxHunks: 40,
        maxPerCommit: 3,
    },
    {
        name: "ossu-computer-science",
        gitDir: "/work/.mirror/ossu+computer-science/repo",
        paths: ["*.md"],
        maxHunks: 40,
        maxPerCommit: 3,
    },
];

function git(gitDir: string, args: string[]): string {
    return execFileSync("git", ["--git-dir", gitDir, ...args], {
        encoding: "utf8",
        maxBuffer: 256 * 1024 * 1024,
    });
}

function show(gitDir: string, rev: string, path: string): string | null {
    try {
        const bytes = execFileSync("git", ["--git-dir", gitDir, "show", `${rev}:${path}`], {
            maxBuffer: 64 * 1024 * 1024,
            stdio: ["ignore", "pipe", "ignore"],
        });
        if (bytes.length > 200_000 || bytes.includes(0)) return null;
        return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
        return null;
    }
}

/** Lines with their terminators. */
function splitLines(text: string): string[] {
    return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

const loose = (line: string) => line.trim();

function looseCount(lines: readonly string[], block: readonly string[]): number {
    const want = block.map(loose);
    let count = 0;
    for (let i = 0; i + want.length <= lines.length; i++) {
        if (want.every((w, k) => loose(lines[i + k] ?? "") === w)) count++;
    }
    return count;
}

function exactCount(text: string, search: string): number {
    let count = 0;
    for (let i = text.indexOf(search); i !== -1; i = text.indexOf(search, i + 1)) count++;
    return count;
}

const dropEol = (text: string) => text.replace(/\r?\n$/, "");

interface RawHunk {
    /** Removed lines [from, to) of the pre-image. */
    from: number;
    to: number;
    added: string[];
}

function hunksOf(pre: string[], post: string[]): RawHunk[] {
    const hunks: RawHunk[] = [];
    let line = 0;
    let open: RawHunk | null = null;
    for (const part of diffArrays(pre, post)) {
        if (!part.added && !part.removed) {
            if (open) hunks.push(open);
            open = null;
            line += part.value.length;
            continue;
        }
        open ??= { from: line, to: line, added: [] };
        if (part.removed) {
            line += part.value.length;
            open.to = line;
        } else open.added.push(...part.value);
    }
    if (open) hunks.push(open);
    return hunks;
}

/** The hunk with enough context to be unique, cut to a window of the file; null when unusable. */
function toCase(
    source: string,
    path: string,
    commit: string,
    pre: string[],
    hunk: RawHunk
): CorpusHunk | null {
    const removed = pre.slice(hunk.from, hunk.to);
    if (removed.length > MAX_OLD_LINES || hunk.added.length > MAX_NEW_LINES) return null;
    let before = removed.length === 0 ? 1 : 0;
    let after = 0;
    if (hunk.from - before < 0) {
        before = 0;
        after = 1;
    }
    const text = pre.join("");
    for (let step = 0; ; step++) {
        const s = hunk.from - before;
        const e = hunk.to + after;
        if (s < 0 || e > pre.length) return null;
        const oldLines = pre.slice(s, e);
        const old = dropEol(oldLines.join(""));
        const meaningful = oldLines.some((l) => l.trim().length > 2);
        if (meaningful && exactCount(text, old) === 1 && looseCount(pre, oldLines) === 1) {
            const w0 = Math.max(0, s - WINDOW);
            const w1 = Math.min(pre.length, e + WINDOW);
            const window = pre.slice(w0, w1).join("");
            const start = pre.slice(w0, s).join("").length;
            const newText = dropEol(
                [...pre.slice(s, hunk.from), ...hunk.added, ...pre.slice(hunk.to, e)].join("")
            );
            // A change of line endings or of the final newline alone is not something a model sends.
            if (old.replace(/\r/g, "") === newText.replace(/\r/g, "")) return null;
            // Neither is a hunk that mixes CRLF and LF lines (a partial conversion).
            const mixed = (t: string) => /\r\n/.test(t) && /(^|[^\r])\n/.test(t);
            if (mixed(old) || mixed(newText)) return null;
            const lastAdded = hunk.added[hunk.added.length - 1];
            if (after === 0 && lastAdded !== undefined && !/\n$/.test(lastAdded)) return null;
            return {
                id: `${source}:${commit.slice(0, 10)}:${path}:${hunk.from + 1}`,
                path,
                pre: window,
                start,
                old,
                new: newText,
                context: [before, after],
            };
        }
        if (step >= MAX_CONTEXT * 2) return null;
        if (step % 2 === 0 && e < pre.length) after++;
        else if (s > 0) before++;
        else after++;
    }
}

/** A small deterministic generator, so a rerun picks the same hunks. */
function rng(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
        state = (state * 1664525 + 1013904223) >>> 0;
        return state / 2 ** 32;
    };
}

function collect(source: Source, gitDir: string): CorpusHunk[] {
    const random = rng(17);
    const commits = git(gitDir, [
        "log",
        "--no-merges",
        "--format=%H",
        "HEAD",
        "--",
        ...source.paths,
    ])
        .split("\n")
        .filter(Boolean);
    const found: CorpusHunk[] = [];
    for (const commit of commits) {
        const files = git(gitDir, [
            "diff-tree",
            "--no-commit-id",
            "--name-only",
            "-r",
            `${commit}^`,
            commit,
            "--",
            ...source.paths,
        ])
            .split("\n")
            .filter(Boolean);
        const perCommit: CorpusHunk[] = [];
        for (const path of files) {
            const preText = show(gitDir, `${commit}^`, path);
            const postText = show(gitDir, commit, path);
            if (preText === null || postText === null) continue;
            const pre = splitLines(preText);
            for (const hunk of hunksOf(pre, splitLines(postText))) {
                const c = toCase(source.name, path, commit, pre, hunk);
                if (c) perCommit.push(c);
            }
        }
        // A fair sample of the commit's hunks rather than its first files.
        perCommit.sort(() => random() - 0.5);
        found.push(...perCommit.slice(0, source.maxPerCommit));
        if (found.length >= source.maxHunks) break;
    }
    return found.slice(0, source.maxHunks);
}

const args = process.argv.slice(2);
const overrides = new Map(
    args.filter((arg) => arg.includes("=")).map((arg) => arg.split("=", 2) as [string, string])
);
const only = new Set(args.filter((arg) => !arg.includes("=")));
for (const source of SOURCES) {
    if (only.size > 0 && !only.has(source.name)) continue;
    const hunks = collect(source, overrides.get(source.name) ?? source.gitDir);
    const file = `${OUT}${source.name}.json`;
    writeFileSync(file, JSON.stringify(hunks, null, 1) + "\n");
    const bytes = hunks.reduce((n, h) => n + h.pre.length, 0);
    console.log(`${source.name}: ${hunks.length} hunks, ${(bytes / 1024).toFixed(0)} KB of text`);
}
// The repository's formatter owns the committed layout.
execFileSync("npx", ["prettier", "--write", OUT], { stdio: "inherit" });
