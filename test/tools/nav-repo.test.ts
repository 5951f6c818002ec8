import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDetectLanguagesTool } from "../../src/tools/detect-languages";
import { createHotfilesTool } from "../../src/tools/hotfiles";
import { createReadReadmeTool } from "../../src/tools/read-readme";
import { PY_SOURCE, TS_SOURCE, type TempRepo, err, makeRepo, ok, run } from "./nav-fixtures";
import { inputSchema } from "../../src/tools/tool-input";

let repo: TempRepo;
beforeEach(() => {
    repo = makeRepo();
});
afterEach(() => repo.dispose());

function git(...args: string[]): void {
    execFileSync(
        "git",
        ["-c", "user.name=x", "-c", "user.email=y@z", "-c", "commit.gpgsign=false", ...args],
        {
            cwd: repo.root,
            stdio: "ignore",
            env: {
                ...process.env,
                GIT_AUTHOR_DATE: "2024-05-01T12:00:00Z",
                GIT_COMMITTER_DATE: "2024-05-01T12:00:00Z",
            },
        }
    );
}

function gitOut(args: string[], input?: string): string {
    return execFileSync("git", args, { cwd: repo.root, input, encoding: "utf8" });
}

describe("read_readme", () => {
    const tool = createReadReadmeTool();

    it("prefers README.md and lists the others", async () => {
        repo.write("readme.txt", "plain\n");
        repo.write("README.md", "# Project\n\nHello.\n");
        const data = ok(await run(tool, {}, repo.ctx));
        expect(data).toEqual({
            path: "README.md",
            content: "# Project\n\nHello.\n",
            bytes: 18,
            truncated: false,
            others: ["readme.txt"],
        });
    });

    it("finds a README in any case and extension", async () => {
        repo.write("Readme.rst", "Title\n=====\n");
        expect(ok(await run(tool, {}, repo.ctx)).path).toBe("Readme.rst");
    });

    it("cuts at 8 KB on a line break and says where to continue", async () => {
        const lines = Array.from({ length: 400 }, (_, i) => `Line ${i + 1} of the long readme.`);
        repo.write("README.md", `${lines.join("\n")}\n`);
        const data = ok(await run(tool, {}, repo.ctx));
        expect(data.truncated).toBe(true);
        expect(Buffer.byteLength(data.content)).toBeLessThanOrEqual(8192);
        expect(data.content.endsWith("\n")).toBe(true);
        const shown = data.content.split("\n").length - 1;
        expect(data.note).toContain(`line ${shown + 1}`);
    });

    it("fails with not_found when there is no README", async () => {
        repo.write("src/a.ts", "x");
        const e = err(await run(tool, {}, repo.ctx));
        expect(e.code).toBe("not_found");
        expect(e.message).toContain("find_files");
    });
});

describe("detect_languages", () => {
    const tool = createDetectLanguagesTool();

    it("sums bytes per language, respects .gitignore, skips binaries and lock files", async () => {
        repo.write("src/a.ts", "x".repeat(6000));
        repo.write("src/b.tsx", "x".repeat(2000));
        repo.write("tools/run.py", "x".repeat(2000));
        repo.write("package.json", "{}");
        repo.write("package-lock.json", "x".repeat(90000));
        repo.write("README.md", "# hi\n");
        repo.write("image.ts", Buffer.from([0, 1, 2, 3]));
        repo.write("dist/bundle.js", "x".repeat(50000));
        repo.write("node_modules/x/index.js", "x".repeat(50000));
        repo.write(".gitignore", "dist/\n");
        const data = ok(await run(tool, {}, repo.ctx));
        expect(data.languages).toEqual([
            { language: "TypeScript", files: 2, bytes: 8000, percent: 80 },
            { language: "Python", files: 1, bytes: 2000, percent: 20 },
        ]);
        expect(data.primary).toBe("TypeScript");
        expect(data.dataAndDocs.map((d) => d.language)).toEqual(["Markdown", "JSON"]);
        expect(data.truncated).toBe(false);
    });

    it("merges the tail beyond the top 10 into other", async () => {
        const exts = ["ts", "js", "py", "rs", "go", "java", "cs", "php", "rb", "kt", "swift", "c"];
        exts.forEach((ext, i) => repo.write(`f${i}.${ext}`, "x".repeat(1000 * (20 - i))));
        const data = ok(await run(tool, {}, repo.ctx));
        expect(data.languages).toHaveLength(11);
        expect(data.languages[10]!.language).toBe("other (2 languages)");
        const total = data.languages.reduce((sum, l) => sum + l.percent, 0);
        expect(total).toBeGreaterThan(99.5);
        expect(total).toBeLessThan(100.5);
    });
});

