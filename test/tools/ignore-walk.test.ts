import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    comparePaths,
    createIgnoreMatcher,
    listDirectoryEntries,
    walkFiles,
} from "../../src/util/ignore-walk";
import { type TempRepo, collect, makeOutsideDir, makeRepo } from "./fixtures";

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
