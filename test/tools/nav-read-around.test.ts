import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createReadAroundTool } from "../../src/tools/read-around";
import { TS_SOURCE, type TempRepo, err, makeRepo, ok, run } from "./nav-fixtures";
import { inputSchema } from "../../src/tools/tool-input";

let repo: TempRepo;
beforeEach(() => {
    repo = makeRepo();
});
afterEach(() => repo.dispose());

const tool = createReadAroundTool();

function numbered(count: number, text = (i: number) => `line ${i}`): string {
    return `${Array.from({ length: count }, (_, i) => text(i + 1)).join("\n")}\n`;
}

describe("read_around", () => {
    it("has a compact schema with the spec's defaults", () => {
        const parsed = inputSchema(tool.input).parse({ path: "a.ts", anchor: "x" });
        expect(parsed).toMatchObject({ before: 12, after: 20 });
        expect(tool.readOnly).toBe(true);
        expect(tool.description).toContain("search_text");
    });

    it("returns numbered lines around a unique anchor with the match line marked", async () => {
        repo.write("src/server.ts", TS_SOURCE);
        const data = ok(
            await run(
                tool,
                { path: "src/server.ts", anchor: "bad port", before: 2, after: 1 },
                repo.ctx
            )
        );
        expect(data).toMatchObject({
            path: "src/server.ts",
            totalLines: 62,
            matchCount: 1,
            occurrenceUsed: 1,
            matchLine: 33,
            startLine: 31,
            endLine: 34,
        });
        expect(data.content).toBe(
            [
                "  31|     async start(): Promise<void> {",
                "  32|         if (this.options.port < 0) {",
                '> 33|             throw new Error("bad port: }");',
                "  34|         }",
            ].join("\n")
        );
    });

    it("uses the defaults (12 before, 20 after) and clips at the file edges", async () => {
        repo.write("a.txt", numbered(100));
        const mid = ok(await run(tool, { path: "a.txt", anchor: "line 50" }, repo.ctx));
        expect([mid.startLine, mid.endLine]).toEqual([38, 70]);
        const top = ok(await run(tool, { path: "a.txt", anchor: "line 3\n" }, repo.ctx));
        expect([top.startLine, top.matchLine, top.endLine]).toEqual([1, 3, 23]);
        const end = ok(await run(tool, { path: "a.txt", anchor: "line 99" }, repo.ctx));
        expect(end.endLine).toBe(100);
    });

    it("fails with a search_text suggestion when the anchor is absent, and mentions a case-insensitive match", async () => {
        repo.write("a.txt", numbered(10));
        const absent = err(await run(tool, { path: "a.txt", anchor: "missing text" }, repo.ctx));
        expect(absent.code).toBe("no_match");
        expect(absent.message).toContain("search_text");
        const cased = err(await run(tool, { path: "a.txt", anchor: "LINE 7" }, repo.ctx));
        expect(cased.message).toContain("different case on line 7");
    });

    it("lists candidates (capped at 20) when the anchor occurs 40 times without occurrence", async () => {
        repo.write(
            "many.ts",
            numbered(40, (i) => `    retry(${i}); // attempt`)
        );
        const e = err(await run(tool, { path: "many.ts", anchor: "retry(" }, repo.ctx));
        expect(e.code).toBe("ambiguous_match");
        expect(e.message).toContain("occurs on 40 lines");
        expect(e.message).toContain("occurrence (1-40)");
        expect(e.message).toContain("line 1: retry(1); // attempt");
        expect(e.message).toContain("line 20: retry(20); // attempt");
        expect(e.message).not.toContain("line 21:");
        expect(e.message).toContain("and 20 more");

        const picked = ok(
            await run(
                tool,
                { path: "many.ts", anchor: "retry(", occurrence: 25, before: 1, after: 1 },
                repo.ctx
            )
        );
        expect(picked).toMatchObject({
            matchCount: 40,
            occurrenceUsed: 25,
            matchLine: 25,
            startLine: 24,
            endLine: 26,
        });
        expect(picked.content.split("\n")[1]).toBe("> 25|     retry(25); // attempt");
    });

    it("rejects occurrence 0 at validation and beyond the count with the valid range", async () => {
        const zero = inputSchema(tool.input).safeParse({
            path: "a.ts",
            anchor: "x",
            occurrence: 0,
        });
        expect(zero.success).toBe(false);
        expect(zero.error!.issues[0]!.message).toContain("1-based");

        repo.write(
            "many.ts",
            numbered(40, (i) => `retry(${i});`)
        );
        const beyond = err(
            await run(tool, { path: "many.ts", anchor: "retry(", occurrence: 41 }, repo.ctx)
        );
        expect(beyond.code).toBe("out_of_range");
        expect(beyond.message).toContain("occurrence 41 is out of range");
        expect(beyond.message).toContain("use 1-40");
        // execute called without validation still answers clearly.
        const direct = err(
            await tool.execute(
                { path: "many.ts", anchor: "retry(", before: 1, after: 1, occurrence: 0 },
                repo.ctx
            )
        );
        expect(direct.code).toBe("out_of_range");
    });

    it("caps before/after at 200 in the schema", () => {
        expect(
            inputSchema(tool.input).safeParse({ path: "a", anchor: "x", before: 201 }).success
        ).toBe(false);
        expect(
            inputSchema(tool.input).safeParse({ path: "a", anchor: "x", after: 200 }).success
        ).toBe(true);
    });

    it("marks every line of a multi-line anchor", async () => {
        repo.write("a.txt", numbered(10));
        const data = ok(
            await run(
                tool,
                { path: "a.txt", anchor: "line 4\nline 5", before: 1, after: 1 },
                repo.ctx
            )
        );
        expect(data.content.split("\n")).toEqual([
            "  3| line 3",
            "> 4| line 4",
            "> 5| line 5",
            "  6| line 6",
        ]);
    });
});
