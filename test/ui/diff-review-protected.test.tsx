import { stripVTControlCharacters } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { editStandingOptions } from "../../src/agent/approval-requirement";
import type { FileDiff } from "../../src/tools/types";
import { DiffReview } from "../../src/ui/reviews/diff-review";
import { renderToFakeTerminal } from "./ink-harness";

const diff: FileDiff = {
    path: ".mcp.json",
    diff: '--- a/.mcp.json\n+++ b/.mcp.json\n@@ -1 +1 @@\n-{}\n+{"mcpServers":{}}\n',
    linesAdded: 1,
    linesRemoved: 1,
    isNewFile: false,
};

const mounted: { unmount(): void }[] = [];
afterEach(() => {
    for (const m of mounted.splice(0)) m.unmount();
});

function frameOf(protectedPaths?: string[], height?: number): string {
    const r = renderToFakeTerminal(
        <DiffReview
            summary="Editing .mcp.json"
            diffs={[diff]}
            status="pending"
            width={100}
            protectedPaths={protectedPaths}
            standingOptions={editStandingOptions((protectedPaths ?? []).length > 0)}
            height={height}
        />,
        { columns: 100, rows: 30 }
    );
    mounted.push(r.instance);
    return stripVTControlCharacters(r.lastFrame());
}

describe("the write review of protected configuration", () => {
    it("says the file is protected and always reviewed", () => {
        const frame = frameOf([".mcp.json"]);
        expect(frame).toContain("⚠ protected: .mcp.json");
        expect(frame).toContain("can run commands or grant approvals; always asked");
        expect(frame).toContain('+{"mcpServers":{}}');
    });

    it("shows no note for an ordinary file", () => {
        expect(frameOf(undefined)).not.toContain("protected");
    });

    it("takes the note's row from the diff's rows, so the review keeps its height", () => {
        // The menu of a protected edit has no standing option: one row fewer than an ordinary one's.
        const plain = frameOf(undefined, 11);
        const guarded = frameOf([".mcp.json"], 10);
        expect(plain.split("\n").length).toBe(11);
        expect(guarded.split("\n").length).toBe(10);
        expect(plain).not.toContain("rows 1–");
        expect(guarded).not.toContain("accept all edits");
        // The rest is reached by scrolling.
        expect(guarded).toContain("rows 1–2 of 4");
    });
});
