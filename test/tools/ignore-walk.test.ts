import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    collectFiles,
    comparePaths,
    createIgnoreMatcher,
    listDirectoryEntries,
    walkFiles,
} from "../../src/util/ignore-walk";
import { type TempRepo, collect, makeOutsideDir, makeRepo } from "./fixtures";
import { git, gitListing, hasRipgrep, ripgrepListing } from "./walk-git-kit";

let repo: TempRepo | undefined;
afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
});

describe("walkFiles", () => {
    it("honours root and nested .gitignore files, negations and directory-only patterns", async () => {
        repo = await makeRepo({
            ".gitignore": "*.log\nbuild/\n!keep.log\ndocs/*\n!docs/public/\n",
            "a.ts": "",
            "debug.log": "",
            "keep.log": "",
            "build/out.js": "",
            "src/build": "a file named build is not a directory\n",
            "docs/secret.md": "",
            "docs/public/index.md": "",
            "pkg/.gitignore": "*.tmp\n!important.tmp\n/local/\n",
            "pkg/x.tmp": "",
            "pkg/important.tmp": "",
            "pkg/local/a.ts": "",
            "pkg/sub/local/b.ts": "",
            "pkg/y.log": "",
            "other/x.tmp": "",
        });
        const files = await collect(walkFiles(repo.root));
        expect(files).toEqual([
            ".gitignore",
            "a.ts",
            "docs/public/index.md",
            "keep.log",
            "other/x.tmp",
            "pkg/.gitignore",
            "pkg/important.tmp",
            "pkg/sub/local/b.ts",
            "src/build",
        ]);
    });

    it("always skips VCS folders and node_modules, even without ignore files", async () => {
        repo = await makeRepo({
            ".git/config": "",
            "node_modules/dep/index.js": "",
            "a/node_modules/b.js": "",
            "a/__pycache__/c.pyc": "",
            ".venv/lib.py": "",
            ".hidden/file": "",
            ".env": "",
            "dist/app.js": "",
        });
        expect(await collect(walkFiles(repo.root))).toEqual([
            ".env",
            ".hidden/file",
            "dist/app.js",
        ]);
    });

    it("applies .git/info/exclude and treats a nested .git as a boundary for gitignore rules", async () => {
        repo = await makeRepo({
            ".git/info/exclude": "secret.txt\n",
            ".gitignore": "*.log\n",
            "secret.txt": "",
            "a.log": "",
            "vendor/lib/.git/HEAD": "",
            "vendor/lib/x.log": "",
            "vendor/lib/secret.txt": "",
            "sub/y.log": "",
        });
        expect(await collect(walkFiles(repo.root))).toEqual([
            ".gitignore",
            "vendor/lib/secret.txt",
            "vendor/lib/x.log",
        ]);
    });

    it("lets .ignore re-include a git-ignored directory, and .rgignore override both", async () => {
        repo = await makeRepo({
            ".gitignore": "dist/\n*.gen.ts\n",
            ".ignore": "!dist/\n",
            ".rgignore": "!keep.gen.ts\n",
            "dist/app.js": "",
            "dist/sub/x.js": "",
            "a.gen.ts": "",
            "keep.gen.ts": "",
        });
        expect(await collect(walkFiles(repo.root))).toEqual([
            ".gitignore",
            ".ignore",
            ".rgignore",
            "dist/app.js",
            "dist/sub/x.js",
            "keep.gen.ts",
        ]);
    });

    it("does not follow symlinked files or directories (no cycles, no escape)", async () => {
        const outside = await makeOutsideDir();
        try {
            repo = await makeRepo({ "real/a.ts": "", "b.ts": "" });
            await fs.symlink(outside.dir, path.join(repo.root, "out"));
            await fs.symlink(repo.root, path.join(repo.root, "real", "loop"));
            await fs.symlink(path.join(repo.root, "b.ts"), path.join(repo.root, "link.ts"));
            await fs.writeFile(path.join(outside.dir, "secret.txt"), "x");
            expect(await collect(walkFiles(repo.root))).toEqual(["b.ts", "real/a.ts"]);
        } finally {
            await outside.cleanup();
        }
    });

    it("yields in comparePaths order, honours maxFiles, and can start in a subdirectory", async () => {
        repo = await makeRepo({
            "a-b.ts": "",
            "a/z.ts": "",
            "a/b/c.ts": "",
            "B.ts": "",
            "ignored/x.ts": "",
            ".gitignore": "ignored/\n*.tmp\n",
            "ignored/y.tmp": "",
        });
        const all = await collect(walkFiles(repo.root));
        expect(all).toEqual([".gitignore", "B.ts", "a/b/c.ts", "a/z.ts", "a-b.ts"]);
        expect([...all].sort(comparePaths)).toEqual(all);
        expect(await collect(walkFiles(repo.root, { maxFiles: 2 }))).toEqual([
            ".gitignore",
            "B.ts",
        ]);
        expect(await collect(walkFiles(repo.root, { dir: "a" }))).toEqual(["a/b/c.ts", "a/z.ts"]);
        // An explicitly named ignored directory is walked; rules from above still apply inside it.
        expect(await collect(walkFiles(repo.root, { dir: "ignored" }))).toEqual(["ignored/x.ts"]);
    });

    it("stops when the signal is aborted and handles an empty repository", async () => {
        repo = await makeRepo({ "a.ts": "" });
        const controller = new AbortController();
        controller.abort();
        expect(await collect(walkFiles(repo.root, { signal: controller.signal }))).toEqual([]);
        const empty = await makeRepo();
        try {
            expect(await collect(walkFiles(empty.root))).toEqual([]);
            expect(await listDirectoryEntries(empty.root)).toEqual([]);
        } finally {
            await empty.cleanup();
        }
    });
});

