/**
 * `npm run bench -- edits`: the edit corpus (share applied correctly on the
 * first call, edits applied in the wrong place, refusals) and the prepare +
 * diff time of a one-line change in a 20,000-line file next to a same-run
 * baseline (read the file and replace the string).
 */
import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEditAfterAnchorTool } from "../src/tools/edit-after-anchor";
import { createEditReplaceExactTool } from "../src/tools/edit-replace-exact";
import type { AnyToolDefinition, PreparedWrite, ToolContext } from "../src/tools/types";
import type { EditCase } from "./fixtures/edits/corpus";
import { buildCorpus } from "./fixtures/edits/corpus";
import { fileText } from "./fixtures/edits/sources";
import { median } from "./measure";
import { inputSchema } from "../src/tools/tool-input";

type Verdict = "correct" | "wrong_place" | "other_bytes" | "refused_ok" | "refused";

interface Outcome {
    verdict: Verdict;
    detail: string;
}

const TOOLS: Record<EditCase["tool"], AnyToolDefinition> = {
    edit_replace_exact: createEditReplaceExactTool(),
    edit_after_anchor: createEditAfterAnchorTool(),
};

/** 1-based range of lines where `after` differs from `before`. */
function changedLines(before: string, after: string): [number, number] {
    const a = before.split("\n");
    const b = after.split("\n");
    let start = 0;
    while (start < a.length && start < b.length && a[start] === b[start]) start++;
    let endA = a.length - 1;
    let endB = b.length - 1;
    while (endA > start && endB > start && a[endA] === b[endB]) {
        endA--;
        endB--;
    }
    return [start + 1, Math.max(start + 1, endA + 1)];
}

async function runCase(root: string, c: EditCase, ctx: ToolContext): Promise<Outcome> {
    const file = path.join(root, c.file.path);
    const original = fileText(c.file);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, original);
    const tool = TOOLS[c.tool];
    const parsed = inputSchema(tool.input).safeParse(c.input);
    if (!parsed.success) return { verdict: "refused", detail: "invalid input" };
    const prepared = await tool.execute(parsed.data, ctx);
    if (!prepared.ok) {
        if (c.expected === null) return { verdict: "refused_ok", detail: prepared.error.code };
        return {
            verdict: "refused",
            detail: `${prepared.error.code}: ${prepared.error.message.split("\n")[0]}`,
        };
    }
    const applied = await (prepared.data as PreparedWrite).apply();
    if (!applied.ok) return { verdict: "refused", detail: `apply: ${applied.error.message}` };
    const after = await fs.readFile(file, "utf8");
    if (c.expected === null)
        return { verdict: "wrong_place", detail: "applied although the text is ambiguous" };
    if (after === c.expected) return { verdict: "correct", detail: "" };
    const [from, to] = changedLines(original, after);
    const [t0, t1] = c.target ?? [0, 0];
    const inside = from >= t0 && to <= t1 + 1;
    return {
        verdict: inside ? "other_bytes" : "wrong_place",
        detail: `changed lines ${from}-${to}, target ${t0}-${t1}`,
    };
}

function pct(part: number, whole: number): string {
    return whole === 0 ? "n/a" : `${((part / whole) * 100).toFixed(1)}%`;
}

async function benchCorpus(root: string): Promise<void> {
    const cases = buildCorpus();
    const ctx: ToolContext = { repoRoot: root, signal: new AbortController().signal };
    const outcomes: Array<{ c: EditCase; o: Outcome }> = [];
    for (const c of cases) outcomes.push({ c, o: await runCase(root, c, ctx) });

    const count = (v: Verdict) => outcomes.filter((x) => x.o.verdict === v).length;
    const applicable = outcomes.filter((x) => x.c.expected !== null).length;
    const ambiguous = cases.length - applicable;
    const languages = [...new Set(cases.map((c) => c.file.language))].join(", ");
    const files = new Set(cases.map((c) => c.file.path)).size;
    console.log(`\n## Edit corpus: ${cases.length} calls over ${files} files (${languages})`);
    const row = (label: string, value: string, note = "") =>
        console.log(`${label.padEnd(52)}${value.padStart(14)}  ${note}`);
    row(
        "applied correctly on the first call",
        `${count("correct")}/${applicable}`,
        `${pct(count("correct"), applicable)} (target ≥ 95%)`
    );
    row("applied in the wrong place", `${count("wrong_place")}`, "(target 0)");
    row("applied in the right place, other bytes", `${count("other_bytes")}`);
    row("refused, as expected (ambiguous text)", `${count("refused_ok")}/${ambiguous}`);
    row("refused, although one place was meant", `${count("refused")}/${applicable}`);

    console.log("\nby kind (correct or rightly refused / calls):");
    const kinds = [...new Set(cases.map((c) => c.kind))].sort();
    for (const kind of kinds) {
        const of = outcomes.filter((x) => x.c.kind === kind);
        const good = of.filter(
            (x) => x.o.verdict === "correct" || x.o.verdict === "refused_ok"
        ).length;
        console.log(`  ${kind.padEnd(30)}${`${good}/${of.length}`.padStart(8)}`);
    }
    const misses = outcomes.filter(
        (x) => x.o.verdict !== "correct" && x.o.verdict !== "refused_ok"
    );
    if (misses.length > 0) {
        console.log("\nmisses:");
        for (const { c, o } of misses.slice(0, 20)) {
            console.log(`  #${c.id} ${c.kind} ${c.file.path}: ${o.verdict} — ${o.detail}`);
        }
    }
}

