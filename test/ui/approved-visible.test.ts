import { beforeAll, describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../../src/agent/approvals";
import type { FileDiff } from "../../src/tools/types";
import { resolvedReviewOf } from "../../src/ui/approval-bridge";
import { createAnsi } from "../../src/ui/render/ansi";
import { diffRows, keepDiffs } from "../../src/ui/render/diff-rows";
import { renderEntry } from "../../src/ui/render/entry-lines";
import { loadMarkdown } from "../../src/ui/render/markdown";
import { storedHistoryActions } from "../../src/ui/transcript/history";
import type { TranscriptAction } from "../../src/ui/transcript/reducer";
import type { Entry, ReviewEntry } from "../../src/ui/transcript/types";
import { ev, plain, reduce, runResult } from "./helpers";

beforeAll(() => loadMarkdown());

const PLAIN = createAnsi(false);

function newFile(path: string, lines: number): FileDiff {
    const body = Array.from({ length: lines }, (_, i) => `+line ${i + 1}`);
    return {
        path,
        diff: [`--- /dev/null`, `+++ b/${path}`, `@@ -0,0 +1,${lines} @@`, ...body, ""].join("\n"),
        linesAdded: lines,
        linesRemoved: 0,
        isNewFile: true,
    };
}

function writeRequest(diffs: FileDiff[]): ApprovalRequest {
    return {
        id: "w1",
        kind: "write",
        toolName: "edit_create_file",
        toolCallId: "c1",
        input: {},
        summary: `Creating ${diffs[0]!.path}`,
        diffs,
    };
}

const planRequest: ApprovalRequest = {
    id: "p1",
    kind: "plan",
    toolName: "propose_plan",
    toolCallId: "c2",
    input: {},
    summary: "# Plan",
    plan: "# Plan\n\n1. First step\n2. Second step",
};

const start = ev({
    type: "run_start",
    sessionId: "s",
    model: "m",
    mode: "plan",
    tools: [],
    cwd: "/r",
});

const reviewOf = (review: ReturnType<typeof resolvedReviewOf>): TranscriptAction => ({
    type: "review",
    review,
});

const lines = (entry: Entry, width = 60) => renderEntry(entry, width, PLAIN).lines.map(plain);

describe("what an accepted edit keeps", () => {
    it("keeps the diff of an accepted or always edit, not of a rejected or cancelled one", () => {
        const request = writeRequest([newFile("a.ts", 3)]);
        expect(resolvedReviewOf(request, { outcome: "approve" }).diffs).toHaveLength(1);
        expect(
            resolvedReviewOf(request, { outcome: "approve", remember: "all" }).diffs
        ).toHaveLength(1);
        expect(resolvedReviewOf(request, { outcome: "deny" }).diffs).toBeUndefined();
        expect(
            resolvedReviewOf(request, { outcome: "deny", reason: "cancelled by the user" }).diffs
        ).toBeUndefined();
    });

    it("bounds what it keeps and counts what it left out", () => {
        const kept = keepDiffs([newFile("a.ts", 300), newFile("b.ts", 300)], 400);
        const rows = diffRows(kept);
        // 400 body lines in all: a.ts whole (its hunk header and 300 lines), 99 of b.ts's 301.
        expect(rows.rows.filter((r) => r.kind !== "file")).toHaveLength(400);
        expect(rows.hidden).toBe(202);
        expect(kept[1]!.linesAdded).toBe(300); // the stats stay whole
        const long = keepDiffs([
            { ...newFile("c.ts", 1), diff: `@@ -0,0 +1 @@\n+${"x".repeat(5000)}\n` },
        ]);
        expect(long[0]!.diff.length).toBeLessThan(700);
        expect(long[0]!.diff).toContain("x…");
    });

    it("reads a kept diff exactly as the original, even one removing a '---' line", () => {
        const tricky: FileDiff = {
            path: "doc.md",
            diff: "--- a/doc.md\n+++ b/doc.md\n@@ -1,2 +1,2 @@\n--- title\n+++ title\n",
            linesAdded: 1,
            linesRemoved: 1,
            isNewFile: false,
        };
        const texts = (d: FileDiff[]) => diffRows(d).rows.map((r) => r.gutter + r.text);
        expect(texts(keepDiffs([tricky]))).toEqual(texts([tricky]));
        expect(texts([tricky])).toContain("1   --- title");
    });
});

describe("an accepted edit in the transcript", () => {
    const accepted = reviewOf(
        resolvedReviewOf(writeRequest([newFile("big.ts", 20)]), { outcome: "approve" })
    );

    it("shows a few numbered lines and how many more below, and the expand action shows them all and hides them again", () => {
        let state = reduce([{ type: "user", text: "go" }, accepted]);
        const entry = state.entries[1] as ReviewEntry;
        expect(lines(entry)).toEqual([
            "✓ Accepted: Creating big.ts (+20 −0)",
            "   1 +line 1",
            "   2 +line 2",
            "   3 +line 3",
            "   4 +line 4",
            "  … 17 more lines below · Ctrl+O transcript",
        ]);
        state = reduce([{ type: "toggle_expand" }], state);
        const open = lines(state.entries[1]!);
        expect(open).toContain("  20 +line 20");
        expect(open.at(-1)).toBe("  20 +line 20");
        expect(open).toHaveLength(1 + 21); // summary, hunk header and 20 lines
        state = reduce([{ type: "toggle_expand" }], state);
        expect(lines(state.entries[1]!)).toHaveLength(6);
    });

    it("the expand action acts on the latest one only; each folded one names the transcript key", () => {
        const second = reviewOf(
            resolvedReviewOf(writeRequest([newFile("two.ts", 10)]), { outcome: "approve" })
        );
        let state = reduce([accepted, { type: "notice", level: "info", text: "x" }, second]);
        expect(lines(state.entries[0]!).at(-1)).toBe("  … 17 more lines below · Ctrl+O transcript");
        expect(lines(state.entries[2]!).at(-1)).toBe("  … 7 more lines below · Ctrl+O transcript");
        state = reduce([{ type: "toggle_expand" }], state);
        expect((state.entries[0] as ReviewEntry).expanded).toBe(false);
        expect((state.entries[2] as ReviewEntry).expanded).toBe(true);
    });

    it("Ctrl+O with nothing to expand changes nothing", () => {
        const state = reduce([{ type: "user", text: "hi" }]);
        expect(reduce([{ type: "toggle_expand" }], state)).toBe(state);
    });

    it("a one-line review stays one line", () => {
        const state = reduce([
            reviewOf(resolvedReviewOf(writeRequest([newFile("a.ts", 2)]), { outcome: "deny" })),
        ]);
        expect(lines(state.entries[0]!)).toEqual(["✗ Rejected: Creating a.ts (+2 −0)"]);
    });

    it("wraps long lines under themselves instead of cutting them", () => {
        const long = newFile("w.ts", 1);
        long.diff = `--- a\n+++ b\n@@ -0,0 +1 @@\n+${"word ".repeat(30)}END\n`;
        const state = reduce([
            reviewOf(resolvedReviewOf(writeRequest([long]), { outcome: "approve" })),
            { type: "toggle_expand" },
        ]);
        const shown = lines(state.entries[0]!, 40);
        for (const line of shown) expect(line.length).toBeLessThanOrEqual(40);
        expect(shown.join("\n")).toContain("END");
    });
});

describe("an accepted plan in the transcript", () => {
    const accept = reviewOf(resolvedReviewOf(planRequest, { outcome: "approve" }));
    const reject = reviewOf(
        resolvedReviewOf(planRequest, { outcome: "deny", reason: "smaller steps" })
    );

    it("is shown whole, and pinned until the request ends", () => {
        let state = reduce([{ type: "user", text: "plan it" }, start, accept]);
        const shown = lines(state.entries[1]!);
        expect(shown[0]).toBe("✓ Accepted: plan: # Plan");
        expect(shown).toContain("  1. First step");
        expect(shown).toContain("  2. Second step");
        expect(state.activePlan).toBe(planRequest.plan);
        state = reduce([ev({ type: "run_end", result: runResult("success") })], state);
        expect(state.activePlan).toBeNull();
        expect(lines(state.entries[1]!)).toContain("  2. Second step");
    });

    it("a rejected plan is one line, with its text in the transcript view", () => {
        let state = reduce([start, reject]);
        expect(lines(state.entries[0]!)).toEqual([
            "✗ Rejected: plan: # Plan (feedback: smaller steps)",
            "  … the plan (4 lines) · Ctrl+O transcript",
        ]);
        expect(state.activePlan).toBeNull();
        state = reduce([{ type: "toggle_expand" }], state);
        expect(lines(state.entries[0]!)).toContain("  1. First step");
    });

    it("is not pinned when a resumed conversation replays it", () => {
        const history = storedHistoryActions({
            messages: [],
            messagesBeforeView: 0,
            view: [
                { type: "user", text: "plan it", attachments: [] },
                start,
                accept,
            ] as unknown as Record<string, unknown>[],
        });
        const state = reduce(history);
        expect(state.activePlan).toBeNull();
        expect(lines(state.entries[1]!)).toContain("  2. Second step");
    });
});
