/**
 * MEMORY.md is rewritten whole (atomically, a link kept), so two North
 * processes saving notes at the same moment must not drop each other's.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";

let dir: string;
beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "north-memory-concurrent-"));
});
afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
});

const runWriter = (prefix: string, count: number): Promise<number | null> =>
    new Promise((resolve) => {
        const child = spawn(
            process.execPath,
            [
                "--import",
                "tsx",
                join(import.meta.dirname, "fixtures", "memory-writer.ts"),
                dir,
                prefix,
                String(count),
            ],
            { stdio: "inherit" }
        );
        child.on("close", resolve);
    });

it("two processes saving 60 notes each at once lose none", async () => {
    expect(await Promise.all([runWriter("a", 60), runWriter("b", 60)])).toEqual([0, 0]);
    const text = readFileSync(join(dir, "MEMORY.md"), "utf8");
    for (const prefix of ["a", "b"]) {
        for (let i = 0; i < 60; i++) expect(text).toContain(`${prefix} note ${i}\n`);
    }
}, 60_000);
