import { applyPatch } from "diff";
import { describe, expect, it } from "vitest";
import { computeFileDiff } from "../../src/tools/editing/diff";

/** Small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

async function roundTrip(oldText: string, newText: string): Promise<void> {
    const diff = await computeFileDiff("f.txt", oldText, newText);
    expect(applyPatch(oldText, diff.diff)).toBe(newText);
}

describe("computeFileDiff", () => {
    it("produces a patch that turns old into new, for random edits", async () => {
        const rand = random(7);
        const words = ["alpha", "beta", "", "gamma", "}", "{", "return x;"];
        for (let round = 0; round < 300; round++) {
            const count = 1 + Math.floor(rand() * 40);
            const lines = Array.from(
                { length: count },
                () => words[Math.floor(rand() * words.length)]!
            );
            const oldText = lines.join("\n") + (rand() < 0.3 ? "" : "\n");
            const edited = [...lines];
            const edits = 1 + Math.floor(rand() * 3);
            for (let e = 0; e < edits; e++) {
                const at = Math.floor(rand() * (edited.length + 1));
                const op = rand();
                if (op < 0.33) edited.splice(at, 0, `new ${round}-${e}`);
                else if (op < 0.66) edited.splice(at, 1);
                else edited.splice(at, 1, `changed ${round}-${e}`);
            }
            const newText = edited.join("\n") + (rand() < 0.3 ? "" : "\n");
            if (newText === oldText) continue;
            await roundTrip(oldText, newText);
        }
    });

    it("numbers hunks by file line and counts changes", async () => {
        const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`);
        const oldText = lines.join("\n") + "\n";
        const newText = oldText.replace("line 50\n", "line fifty\nline 50.5\n");
        const diff = await computeFileDiff("a.txt", oldText, newText);
        expect(diff.diff).toBe(
            [
                "--- a/a.txt",
                "+++ b/a.txt",
                "@@ -47,7 +47,8 @@",
                " line 47",
                " line 48",
                " line 49",
                "-line 50",
                "+line fifty",
                "+line 50.5",
                " line 51",
                " line 52",
                " line 53",
                "",
            ].join("\n")
        );
        expect([diff.linesAdded, diff.linesRemoved]).toEqual([2, 1]);
    });

    it("handles edits at the edges, no final newline and CRLF", async () => {
        await roundTrip("a\nb\nc\n", "z\nb\nc\n");
        await roundTrip("a\nb\nc\n", "a\nb\nc\nd\n");
        await roundTrip("a\nb\nc", "a\nb\nc\nd");
        await roundTrip("a\nb\nc", "a\nb\nc\n");
        await roundTrip("", "a\n");
        await roundTrip("a\n", "");
        await roundTrip("\n\nx\n", "\nx\n");
        const crlf = await computeFileDiff("c.txt", "a\r\nb\r\n", "a\r\nB\r\n");
        expect(crlf.diff).toContain("-b\n+B\n");
    });

    it("shows a new file as all added", async () => {
        const diff = await computeFileDiff("n.ts", null, "one\ntwo\n");
        expect(diff).toMatchObject({ isNewFile: true, linesAdded: 2, linesRemoved: 0 });
        expect(diff.diff).toBe("--- /dev/null\n+++ b/n.ts\n@@ -0,0 +1,2 @@\n+one\n+two\n");
        expect(applyPatch("", diff.diff)).toBe("one\ntwo\n");
    });

    it("diffs a one-line change in a 20,000-line file without quadratic work", async () => {
        const lines = Array.from(
            { length: 20_000 },
            (_, i) => `    const v${i} = compute(${i}); // line`
        );
        const oldText = lines.join("\n") + "\n";
        const newText = oldText.replace(
            "const v12345 = compute(12345);",
            "const v12345 = compute(0);"
        );
        const started = performance.now();
        const diff = await computeFileDiff("big.ts", oldText, newText);
        expect(performance.now() - started).toBeLessThan(2_000);
        expect(diff.diff).toContain("@@ -12343,7 +12343,7 @@");
    });
});
