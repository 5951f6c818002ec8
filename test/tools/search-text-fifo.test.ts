import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSearchTextTool } from "../../src/tools/search-text";
import { type GuardedFifo, guardedFifo } from "../kit/fifo-guard";
import { type TempRepo, expectOk, makeRepo } from "./fixtures";

// The JavaScript engine reads files itself; ripgrep skips FIFOs on its own.
const tool = createSearchTextTool({ ripgrepPath: null });

describe("search_text (js engine) and a FIFO in the tree", () => {
    let repo: TempRepo;
    let guard: GuardedFifo;
    beforeAll(async () => {
        repo = await makeRepo({ "src/app.ts": "export const needle = 1;\n" });
        guard = guardedFifo(path.join(repo.root, "src", "pipe.ts"));
    });
    afterAll(async () => {
        guard.stop();
        await repo.cleanup();
    });

    it("searches past a FIFO in the tree, and fails at once on the FIFO itself", async () => {
        const all = { query: "needle", regex: false, caseSensitive: false, limit: 50 };
        const found = expectOk(await tool.execute(all, repo.ctx()));
        expect(found.matches.map((m) => m.path)).toEqual(["src/app.ts"]);
        const args = {
            query: "needle",
            regex: false,
            caseSensitive: false,
            limit: 50,
            path: "src/pipe.ts",
        };
        const result = await tool.execute(args, repo.ctx());
        expect(guard.fired()).toBe(false);
        expect(result).toMatchObject({ ok: false, error: { code: "io_error" } });
    });
});