describe("listDirectoryEntries and createIgnoreMatcher", () => {
    it("lists non-ignored entries with directory and symlink flags", async () => {
        repo = await makeRepo({
            ".gitignore": "tmp/\n",
            "src/a.ts": "",
            "tmp/x": "",
            "README.md": "",
            "node_modules/x/y.js": "",
            "src/.gitignore": "gen/\n",
            "src/gen/z.ts": "",
            "src/lib/q.ts": "",
        });
        await fs.symlink(path.join(repo.root, "src"), path.join(repo.root, "src-link"));
        expect(await listDirectoryEntries(repo.root)).toEqual([
            { name: ".gitignore", isDir: false, isSymlink: false },
            { name: "README.md", isDir: false, isSymlink: false },
            { name: "src", isDir: true, isSymlink: false },
            { name: "src-link", isDir: true, isSymlink: true },
        ]);
        expect((await listDirectoryEntries(repo.root, "src")).map((e) => e.name)).toEqual([
            ".gitignore",
            "a.ts",
            "lib",
        ]);
    });

    it("answers isIgnored for paths, including components below an explicit start", async () => {
        repo = await makeRepo({
            ".gitignore": "*.log\nbuild/\n",
            "pkg/.gitignore": "!special.log\n",
        });
        const matcher = createIgnoreMatcher(repo.root);
        expect(await matcher.isIgnored("a.log", false)).toBe(true);
        expect(await matcher.isIgnored("a.ts", false)).toBe(false);
        expect(await matcher.isIgnored("pkg/special.log", false)).toBe(false);
        expect(await matcher.isIgnored("pkg/other.log", false)).toBe(true);
        expect(await matcher.isIgnored("build/x.ts", false)).toBe(true);
        expect(await matcher.isIgnored("build/x.ts", false, "build")).toBe(false);
        expect(await matcher.isIgnored("node_modules/a.js", false)).toBe(true);
        expect(await matcher.hasWhitelistAbove("pkg")).toBe(false);
    });
});

/** Small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

const NAMES = ["a", "b", "c.txt", "d.log", "e.md", "x1", "y2.txt", "gen", "build", ".hid", "a.b"];
const PATTERNS = [
    "*.txt",
    "!*.txt",
    "!c.txt",
    "a",
    "a/",
    "/a",
    "!a/",
    "b/c.txt",
    "/b/*",
    "**/gen",
    "gen/**",
    "!gen/a/",
    "a/**/c.txt",
    "**/b/**",
    "*.[lm]*",
    "?.txt",
    "x[0-9]",
    "[!a-c]*",
    "build/*",
    "!build/a*",
    "**/*.md",
    ".hid",
    "*.b",
    "d.log   ",
    "e.m?",
    "#a",
    "",
];

