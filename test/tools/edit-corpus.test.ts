import { describe, expect, it } from "vitest";
import type { CaseResult } from "../kit/edit-corpus";
import { buildCases, figures, loadHunks, runCases } from "../kit/edit-corpus";

/**
 * Per-category byte-exact floor (issue 33); every category reaches 100 % today,
 * so a category under 200 calls may miss none.
 */
const FLOOR = 99.5;

describe("edit corpus from real history", () => {
    it("applies real hunks byte-exact by the rule, never in the wrong place, and refuses every ambiguous or too-short search", async () => {
        const hunks = loadHunks();
        expect(hunks.length).toBeGreaterThanOrEqual(250);
        const cases = buildCases(hunks);
        const categories = new Set(cases.map((c) => c.category));
        for (const wanted of [
            "exact",
            "trailing-ws-added",
            "file-trailing-ws",
            "dedented-one-level",
            "indent-stripped",
            "indented-one-level-more",
            "crlf-sent-to-lf-file",
            "tabs-to-spaces",
            "tabs-to-two-spaces",
            "spaces-to-tabs",
            "tabs-to-spaces+trailing-ws",
            "tabs-to-spaces+dedented",
            "crlf-file",
            "curly-quotes-dashes",
            "ambiguous",
            "whole-line-once-part-elsewhere",
            "whole-line-once-part-elsewhere/anchor",
            "short-or-whitespace",
            "short-or-whitespace/anchor",
        ]) {
            expect(categories).toContain(wanted);
        }
        // Where the call is the real change, the rule's post-image is the real one.
        const real = (c: (typeof cases)[number]) =>
            c.hunk.pre.slice(0, c.hunk.start) +
            c.hunk.new +
            c.hunk.pre.slice(c.hunk.start + c.hunk.old.length);
        const exact = cases.filter((c) => c.category === "exact");
        expect(exact.filter((c) => c.expected !== real(c)).map((c) => c.hunk.id)).toEqual([]);
        const results = await runCases(cases);
        const wrong = (r: CaseResult) => `${r.c.category} ${r.c.hunk.id}: ${r.detail}`;
        expect(results.filter((r) => r.verdict === "wrong_place").map(wrong)).toEqual([]);
        expect(results.filter((r) => r.outside > 0).map(wrong)).toEqual([]);
        for (const f of figures(results)) {
            if (f.mustRefuse) expect(f.exactPct, f.category).toBe(100);
            else expect(f.exactPct, f.category).toBeGreaterThanOrEqual(FLOOR);
        }
        // Must-refuse calls are refused as ambiguous, with the candidates listed.
        const refusals = results.filter((r) => r.c.expected === null);
        expect(refusals.filter((r) => !r.detail.includes("matches")).map(wrong)).toEqual([]);
    }, 180_000);
});
