/**
 * `npm run bench -- edit-corpus`: real hunks from real history sent to
 * edit_replace_exact as models send them (test/kit/edit-corpus.ts), per
 * category: byte-exact share, edits in the wrong place, bytes changed outside
 * the edited lines, and for calls that must be refused (ambiguous text, a whole
 * line once and part of longer lines elsewhere, short or whitespace-only text,
 * as old_text and as an anchor) the share refused.
 */
import { buildCases, figures, loadHunks, runCases } from "../test/kit/edit-corpus";

export async function benchEditCorpus(): Promise<void> {
    const hunks = loadHunks();
    const cases = buildCases(hunks);
    const started = performance.now();
    const results = await runCases(cases);
    const ms = performance.now() - started;
    const sources = new Set(hunks.map((h) => h.id.split(":")[0])).size;
    console.log(
        `\n## Edit corpus: ${hunks.length} real hunks from ${sources} sources, ${cases.length} calls (${ms.toFixed(0)} ms)`
    );
    console.log(
        `${"category".padEnd(40)}${"calls".padStart(7)}${"byte-exact".padStart(16)}${"wrong place".padStart(13)}${"bytes outside".padStart(15)}${"refused".padStart(9)}`
    );
    for (const f of figures(results)) {
        const share = f.mustRefuse
            ? `${f.exactPct.toFixed(1)}% refused`
            : `${f.exactPct.toFixed(1)}%`;
        console.log(
            `${f.category.padEnd(40)}${String(f.cases).padStart(7)}${share.padStart(16)}${String(f.wrongPlace).padStart(13)}${String(f.outsideBytes).padStart(15)}${String(f.refused).padStart(9)}`
        );
    }
    console.log(
        "targets: ≥ 99.5% byte-exact per category, 0 wrong place, 0 bytes outside, 100% of must-refuse calls refused"
    );
    const misses = results.filter((r) => r.verdict !== "exact");
    if (misses.length > 0) {
        console.log("\nmisses:");
        for (const r of misses.slice(0, 60)) {
            console.log(`  ${r.c.category} ${r.c.hunk.id}: ${r.verdict} — ${r.detail}`);
        }
    }
}