/** A random tree with a few .gitignore files drawn from `PATTERNS`. */
function randomTree(seed: number): Record<string, string> {
    const rand = random(seed);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
    const files: Record<string, string> = {};
    const dirs = [""];
    for (let i = 0; i < 12; i++) {
        const parent = pick(dirs);
        const depth = parent === "" ? 0 : parent.split("/").length;
        if (depth < 3) dirs.push(parent === "" ? pick(NAMES) : `${parent}/${pick(NAMES)}`);
    }
    for (const dir of dirs) {
        for (let i = 0; i < 3; i++) {
            const name = pick(NAMES);
            const rel = dir === "" ? name : `${dir}/${name}`;
            if (!dirs.some((d) => d === rel || d.startsWith(`${rel}/`))) files[rel] = "";
        }
        if (rand() < 0.6) {
            const lines = Array.from({ length: 1 + Math.floor(rand() * 5) }, () => pick(PATTERNS));
            const rel = dir === "" ? ".gitignore" : `${dir}/.gitignore`;
            if (!dirs.some((d) => d.startsWith(`${rel}/`))) files[rel] = `${lines.join("\n")}\n`;
        }
    }
    return files;
}

const rgAvailable = hasRipgrep();

describe("ignore rules against git and ripgrep", () => {
    it("agree with git on a tree of tricky patterns", async () => {
        repo = await makeRepo({
            ".gitignore": [
                "# a comment",
                "\\#literal.txt",
                "trailing.txt   ",
                "escaped\\ ",
                "*.log",
                "!keep.log",
                "/root-only.txt",
                "docs/*",
                "!docs/public/",
                "**/gen/**",
                "a/**/deep.txt",
                "[abc].c",
                "[!x]y.h",
                "file?.md",
                "*.[oa]",
                "[[:digit:]]*.num",
                "out/",
                "foo/**",
                "!foo/bar/",
                "weird[",
                "",
            ].join("\n"),
            "#literal.txt": "",
            "trailing.txt": "",
            "escaped ": "",
            "app.log": "",
            "keep.log": "",
            "root-only.txt": "",
            "sub/root-only.txt": "",
            "docs/secret.md": "",
            "docs/public/index.md": "",
            "docs/public/deeper/x.md": "",
            "lib/gen/x.ts": "",
            "src/gen": "",
            "gen/y.ts": "",
            "a/deep.txt": "",
            "a/b/c/deep.txt": "",
            "a/b/shallow.txt": "",
            "a.c": "",
            "d.c": "",
            "zy.h": "",
            "xy.h": "",
            "file1.md": "",
            "file10.md": "",
            "lib.o": "",
            "lib.so": "",
            "1st.num": "",
            "first.num": "",
            "out/a.js": "",
            "src/out": "a file named out is not the out/ directory\n",
            "foo/bar/kept-by-dir-but-matched.txt": "",
            "foo/x.txt": "",
            "weird[": "",
            "pkg/.gitignore": "*.tmp\n!important.tmp\n/local/\n",
            "pkg/x.tmp": "",
            "pkg/important.tmp": "",
            "pkg/local/a.ts": "",
            "pkg/sub/local/b.ts": "",
            "pkg/sub/.gitignore": "!*.tmp\n",
            "pkg/sub/y.tmp": "",
        });
        git(repo.root, "init", "-q");
        await fs.writeFile(path.join(repo.root, ".git", "info", "exclude"), "excluded.txt\n");
        await repo.write("excluded.txt", "");
        await repo.write("pkg/excluded.txt", "");
        const expected = gitListing(repo.root);
        expect(expected).toContain("src/out");
        expect(expected).toContain("docs/public/deeper/x.md");
        expect(await collectFiles(repo.root)).toEqual(expected);
        expect(await collectFiles(repo.root, { tracked: true, symlinks: true })).toEqual(expected);
        if (rgAvailable) {
            // ripgrep's globs have no POSIX classes ("[[:digit:]]"); git's and ours do.
            const posix = (list: string[]) => list.filter((p) => p !== "1st.num");
            expect(posix(ripgrepListing(repo.root))).toEqual(posix(expected));
        }
    });

    it("agree with git (and ripgrep) on 30 random trees of random .gitignore files", async () => {
        for (let seed = 1; seed <= 30; seed++) {
            const files = randomTree(seed);
            const fixture = await makeRepo(files);
            try {
                git(fixture.root, "init", "-q");
                const expected = gitListing(fixture.root);
                const walked = await collectFiles(fixture.root);
                expect({ seed, files, walked }).toEqual({ seed, files, walked: expected });
                if (rgAvailable) {
                    expect({ seed, files, rg: ripgrepListing(fixture.root) }).toEqual({
                        seed,
                        files,
                        rg: expected,
                    });
                }
            } finally {
                await fixture.cleanup();
            }
        }
    });
});

