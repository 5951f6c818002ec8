import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGetLineCountTool } from "../../src/tools/get-line-count";
import { type TempRepo, err, makeRepo, ok, run } from "./nav-fixtures";

let repo: TempRepo;
beforeEach(() => {
    repo = makeRepo();
});
afterEach(() => repo.dispose());

const tool = createGetLineCountTool();

describe("get_line_count", () => {
    it("counts lines, bytes and the longest line, with a size hint", async () => {
        repo.write("a.ts", "one\ntwo\nthree\n");
        expect(ok(await run(tool, { path: "a.ts" }, repo.ctx))).toEqual({
            path: "a.ts",
            lines: 3,
            bytes: 14,
            longestLine: 5,
            sizeCategory: "small",
            hint: "small: read_file can return it whole",
        });
    });

    it("counts a last line without a newline, an empty file, and CRLF endings", async () => {
        repo.write("b.txt", "a\nb");
        expect(ok(await run(tool, { path: "b.txt" }, repo.ctx)).lines).toBe(2);
        repo.write("empty.txt", "");
        expect(ok(await run(tool, { path: "empty.txt" }, repo.ctx))).toMatchObject({
            lines: 0,
            sizeCategory: "empty",
        });
        repo.write("crlf.txt", "alpha\r\nbeta\r\n");
        expect(ok(await run(tool, { path: "crlf.txt" }, repo.ctx))).toMatchObject({
            lines: 2,
            longestLine: 5,
        });
    });

    it("classifies medium and large files and points to the outline", async () => {
        repo.write("m.ts", "x\n".repeat(1500));
        const medium = ok(await run(tool, { path: "m.ts" }, repo.ctx));
        expect(medium.sizeCategory).toBe("medium");
        expect(medium.hint).toContain("get_file_outline");
        repo.write("l.ts", "x\n".repeat(5000));
        expect(ok(await run(tool, { path: "l.ts" }, repo.ctx)).hint).toMatch(
            /^large: get_file_outline/
        );
    });

    it("streams a file bigger than one chunk and flags a minified line", async () => {
        const line = `var a=${"1+".repeat(700_000)}1;`;
        repo.write("min.js", line);
        const data = ok(await run(tool, { path: "min.js" }, repo.ctx));
        expect(data).toMatchObject({ lines: 1, bytes: line.length, longestLine: line.length });
        expect(data.hint).toContain("minified");
    });

    it("rejects binaries, directories and missing files", async () => {
        repo.write("bin.dat", Buffer.from([1, 2, 0, 3]));
        expect(err(await run(tool, { path: "bin.dat" }, repo.ctx)).code).toBe("binary_file");
        repo.write("d/x.txt", "x");
        expect(err(await run(tool, { path: "d" }, repo.ctx)).code).toBe("not_a_file");
        expect(err(await run(tool, { path: "nope" }, repo.ctx)).code).toBe("not_found");
    });
});
