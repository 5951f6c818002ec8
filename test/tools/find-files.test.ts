import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFileIndex } from "../../src/project/file-index";
import { createFindFilesTool, normalizeGlob } from "../../src/tools/find-files";
import { type TempRepo, expectError, expectOk, makeOutsideDir, makeRepo } from "./fixtures";
import { git, gitListing } from "./walk-git-kit";

const tool = createFindFilesTool();
let repo: TempRepo | undefined;
afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
});

const run = async (pattern: string, limit?: number) =>
    expectOk(await tool.execute({ pattern, limit: limit ?? 50 }, repo!.ctx()));

describe("find_files", () => {
    it("matches basenames at any depth without '/', paths with '/', case-insensitively", async () => {
        repo = await makeRepo({
            "README.md": "",
            "src/App.TS": "",
            "src/util/math.ts": "",
            "src/util/math.test.ts": "",
            "docs/readme.md": "",
            ".github/workflows/ci.yml": "",
            ".gitignore": "gen/\n",
            "src/gen/x.ts": "",
            "node_modules/a/index.ts": "",
        });
        expect((await run("*.ts")).files).toEqual([
            "src/App.TS",
            "src/util/math.test.ts",
            "src/util/math.ts",
        ]);
        expect((await run("readme*")).files).toEqual(["README.md", "docs/readme.md"]);
        expect((await run("src/**/*.test.ts")).files).toEqual(["src/util/math.test.ts"]);
        expect((await run("src/*.ts")).files).toEqual(["src/App.TS"]);
        expect((await run("**/*.yml")).files).toEqual([".github/workflows/ci.yml"]);
        expect((await run("./src/util/")).files).toEqual([
            "src/util/math.test.ts",
            "src/util/math.ts",
        ]);
        expect((await run("/README.md")).files).toEqual(["README.md"]);
    });

    it("limits results, counts all matches and flags truncation", async () => {
        const files: Record<string, string> = {};
        for (let i = 0; i < 30; i++) files[`d${i % 3}/f${String(i).padStart(2, "0")}.ts`] = "";
        repo = await makeRepo(files);
        const result = await run("*.ts", 10);
        expect(result.files).toHaveLength(10);
        expect(result.totalMatches).toBe(30);
        expect(result.truncated).toBe(true);
        expect(result.note).toMatch(/10 of 30/);
        expect(result.files).toEqual([...result.files].sort());
        expect((await run("*.ts", 500)).truncated).toBe(false);
    });

    it("returns an empty result with a hint when nothing matches, also in an empty repo", async () => {
        repo = await makeRepo();
        const result = await run("*.ts");
        expect(result).toMatchObject({ files: [], totalMatches: 0, truncated: false });
        expect(result.note).toMatch(/dir\/\*\*/);
    });

    it("finds what git lists: a symlinked README, tracked files a nested .gitignore matches", async () => {
        const outside = await makeOutsideDir();
        try {
            await fs.writeFile(path.join(outside.dir, "secret.txt"), "x");
            repo = await makeRepo({
                "docs/README.md": "# docs\n",
                "pkg/.gitignore": "generated.ts\n",
                "pkg/generated.ts": "",
                "pkg/scratch/generated.ts": "",
                "src/app.ts": "",
            });
            await fs.symlink("docs/README.md", path.join(repo.root, "README.md"));
            await fs.symlink(outside.dir, path.join(repo.root, "vendor-link"));
            git(repo.root, "init", "-q");
            git(repo.root, "add", "-A");
            git(repo.root, "add", "-f", "pkg/generated.ts");
            expect((await run("README*")).files).toEqual(["README.md", "docs/README.md"]);
            expect((await run("*.ts")).files).toEqual(["pkg/generated.ts", "src/app.ts"]);
            // A link leading out of the project is listed by name and never read through.
            expect((await run("vendor-link")).files).toEqual(["vendor-link"]);
            expect((await run("**/secret.txt")).totalMatches).toBe(0);
            const everything = (await run("**", 500)).files;
            expect(everything).toEqual(gitListing(repo.root));
            // The @ index lists the same files.
            expect(await createFileIndex(repo.root).ready()).toEqual(everything);
        } finally {
            await outside.cleanup();
        }
    });

    it("matches a file named like a glob literally, and stops when cancelled", async () => {
        repo = await makeRepo({ "pages/[id].tsx": "", "pages/i.tsx": "", "pages/x.tsx": "" });
        expect((await run("[id].tsx")).files).toEqual(["pages/[id].tsx", "pages/i.tsx"]);
        const controller = new AbortController();
        controller.abort();
        const error = expectError(
            await tool.execute({ pattern: "*.tsx", limit: 50 }, repo.ctx(controller.signal))
        );
        expect(error.code).toBe("cancelled");
    });

    it("normalizes globs", () => {
        expect(normalizeGlob("./src/")).toEqual({ glob: "src/**", byName: false });
        expect(normalizeGlob("/a/*.ts")).toEqual({ glob: "a/*.ts", byName: false });
        expect(normalizeGlob("/x.ts")).toEqual({ glob: "x.ts", byName: false });
        expect(normalizeGlob("*.ts")).toEqual({ glob: "*.ts", byName: true });
        expect(normalizeGlob(".")).toEqual({ glob: "**", byName: false });
        expect(normalizeGlob("src\\*.ts")).toEqual({ glob: "src/*.ts", byName: false });
    });
});