describe("tracked files and symbolic links (as git lists them)", () => {
    const asGit = { tracked: true, symlinks: true } as const;

    /** A repository whose .gitignore files match tracked files, with two symlinks. */
    async function trackedRepo(outsideDir: string): Promise<TempRepo> {
        const made = await makeRepo({
            ".gitignore": "*.log\nbuild/\n",
            "docs/README.md": "# docs\n",
            "src/a.ts": "",
            "pkg/.gitignore": "generated.ts\n",
            "pkg/generated.ts": "",
            "pkg/other.ts": "",
            "app.log": "",
            "naïve.log": "",
            "notes.log": "",
            "build/keep/tracked.js": "",
            "build/keep/untracked.js": "",
            "build/untracked.js": "",
            "build-tools/x.js": "",
        });
        await fs.symlink("docs/README.md", path.join(made.root, "README.md"));
        await fs.symlink(outsideDir, path.join(made.root, "ext"));
        git(made.root, "init", "-q");
        git(made.root, "add", "-A");
        git(made.root, "rm", "-q", "--cached", "ext");
        git(made.root, "add", "-f", "app.log", "naïve.log", "build/keep/tracked.js");
        git(made.root, "add", "-f", "pkg/generated.ts");
        return made;
    }

    it.each([
        ["with commits", true],
        ["with nothing committed yet", false],
    ])("lists tracked files a .gitignore matches and symlinks by name (%s)", async (_, commit) => {
        const outside = await makeOutsideDir();
        try {
            await fs.writeFile(path.join(outside.dir, "secret.txt"), "x");
            repo = await trackedRepo(outside.dir);
            if (commit) git(repo.root, "commit", "-qm", "init");
            const listed = await collectFiles(repo.root, asGit);
            expect(listed).toEqual(gitListing(repo.root));
            expect(listed).toEqual([
                ".gitignore",
                "README.md",
                "app.log",
                "build/keep/tracked.js",
                "build-tools/x.js",
                "docs/README.md",
                "ext",
                "naïve.log",
                "pkg/.gitignore",
                "pkg/generated.ts",
                "pkg/other.ts",
                "src/a.ts",
            ]);
            expect(await collect(walkFiles(repo.root, asGit))).toEqual(listed);
            // Without the options: neither the tracked-but-ignored files nor the links.
            expect(await collectFiles(repo.root)).toEqual([
                ".gitignore",
                "build-tools/x.js",
                "docs/README.md",
                "pkg/.gitignore",
                "pkg/other.ts",
                "src/a.ts",
            ]);
        } finally {
            await outside.cleanup();
        }
    });

    it("reads a worktree's own index when .git is a file", async () => {
        const outside = await makeOutsideDir();
        const worktrees = await makeOutsideDir();
        try {
            repo = await trackedRepo(outside.dir);
            git(repo.root, "commit", "-qm", "init");
            const wt = path.join(worktrees.dir, "wt");
            git(repo.root, "worktree", "add", "-q", wt);
            await fs.writeFile(path.join(wt, "fresh.log"), "");
            await fs.writeFile(path.join(wt, "fresh.ts"), "");
            expect((await fs.lstat(path.join(wt, ".git"))).isFile()).toBe(true);
            const listed = await collectFiles(wt, asGit);
            expect(listed).toEqual(gitListing(wt));
            expect(listed).toContain("app.log");
            expect(listed).toContain("fresh.ts");
            expect(listed).not.toContain("fresh.log");
        } finally {
            await outside.cleanup();
            await worktrees.cleanup();
        }
    });

    it.each([
        ["index version 4", ["update-index", "--index-version", "4"]],
        ["a split index", ["update-index", "--split-index"]],
    ])("gives the same listing with %s", async (_, command) => {
        const outside = await makeOutsideDir();
        try {
            repo = await trackedRepo(outside.dir);
            git(repo.root, "commit", "-qm", "init");
            const before = await collectFiles(repo.root, asGit);
            git(repo.root, ...command);
            await repo.write("added-later.log", "");
            git(repo.root, "add", "-f", "added-later.log");
            const listed = await collectFiles(repo.root, asGit);
            expect(listed).toEqual(gitListing(repo.root));
            expect(listed).toEqual([...before, "added-later.log"].sort(comparePaths));
        } finally {
            await outside.cleanup();
        }
    });

    it("never lets the repository's git config run a program while listing", async () => {
        const outside = await makeOutsideDir();
        try {
            repo = await trackedRepo(outside.dir);
            git(repo.root, "commit", "-qm", "init");
            // A split index is read through `git ls-files`, which would run core.fsmonitor.
            git(repo.root, "update-index", "--split-index");
            const expected = gitListing(repo.root);
            const marker = path.join(outside.dir, "fsmonitor-ran");
            const hook = path.join(outside.dir, "fsmonitor.sh");
            await fs.writeFile(hook, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
            git(repo.root, "config", "core.fsmonitor", hook);
            expect(await collectFiles(repo.root, asGit)).toEqual(expected);
            await expect(fs.access(marker)).rejects.toThrow();
        } finally {
            await outside.cleanup();
        }
    });

    it("reads a SHA-256 repository's index", async () => {
        repo = await makeRepo({ ".gitignore": "*.gen\n", "a.gen": "", "b.gen": "", "c.ts": "" });
        git(repo.root, "init", "-q", "--object-format=sha256");
        git(repo.root, "add", "-A");
        git(repo.root, "add", "-f", "a.gen");
        expect(await collectFiles(repo.root, asGit)).toEqual([".gitignore", "a.gen", "c.ts"]);
        expect(await collectFiles(repo.root, asGit)).toEqual(gitListing(repo.root));
    });

    it("skips deleted tracked files, keeps .ignore's word, and survives a corrupt index", async () => {
        repo = await makeRepo({
            ".gitignore": "out/\n",
            ".ignore": "hidden.ts\n",
            "out/gone.js": "",
            "out/kept.js": "",
            "hidden.ts": "",
            "a.ts": "",
        });
        git(repo.root, "init", "-q");
        git(repo.root, "add", "-A");
        git(repo.root, "add", "-f", "out/gone.js", "out/kept.js");
        await fs.rm(path.join(repo.root, "out", "gone.js"));
        // .ignore is for tools: it hides even a tracked file (ripgrep does the same).
        expect(await collectFiles(repo.root, asGit)).toEqual([
            ".gitignore",
            ".ignore",
            "a.ts",
            "out/kept.js",
        ]);
        await fs.writeFile(path.join(repo.root, ".git", "index"), "DIRC not really an index");
        expect(await collectFiles(repo.root, asGit)).toEqual([".gitignore", ".ignore", "a.ts"]);
    });

    it("lists a symlink loop and a link to a directory once each, never entering them", async () => {
        repo = await makeRepo({ "real/a.ts": "", ".gitignore": "*.tmp\n" });
        await fs.symlink(repo.root, path.join(repo.root, "real", "loop"));
        await fs.symlink("real", path.join(repo.root, "alias"));
        await fs.symlink("real/a.ts", path.join(repo.root, "x.tmp"));
        expect(await collectFiles(repo.root, asGit)).toEqual([
            ".gitignore",
            "alias",
            "real/a.ts",
            "real/loop",
        ]);
    });
});
