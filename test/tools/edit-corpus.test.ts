import { describe, expect, it } from "vitest";
import type { CaseResult } from "../kit/edit-corpus";
import { buildCases, figures, loadHunks, runCases } from "../kit/edit-corpus";

/** Per-category byte-exact floor (issue 17). */
const FLOOR = 99;

describe("edit corpus from real history", () => {
    it("applies real hunks byte-exact, never in the wrong place, and refuses ambiguous text", async () => {
        const cases = buildCases(loadHunks());
        const categories = new Set(cases.map((c) => c.category));
        for (const wanted of [
            "exact",
            "trailing-ws-added",
            "dedented-one-level",
            "indent-stripped",
            "tabs-to-spaces",
            "crlf-file",
            "curly-quotes-dashes",
            "ambiguous",
        ]) {
            expect(categories).toContain(wanted);
        }
        const results = await runCases(cases);
        const wrong = (r: CaseResult) => `${r.c.category} ${r.c.hunk.id}: ${r.detail}`;
        expect(results.filter((r) => r.verdict === "wrong_place").map(wrong)).toEqual([]);
        expect(results.filter((r) => r.outside > 0).map(wrong)).toEqual([]);
        for (const f of figures(results)) {
            if (f.category === "ambiguous") expect(f.exactPct).toBe(100);
            else if (f.cases >= 10) expect(f.exactPct, f.category).toBeGreaterThanOrEqual(FLOOR);
        }
    }, 180_000);
});
