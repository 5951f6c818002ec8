import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EDGE_LINE_CHARS, MAX_BYTES, createReadFileTool } from "../../src/tools/read-file";
import { type TempRepo, expectError, expectOk, makeOutsideDir, makeRepo } from "./fixtures";

const tool = createReadFileTool();
let repo: TempRepo | undefined;
afterEach(async () => {
    await repo?.cleanup();
    repo = undefined;
});

const lines = (n: number, prefix = "line") =>
    Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);

describe("read_file", () => {
    it("reads a whole small file and a line range", async () => {
        repo = await makeRepo({ "a.txt": "one\ntwo\nthree\n", "b.txt": "x\r\ny" });
        expect(expectOk(await tool.execute({ path: "a.txt" }, repo.ctx()))).toEqual({
            path: "a.txt",
            content: "one\ntwo\nthree",
            startLine: 1,
            endLine: 3,
            totalLines: 3,
            truncated: false,
        });
        const range = expectOk(
            await tool.execute({ path: "a.txt", range: { start: 2, end: 2 } }, repo.ctx())
        );
        expect(range).toMatchObject({
            content: "two",
            startLine: 2,
            endLine: 2,
            totalLines: 3,
            truncated: false,
        });
        // No trailing newline; CRLF is kept as is.
        expect(expectOk(await tool.execute({ path: "b.txt" }, repo.ctx()))).toMatchObject({
            content: "x\r\ny",
            endLine: 2,
            totalLines: 2,
        });
        const open = expectOk(
            await tool.execute({ path: "a.txt", range: { start: 3 } }, repo.ctx())
        );
        expect(open).toMatchObject({
            content: "three",
            startLine: 3,
            endLine: 3,
            truncated: false,
        });
    });

    it("caps at 500 lines and says how to continue", async () => {
        repo = await makeRepo({ "big.txt": `${lines(1200).join("\n")}\n` });
        const first = expectOk(await tool.execute({ path: "big.txt" }, repo.ctx()));
        expect(first).toMatchObject({
            startLine: 1,
            endLine: 500,
            totalLines: 1200,
            truncated: true,
        });
        expect(first.content.split("\n")).toEqual(lines(500));
        expect(first.note).toMatch(/range \{start: 501\}/);
        const next = expectOk(
            await tool.execute({ path: "big.txt", range: { start: 1100, end: 5000 } }, repo.ctx())
        );
        expect(next).toMatchObject({ startLine: 1100, endLine: 1200, truncated: false });
        const wide = expectOk(
            await tool.execute({ path: "big.txt", range: { start: 1, end: 1200 } }, repo.ctx())
        );
        expect(wide).toMatchObject({ endLine: 500, truncated: true });
    });

    it("caps at 100 KB without cutting a line, and cuts a single huge line", async () => {
        const long = "x".repeat(1000);
        repo = await makeRepo({
            "wide.txt": `${Array.from({ length: 300 }, () => long).join("\n")}\n`,
            "min.js": `${"é".repeat(150_000)}\nsecond\n`,
        });
        const wide = expectOk(await tool.execute({ path: "wide.txt" }, repo.ctx()));
        expect(wide.endLine).toBe(Math.floor(MAX_BYTES / 1001));
        expect(wide.truncated).toBe(true);
        expect(wide.content.split("\n").every((l) => l === long)).toBe(true);
        expect(wide.note).toMatch(/100 KB/);
        const min = expectOk(await tool.execute({ path: "min.js" }, repo.ctx()));
        expect(min).toMatchObject({ startLine: 1, endLine: 1, totalLines: 2, truncated: true });
        expect(Buffer.byteLength(min.content)).toBeLessThanOrEqual(MAX_BYTES);
        expect(min.content).toMatch(/^é+$/);
        expect(min.note).toMatch(/Line 1 is .* long.*start: 2/);
    });

    it("streams a 200 MB sparse file: quick, truncated, right first and last lines", async () => {
        repo = await makeRepo();
        const file = path.join(repo.root, "huge.log");
        const head = `${lines(2000, "log").join("\n")}\n`;
        const handle = await fs.open(file, "w");
        try {
            await handle.write(head, 0);
            await handle.write("tail one\ntail two\n", 200 * 1024 * 1024);
        } finally {
            await handle.close();
        }
        const started = performance.now();
        const result = expectOk(await tool.execute({ path: "huge.log" }, repo.ctx()));
        expect(performance.now() - started).toBeLessThan(10_000);
        expect(result).toMatchObject({
            startLine: 1,
            endLine: 500,
            totalLines: 2002,
            truncated: true,
        });
        expect(result.content.split("\n").slice(0, 2)).toEqual(["log 1", "log 2"]);
        const last = expectOk(
            await tool.execute({ path: "huge.log", range: { start: 2002 } }, repo.ctx())
        );
        expect(last).toMatchObject({
            content: "tail two",
            startLine: 2002,
            endLine: 2002,
            truncated: false,
        });
        const started2 = performance.now();
        const edges = expectOk(
            await tool.execute(
                { path: "huge.log", range: { start: 1000, end: 1001 }, includeHeadTail: true },
                repo.ctx()
            )
        );
        expect(performance.now() - started2).toBeLessThan(10_000);
        expect(edges.content).toBe("log 1000\nlog 1001");
        expect(edges.head).toEqual({ startLine: 1, content: lines(10, "log").join("\n") });
        // Line 2001 is 200 MB of NULs then "tail one": only its end is shown.
        expect(edges.tail!.startLine).toBe(2001);
        expect(edges.tail!.content).toMatch(/^…\0+tail one\ntail two$/);
        expect(edges.tail!.content.length).toBeLessThanOrEqual(EDGE_LINE_CHARS + 10);
    });

    it("adds head and tail around a range, without repeating lines", async () => {
        repo = await makeRepo({
            "h.txt": `${lines(100).join("\n")}\n`,
            "small.txt": lines(12).join("\n"),
            "crlf.txt": `${lines(30).join("\r\n")}\r\n`,
            "empty.txt": "",
        });
        const read = async (p: string, range?: { start: number; end?: number }) =>
            expectOk(await tool.execute({ path: p, range, includeHeadTail: true }, repo!.ctx()));
        const mid = await read("h.txt", { start: 50, end: 52 });
        expect(mid).toMatchObject({ content: lines(52).slice(49).join("\n"), startLine: 50 });
        expect(mid.head).toEqual({ startLine: 1, content: lines(10).join("\n") });
        expect(mid.tail).toEqual({ startLine: 91, content: lines(100).slice(90).join("\n") });
        // Overlaps are clipped: only lines outside the range (and not in head) are added.
        const wide = await read("h.txt", { start: 5, end: 95 });
        expect(wide.head).toEqual({ startLine: 1, content: lines(4).join("\n") });
        expect(wide.tail).toEqual({ startLine: 96, content: lines(100).slice(95).join("\n") });
        const all = await read("h.txt", { start: 1, end: 100 });
        expect(all.head).toBeUndefined();
        expect(all.tail).toBeUndefined();
        const small = await read("small.txt", { start: 6, end: 6 });
        expect(small.head).toEqual({ startLine: 1, content: lines(5).join("\n") });
        expect(small.tail).toEqual({ startLine: 7, content: lines(12).slice(6).join("\n") });
        // Past the end: nothing read, so head and the rest of the tail orient.
        const past = await read("small.txt", { start: 50 });
        expect(past.head).toEqual({ startLine: 1, content: lines(10).join("\n") });
        expect(past.tail).toEqual({ startLine: 11, content: "line 11\nline 12" });
        // No range: content starts at line 1; CR is kept as in content.
        const crlf = await read("crlf.txt");
        expect(crlf.head).toBeUndefined();
        expect(crlf.tail).toBeUndefined();
        const crlfMid = await read("crlf.txt", { start: 15, end: 15 });
        expect(crlfMid.content).toBe("line 15\r");
        expect(crlfMid.tail).toMatchObject({ startLine: 21 });
        expect(crlfMid.tail!.content.split("\n")).toEqual(
            lines(30)
                .slice(20)
                .map((l) => `${l}\r`)
        );
        expect(await read("empty.txt")).not.toHaveProperty("head");
        // Without includeHeadTail nothing is added.
        const plain = expectOk(
            await tool.execute({ path: "h.txt", range: { start: 50, end: 50 } }, repo.ctx())
        );
        expect(plain).not.toHaveProperty("head");
        expect(plain).not.toHaveProperty("tail");
    });

    it("adds the tail of a truncated read, and cuts long head and tail lines", async () => {
        const long = (c: string) => `${c.repeat(70_000)}é`;
        repo = await makeRepo({
            "big.txt": `${lines(1200).join("\n")}\n`,
            // 10 KB lines: the tail's 64 KB reach ends inside the 5th line from the end.
            "wide.txt": `${Array.from({ length: 40 }, (_, i) => `${i + 1}:${"w".repeat(10_000)}`).join("\n")}\n`,
            "min.js": `${long("a")}\nmid\n${long("z")}`,
        });
        const big = expectOk(
            await tool.execute({ path: "big.txt", includeHeadTail: true }, repo.ctx())
        );
        expect(big).toMatchObject({ endLine: 500, truncated: true });
        expect(big.head).toBeUndefined();
        expect(big.tail).toEqual({ startLine: 1191, content: lines(1200).slice(1190).join("\n") });
        const wide = expectOk(
            await tool.execute(
                { path: "wide.txt", range: { start: 20, end: 20 }, includeHeadTail: true },
                repo.ctx()
            )
        );
        const tail = wide.tail!.content.split("\n");
        expect(wide.tail!.startLine).toBe(41 - tail.length);
        expect(tail.length).toBeLessThan(10);
        expect(tail[0]).toMatch(/^…w+$/);
        expect(tail.slice(1).every((l) => /^\d+:w+…$/.test(l))).toBe(true);
        expect(tail[tail.length - 1]!.startsWith("40:")).toBe(true);
        expect(tail.every((l) => l.length <= EDGE_LINE_CHARS + 1)).toBe(true);
        const min = expectOk(
            await tool.execute(
                { path: "min.js", range: { start: 2, end: 2 }, includeHeadTail: true },
                repo.ctx()
            )
        );
        expect(min.content).toBe("mid");
        expect(min.head).toEqual({ startLine: 1, content: `${"a".repeat(EDGE_LINE_CHARS)}…` });
        expect(min.tail).toEqual({ startLine: 3, content: `…${"z".repeat(EDGE_LINE_CHARS - 1)}é` });
    });

    it("refuses binary files, naming their size", async () => {
        repo = await makeRepo({ "img.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2, 3]) });
        const error = expectError(await tool.execute({ path: "img.png" }, repo.ctx()));
        expect(error.code).toBe("binary_file");
        expect(error.message).toMatch(/9 bytes/);
    });

    it("decodes invalid UTF-8 as Latin-1 and says so", async () => {
        repo = await makeRepo({
            "latin1.txt": Buffer.from("caf\xe9 cr\xe8me\n", "latin1"),
            "utf8.txt": "café\n",
        });
        const latin = expectOk(await tool.execute({ path: "latin1.txt" }, repo.ctx()));
        expect(latin.content).toBe("café crème");
        expect(latin.note).toMatch(/not valid UTF-8.*Latin-1/);
        const utf = expectOk(await tool.execute({ path: "utf8.txt" }, repo.ctx()));
        expect(utf.content).toBe("café");
        expect(utf.note).toBeUndefined();
    });

    it("reports directories, missing files, empty files and bad ranges clearly", async () => {
        repo = await makeRepo({ "src/a.ts": "a\n", "empty.txt": "" });
        expect(expectError(await tool.execute({ path: "src" }, repo.ctx())).code).toBe(
            "not_a_file"
        );
        const missing = expectError(await tool.execute({ path: "src/b.ts" }, repo.ctx()));
        expect(missing.code).toBe("not_found");
        expect(missing.message).toMatch(/find_files/);
        expect(expectOk(await tool.execute({ path: "empty.txt" }, repo.ctx()))).toMatchObject({
            content: "",
            totalLines: 0,
            truncated: false,
        });
        const past = expectOk(
            await tool.execute({ path: "src/a.ts", range: { start: 5 } }, repo.ctx())
        );
        expect(past).toMatchObject({ content: "", totalLines: 1 });
        expect(past.note).toMatch(/past the end/);
        const backwards = expectError(
            await tool.execute({ path: "src/a.ts", range: { start: 5, end: 2 } }, repo.ctx())
        );
        expect(backwards.code).toBe("invalid_args");
    });

    it("refuses paths outside the project, including through symlinks", async () => {
        const outside = await makeOutsideDir();
        try {
            repo = await makeRepo();
            await fs.writeFile(path.join(outside.dir, "secret"), "secret\n");
            await fs.symlink(path.join(outside.dir, "secret"), path.join(repo.root, "link"));
            await fs.symlink(outside.dir, path.join(repo.root, "dir-link"));
            for (const p of ["../../etc/passwd", "/etc/passwd", "link", "dir-link/secret"]) {
                expect(expectError(await tool.execute({ path: p }, repo.ctx())).code).toBe(
                    "path_outside_repo"
                );
            }
            expect(expectError(await tool.execute({ path: "a\0b" }, repo.ctx())).code).toBe(
                "invalid_path"
            );
        } finally {
            await outside.cleanup();
        }
    });
});
