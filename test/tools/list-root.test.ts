import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_ROOT_ENTRIES, createListRootTool } from "../../src/tools/list-root";
import { type TempRepo, expectOk, makeRepo } from "./fixtures";

const tool = createListRootTool();
let repo: TempRepo | undefined;
afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
});

describe("list_root", () => {
    it("lists directories first, marked with '/', and leaves ignored entries out", async () => {
        repo = await makeRepo({
            "b.txt": "",
            "a.md": "",
            "src/x.ts": "",
            "docs/": "",
            ".gitignore": "dist/\n*.log\n",
            "dist/app.js": "",
            "debug.log": "",
            "node_modules/x/index.js": "",
            ".git/HEAD": "",
        });
        await fs.symlink(path.join(repo.root, "src"), path.join(repo.root, "link"));
        const result = expectOk(await tool.execute({}, repo.ctx()));
        expect(result.entries).toEqual(["docs/", "src/", ".gitignore", "a.md", "b.txt", "link@"]);
        expect(result).toMatchObject({ totalEntries: 6, truncated: false });
        expect(result.note).toMatch(/symbolic links/);
    });

    it("caps the number of entries", async () => {
        const files: Record<string, string> = {};
        for (let i = 0; i < MAX_ROOT_ENTRIES + 20; i++)
            files[`f${String(i).padStart(3, "0")}`] = "";
        repo = await makeRepo(files);
        const result = expectOk(await tool.execute({}, repo.ctx()));
        expect(result.entries).toHaveLength(MAX_ROOT_ENTRIES);
        expect(result).toMatchObject({ totalEntries: MAX_ROOT_ENTRIES + 20, truncated: true });
        expect(result.note).toMatch(/find_files/);
    });

    it("handles an empty repository", async () => {
        repo = await makeRepo();
        const result = expectOk(await tool.execute({}, repo.ctx()));
        expect(result).toMatchObject({ entries: [], totalEntries: 0, truncated: false });
        expect(result.note).toMatch(/empty/);
    });
});
