import { afterEach, describe, expect, it } from "vitest";
import { createFindFilesTool, normalizeGlob } from "../../src/tools/find-files";
import { type TempRepo, expectOk, makeRepo } from "./fixtures";

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

    it("normalizes globs", () => {
        expect(normalizeGlob("./src/")).toEqual({ glob: "src/**", byName: false });
        expect(normalizeGlob("/a/*.ts")).toEqual({ glob: "a/*.ts", byName: false });
        expect(normalizeGlob("/x.ts")).toEqual({ glob: "x.ts", byName: false });
        expect(normalizeGlob("*.ts")).toEqual({ glob: "*.ts", byName: true });
        expect(normalizeGlob(".")).toEqual({ glob: "**", byName: false });
        expect(normalizeGlob("src\\*.ts")).toEqual({ glob: "src/*.ts", byName: false });
    });
});
