/**
 * Output in bounded memory and disk (issue 35, part 2 and a bad input): the
 * ring keeps the latest bytes at any chunk size, the spill file keeps the
 * latest output under its cap, and a process printing 1 GB leaves a full
 * ring, a spill file within its cap and the right byte count.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { OutputRing } from "../../../src/tools/processes/output-ring";
import { SpillFile } from "../../../src/tools/processes/spill-file";
import { disposeKits, makeKit, until } from "./kit";

afterEach(disposeKits);

describe("the output ring", () => {
    it("holds the latest bytes and tells a reader what it missed, whatever the chunk sizes", () => {
        const ring = new OutputRing(10);
        let all = "";
        for (const chunk of ["abc", "defgh", "ijklmnopqrstuvw", "x", "yz0123456789AB"]) {
            ring.push(Buffer.from(chunk));
            all += chunk;
            expect(ring.since(ring.start).bytes.toString()).toBe(all.slice(-10));
        }
        expect(ring.total).toBe(all.length);
        const read = ring.since(5);
        expect(read.dropped).toBe(all.length - 10 - 5);
        expect(read.bytes.toString()).toBe(all.slice(-10));
        expect(ring.since(all.length - 3).bytes.toString()).toBe("9AB");
        expect(ring.since(all.length)).toEqual({ bytes: Buffer.alloc(0), dropped: 0 });
    });
});

describe("the spill file", () => {
    it("keeps the latest output under its cap, 0600", () => {
        const dir = mkdtempSync(path.join(tmpdir(), "north-spill-"));
        try {
            const spill = new SpillFile(path.join(dir, "sub", "p1.log"), 100);
            let all = "";
            for (let i = 0; i < 60; i++) {
                const line = `line ${i}\n`;
                spill.append(Buffer.from(line));
                all += line;
                expect(spill.size).toBeLessThanOrEqual(100);
            }
            const text = readFileSync(spill.filePath, "utf8");
            expect(text.length).toBe(spill.size);
            expect(all.endsWith(text)).toBe(true);
            expect(text.length).toBeGreaterThanOrEqual(50);
            expect(statSync(spill.filePath).mode & 0o777).toBe(0o600);
            spill.append(Buffer.alloc(500, "z"));
            expect(readFileSync(spill.filePath, "utf8")).toBe("z".repeat(100));
            spill.remove();
            expect(() => statSync(spill.filePath)).toThrow();
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});

describe("a spill folder that cannot be made", () => {
    it("costs the spill file only: the process runs, its ring is read, and the clean-up does not throw", async () => {
        const blocker = path.join(mkdtempSync(path.join(tmpdir(), "north-spill-")), "a-file");
        writeFileSync(blocker, "");
        const { shell } = await makeKit({
            spillDir: path.join(blocker, "spill"),
            processLimits: { ringBytes: 64 },
        });
        const started = await shell.start("seq 1 200; sleep 100", { origin: "call-1" });
        await until(() =>
            expect(shell.processes.read(started.process.id, { mode: "tail", lines: 1 }).text).toBe(
                "200"
            )
        );
        expect(() => shell.dispose()).not.toThrow();
        rmSync(path.dirname(blocker), { recursive: true, force: true });
    });
});

describe("a process printing 1 GB", () => {
    it("keeps memory to its ring and disk to the spill cap", { timeout: 300_000 }, async () => {
        const spillCap = 8 * 1024 * 1024;
        const { shell } = await makeKit({ processLimits: { spillCapBytes: spillCap } });
        const gigabyte = 1024 * 1024 * 1024;
        await shell.start(
            `yes 'a line of output to fill the ring and the spill file' | head -c ${gigabyte}`,
            {
                origin: "call-1",
            }
        );
        const table = shell.processes;
        const end = await table.wait(
            "p1",
            { until: "exit", timeoutMs: 280_000 },
            new AbortController().signal
        );
        expect(end.outcome).toBe("exited");
        expect(end.process.outputBytes).toBe(gigabyte);
        // The model's "new" read is bounded; the rest is counted, not shown.
        expect(Buffer.byteLength(end.text)).toBeLessThanOrEqual(32 * 1024);
        expect(end.droppedBytes).toBeGreaterThan(gigabyte - 300 * 1024);
        const held = (
            table as unknown as {
                process(id: string): { held(): { ringBytes: number; spillBytes: number } };
            }
        )
            .process("p1")
            .held();
        expect(held.ringBytes).toBe(256 * 1024);
        expect(held.spillBytes).toBeLessThanOrEqual(spillCap);
        const onDisk = statSync(end.process.spillPath!).size;
        expect(onDisk).toBeLessThanOrEqual(spillCap);
        expect(onDisk).toBeGreaterThanOrEqual(spillCap / 2);
        expect(table.read("p1", { mode: "tail", lines: 1 }).text).toMatch(/^a line of output/);
    });
});
