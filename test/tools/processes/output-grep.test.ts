/**
 * process_read's grep looks at all the output still kept: the spill file's
 * older lines as well as the ring's, newest matches first to stay, and the
 * result says when the spill file's rotation left the start unsearched.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createProcessReadTool } from "../../../src/tools/process-read";
import { OutputGrep } from "../../../src/tools/processes/output-grep";
import type { ToolContext } from "../../../src/tools/types";
import { disposeKits, makeKit } from "./kit";

afterEach(disposeKits);

const never = new AbortController().signal;
/** "line 1" ... "line 3000": about 26 KB. */
const PRINT_LINES = 'i=1; while [ $i -le 3000 ]; do echo "line $i"; i=$((i+1)); done';

function context(root: string): ToolContext {
    return { repoRoot: root, signal: never, toolCallId: "call-1" };
}

async function finished(ringBytes: number, spillCapBytes: number) {
    const kit = await makeKit({ processLimits: { ringBytes, spillCapBytes } });
    const started = await kit.shell.start(PRINT_LINES, { origin: "t1" });
    const ended = await kit.shell.processes.wait(
        started.process.id,
        { until: "exit", timeoutMs: 20_000 },
        never
    );
    expect(ended.outcome).toBe("exited");
    return { kit, id: started.process.id, read: createProcessReadTool(kit.shell) };
}

describe("process_read's grep", () => {
    it("finds lines that left the ring for the spill file, the newest when more match", async () => {
        // A 4 KB ring holds the last ~400 lines; a 1 MB spill file holds them all.
        const { kit, id, read } = await finished(4096, 1024 * 1024);
        const ctx = context(kit.repo.root);
        const early = await read.execute({ id, mode: "grep", pattern: "^line 1\\d$" }, ctx);
        if (!early.ok) throw new Error(early.error.message);
        expect(early.data.text.split("\n")).toEqual(
            Array.from({ length: 10 }, (_, i) => `line ${10 + i}`)
        );
        expect(early.data.droppedBytes).toBeUndefined();
        expect(early.data.note).toBeUndefined();
        const newest = await read.execute(
            { id, mode: "grep", pattern: "^line 1\\d\\d$", lines: 3 },
            ctx
        );
        expect(newest.ok && newest.data.text).toBe("line 197\nline 198\nline 199");
    });

    it("says when the spill file's rotation dropped the start, and searches the rest", async () => {
        // A 16 KB spill file keeps the latest 8-16 KB of the ~26 KB printed.
        const { kit, id, read } = await finished(4096, 16 * 1024);
        const info = kit.shell.processes.get(id)!;
        const kept = readFileSync(info.spillPath!, "utf8");
        const keptLines = kept.split("\n").slice(1, -1); // the first one is cut
        expect(keptLines.length).toBeGreaterThan(500); // more than the ring holds
        const result = await read.execute(
            { id, mode: "grep", pattern: "^line \\d+$", lines: 1000 },
            context(kit.repo.root)
        );
        if (!result.ok) throw new Error(result.error.message);
        expect(result.data.text.split("\n")).toEqual(keptLines.slice(-1000));
        expect(result.data.droppedBytes).toBe(info.outputBytes - Buffer.byteLength(kept));
        expect(result.data.note).toMatch(
            /^The first \d+ KB of output were no longer kept .*not searched\.$/
        );
        const gone = await read.execute(
            { id, mode: "grep", pattern: "^line 1$" },
            context(kit.repo.root)
        );
        expect(gone.ok && gone.data.text).toBe("");
    });

    it("matches lines split across chunks, tests an endless line in pieces, keeps the newest", () => {
        const grep = new OutputGrep(/^li|x/, 3, (line) => line, 8);
        const chunks = ["li", "ne 1\nline 2\nli", "ne 3\n", ...Array<string>(4).fill("xxxxx")];
        for (const chunk of [...chunks, "\nline 4"]) grep.feed(Buffer.from(chunk));
        // A line past 8 bytes is tested as far as it came, and memory does not grow with it;
        // of the six matches, the newest three stay.
        expect(grep.finish()).toEqual(["x".repeat(10), "x".repeat(10), "line 4"]);
        const fragment = new OutputGrep(/line/, 10, (line) => line, 64, { startsMidLine: true });
        fragment.feed(Buffer.from("ne 7\nline 8\n"));
        expect(fragment.finish()).toEqual(["line 8"]);
    });
});