function bigFile(): string {
    const lines: string[] = [];
    for (let i = 0; lines.length < 20_000; i++) {
        lines.push(
            `export function handler${i}(input: Request, limit = ${i % 97}): Response {`,
            `    const parsed = parseRequest(input, "route-${i}");`,
            `    if (parsed.size > limit) return tooLarge(parsed, ${i});`,
            `    return respond(parsed, { id: ${i}, cache: "${i % 7 === 0 ? "no-store" : "default"}" });`,
            "}",
            ""
        );
    }
    return lines.slice(0, 20_000).join("\n") + "\n";
}

async function timeIt(runs: number, once: () => Promise<void>): Promise<number> {
    for (let i = 0; i < 5; i++) await once();
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
        const started = performance.now();
        await once();
        samples.push(performance.now() - started);
    }
    return median(samples);
}

async function benchBigFile(root: string): Promise<void> {
    const file = path.join(root, "big.ts");
    const content = bigFile();
    await fs.writeFile(file, content);
    const oldText = "    if (parsed.size > limit) return tooLarge(parsed, 2345);";
    const newText = "    if (parsed.size >= limit) return tooLarge(parsed, 2345);";
    const tool = createEditReplaceExactTool();
    const ctx: ToolContext = { repoRoot: root, signal: new AbortController().signal };
    const input = { path: "big.ts", old_text: oldText, new_text: newText };
    const runs = Number(process.env.BENCH_RUNS ?? 15) * 2 + 1;

    const baseline = await timeIt(runs, async () => {
        const text = await fs.readFile(file, "utf8");
        if (text.replace(oldText, newText) === text) throw new Error("baseline found nothing");
    });
    const prepare = await timeIt(runs, async () => {
        const result = await tool.execute(input, ctx);
        if (!result.ok) throw new Error(result.error.message);
    });
    const full = await timeIt(runs, async () => {
        await fs.writeFile(file, content);
        const result = await tool.execute(input, ctx);
        if (!result.ok) throw new Error(result.error.message);
        const applied = await (result.data as PreparedWrite).apply();
        if (!applied.ok) throw new Error(applied.error.message);
    });
    const rewrite = await timeIt(runs, () => fs.writeFile(file, content));
    // The same file with CRLF endings and a two-line LF search: the line-ending tolerance path.
    await fs.writeFile(path.join(root, "big-crlf.ts"), content.replace(/\n/g, "\r\n"));
    const crlfInput = {
        path: "big-crlf.ts",
        old_text: `export function handler2345(input: Request, limit = ${2345 % 97}): Response {\n    const parsed`,
        new_text: `export function handler2345(input: Request, limit = 1): Response {\n    const parsed`,
    };
    const tolerant = await timeIt(runs, async () => {
        const result = await tool.execute(crlfInput, ctx);
        if (!result.ok) throw new Error(result.error.message);
    });

    console.log(
        `\n## One-line change in a 20,000-line file (${(content.length / 1024).toFixed(0)} KB), median of ${runs}`
    );
    const row = (label: string, ms: number) =>
        console.log(
            `${label.padEnd(52)}${`${ms.toFixed(2)} ms`.padStart(12)}${`${(ms / baseline).toFixed(2)}×`.padStart(10)}`
        );
    row("baseline: readFile + String.replace", baseline);
    row("edit_replace_exact prepare + diff (target ≤ 30 ms)", prepare);
    row("reset file + prepare + diff + atomic apply (fsync)", full);
    row("(reset file alone: writeFile)", rewrite);
    row("prepare + diff, LF search in the CRLF copy (tolerant)", tolerant);
}

export async function benchEdits(): Promise<void> {
    const root = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "north-bench-edits-")));
    try {
        await benchCorpus(root);
        await benchBigFile(root);
    } finally {
        await fs.rm(root, { recursive: true, force: true });
    }
}
