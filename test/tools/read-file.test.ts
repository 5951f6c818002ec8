import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_BYTES, createReadFileTool } from "../../src/tools/read-file";
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