describe("hotfiles", () => {
    it("ranks files by commits in git history, skipping deleted and ignored files", async () => {
        repo.write(".gitignore", "build/\n");
        repo.write("src/hot.ts", "1");
        repo.write("src/warm.ts", "1");
        repo.write("src/gone.ts", "1");
        git("init", "-q");
        git("add", "-A");
        git("commit", "-qm", "one");
        for (let i = 2; i <= 4; i++) {
            repo.write("src/hot.ts", String(i));
            if (i === 2) repo.write("src/warm.ts", "2");
            git("add", "-A");
            git("commit", "-qm", `change ${i}`);
        }
        execFileSync("git", ["rm", "-q", "src/gone.ts"], { cwd: repo.root });
        git("commit", "-qm", "remove");
        const data = ok(await run(createHotfilesTool(), { limit: 2 }, repo.ctx));
        expect(data.method).toBe("git_history");
        expect(data.commitsScanned).toBe(5);
        expect(data.files).toEqual([
            { path: "src/hot.ts", commits: 4, lastChanged: "2024-05-01" },
            { path: "src/warm.ts", commits: 2, lastChanged: "2024-05-01" },
        ]);
        expect(data.truncated).toBe(true);
        const all = ok(await run(createHotfilesTool(), {}, repo.ctx));
        expect(all.files.map((f) => f.path)).toEqual(["src/hot.ts", "src/warm.ts", ".gitignore"]);
        expect(all.truncated).toBe(false);
    });

    it("falls back to recently modified source files outside a git repository and says why", async () => {
        repo.write("src/server.ts", TS_SOURCE);
        repo.write("app/repo.py", PY_SOURCE);
        repo.write("notes.md", "# notes");
        const data = ok(await run(createHotfilesTool(), {}, repo.ctx));
        expect(data.method).toBe("recently_modified");
        expect(data.files.map((f) => f.path).sort()).toEqual(["app/repo.py", "src/server.ts"]);
        expect(data.note).toMatch(/not a git repository/i);
        expect(data.note).toContain("last modification time");
    });

    it("falls back when git is missing or the repository has no commits", async () => {
        repo.write("a.ts", "x");
        const missing = ok(
            await run(createHotfilesTool({ gitPath: "/nonexistent/git" }), {}, repo.ctx)
        );
        expect(missing).toMatchObject({ method: "recently_modified", files: [{ path: "a.ts" }] });
        expect(missing.note).toContain("git is not installed");
        git("init", "-q");
        const empty = ok(await run(createHotfilesTool(), {}, repo.ctx));
        expect(empty.method).toBe("recently_modified");
        expect(empty.note).toContain("git log failed");
    });

    it("never lets the repository's git config run a program while reading history", async () => {
        // Outside the repo, so the listing never sees what the programs write.
        const outside = mkdtempSync(join(tmpdir(), "north-hot-outside-"));
        try {
            const ran = join(outside, "ran.log");
            const program = join(outside, "program.sh");
            writeFileSync(program, `#!/bin/sh\necho "$0 $*" >> '${ran}'\n`, { mode: 0o755 });
            repo.write("src/a.ts", "1");
            git("init", "-q");
            git("add", "-A");
            git("commit", "-qm", "one");
            repo.write("src/a.ts", "2");
            git("commit", "-qam", "two");
            // A signed commit, checked by the repository's own gpg.program on every log.
            const signed = gitOut(["cat-file", "commit", "HEAD"]).replace(
                /^(committer .*)$/m,
                "$1\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----"
            );
            const head = gitOut(["hash-object", "-t", "commit", "-w", "--stdin"], signed).trim();
            git("update-ref", "HEAD", head);
            git("config", "log.showSignature", "true");
            git("config", "gpg.program", program);
            const plain = ok(await run(createHotfilesTool(), {}, repo.ctx));
            expect(plain.method).toBe("git_history");
            expect(plain.files).toEqual([
                { path: "src/a.ts", commits: 2, lastChanged: "2024-05-01" },
            ]);
            // A fake partial clone: a missing tree would be fetched through its uploadpack.
            git("config", "core.repositoryformatversion", "1");
            git("config", "extensions.partialClone", "origin");
            git("config", "remote.origin.url", repo.root);
            git("config", "remote.origin.uploadpack", program);
            // The repository's own say on protocols must not switch fetching back on.
            git("config", "protocol.file.allow", "always");
            const tree = gitOut(["rev-parse", "HEAD~1^{tree}"]).trim();
            rmSync(join(repo.root, ".git", "objects", tree.slice(0, 2), tree.slice(2)));
            const lazy = ok(await run(createHotfilesTool(), {}, repo.ctx));
            expect(lazy.method).toBe("recently_modified");
            expect(existsSync(ran) ? readFileSync(ran, "utf8") : "").toBe("");
        } finally {
            rmSync(outside, { recursive: true, force: true });
        }
    });

    it("validates limit (default 10, max 50)", () => {
        const tool = createHotfilesTool();
        expect(inputSchema(tool.input).parse({})).toEqual({ limit: 10 });
        expect(inputSchema(tool.input).safeParse({ limit: 51 }).success).toBe(false);
    });
});
