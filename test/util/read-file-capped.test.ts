import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileCapped } from "../../src/util/read-file-capped";

let dir: string;
beforeAll(async () => {
    dir = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "north-capped-")));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

async function file(name: string, content: string): Promise<string> {
    const at = path.join(dir, name);
    await fs.writeFile(at, content);
    return at;
}

describe("readFileCapped", () => {
    it("reads a file under the cap whole", async () => {
        const read = readFileCapped(await file("small.md", "hello\n"), 100);
        expect(read).toMatchObject({ size: 6, truncated: false });
        expect(read.bytes.toString("utf8")).toBe("hello\n");
    });

    it("reads a file of exactly the cap whole, without calling it cut", async () => {
        const read = readFileCapped(await file("exact.md", "abcd"), 4);
        expect(read).toMatchObject({ size: 4, truncated: false });
        expect(read.bytes.toString("utf8")).toBe("abcd");
    });

    it("stops at the cap and reports the whole file's size", async () => {
        const read = readFileCapped(await file("big.md", "x".repeat(5000)), 1000);
        expect(read.bytes.length).toBe(1000);
        expect(read).toMatchObject({ size: 5000, truncated: true });
    });

    it("returns the raw bytes even when the cap cuts a character", async () => {
        const read = readFileCapped(await file("cut.md", "aé"), 2);
        expect([...read.bytes]).toEqual([0x61, 0xc3]);
        expect(read).toMatchObject({ size: 3, truncated: true });
    });

    it("throws for a missing file (callers turn that into a warning)", () => {
        expect(() => readFileCapped(path.join(dir, "missing.md"), 10)).toThrow(/ENOENT/);
    });
});
