import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRegularFileSync } from "../../src/util/read-regular-file";

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

describe("readRegularFileSync with a cap", () => {
    it("reads a file under the cap whole", async () => {
        const read = readRegularFileSync(await file("small.md", "hello\n"), { cap: 100 });
        expect(read).toMatchObject({ size: 6, truncated: false });
        expect(read.bytes.toString("utf8")).toBe("hello\n");
    });

    it("reads a file of exactly the cap whole, without calling it cut", async () => {
        const read = readRegularFileSync(await file("exact.md", "abcd"), { cap: 4 });
        expect(read).toMatchObject({ size: 4, truncated: false });
        expect(read.bytes.toString("utf8")).toBe("abcd");
    });

    it("stops at the cap and reports the whole file's size", async () => {
        const read = readRegularFileSync(await file("big.md", "x".repeat(5000)), { cap: 1000 });
        expect(read.bytes.length).toBe(1000);
        expect(read).toMatchObject({ size: 5000, truncated: true });
    });

    it("returns the raw bytes even when the cap cuts a character", async () => {
        const read = readRegularFileSync(await file("cut.md", "aé"), { cap: 2 });
        expect([...read.bytes]).toEqual([0x61, 0xc3]);
        expect(read).toMatchObject({ size: 3, truncated: true });
    });

    it("throws for a missing file (callers turn that into a warning)", () => {
        expect(() => readRegularFileSync(path.join(dir, "missing.md"), { cap: 10 })).toThrow(
            /ENOENT/
        );
    });
});
