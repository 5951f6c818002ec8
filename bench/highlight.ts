/**
 * `npm run bench -- highlight`: what colour costs the chat's renderer, in
 * process, median of RUNS, each beside its plain baseline of the same run:
 *
 * - a 1,000-line TypeScript block drawn as Markdown, highlighted (```ts) vs
 *   plain (a fence no grammar knows);
 * - a 500-line edit review (250 removed/added pairs) with syntax colour and
 *   word marks vs the rows coloured by kind only;
 * - the grammars' load (import and registration), once, and the chunk's size.
 *
 * Every run draws a text not seen before, so no memo of a streaming block helps.
 */
import { readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createAnsi } from "../src/ui/render/ansi";
import { diffRows, wrapDiffRows } from "../src/ui/render/diff-rows";
import { loadHighlighter } from "../src/ui/render/highlight";
import { loadMarkdown, renderMarkdown } from "../src/ui/render/markdown";
import type { FileDiff } from "../src/tools/types";
import { median } from "./measure";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const WIDTH = 100;

/** Varied TypeScript: declarations, calls, strings, comments, nesting. */
function tsLines(count: number, run: number): string[] {
    const shapes = [
        (i: number) =>
            `export function handler${i}(request: Request, retries = ${i % 7}): Promise<void> {`,
        (i: number) => `    const message = \`attempt \${retries} of ${i}\`; // retry ${run}`,
        (i: number) =>
            `    if (request.headers.get("x-id-${i}") === null) return Promise.resolve();`,
        (i: number) =>
            `    await sleep(${i * 10}); /* back off */ logger.info(message, { run: ${run} });`,
        () => "}",
    ];
    return Array.from({ length: count }, (_, i) => shapes[i % shapes.length]!(i));
}

function timeMs(work: () => void): number {
    const start = performance.now();
    work();
    return performance.now() - start;
}

function row(label: string, ms: number, baseline: number): void {
    console.log(
        `${label.padEnd(52)}${`${ms.toFixed(2)} ms`.padStart(12)}${`${(ms / baseline).toFixed(2)}×`.padStart(10)}`
    );
}

function chunkKb(): string {
    const dir = fileURLToPath(new URL("../dist/chunks/", import.meta.url));
    try {
        const file = readdirSync(dir).find((name) => /^highlight-engine-.*\.js$/.test(name));
        return file
            ? `${(statSync(`${dir}${file}`).size / 1024).toFixed(0)} KB`
            : "n/a (not built)";
    } catch {
        return "n/a (not built)";
    }
}

export async function benchHighlight(): Promise<void> {
    const ansi = createAnsi(true);
    await loadMarkdown();
    const loadStart = performance.now();
    await loadHighlighter();
    const grammarsMs = performance.now() - loadStart;

    // Code block: highlighted vs plain, interleaved so load falls on both alike.
    const blockPlain: number[] = [];
    const blockLit: number[] = [];
    for (let run = -1; run < RUNS; run++) {
        const code = tsLines(1000, run).join("\n");
        const plain = timeMs(() =>
            renderMarkdown(`\`\`\`text-plain\n${code}\n\`\`\``, WIDTH, ansi)
        );
        const lit = timeMs(() => renderMarkdown(`\`\`\`ts\n${code}\n\`\`\``, WIDTH, ansi));
        // The first run warms the JIT.
        if (run < 0) continue;
        blockPlain.push(plain);
        blockLit.push(lit);
    }

    // A 500-line review: 250 pairs of a changed line.
    const reviewPlain: number[] = [];
    const reviewLit: number[] = [];
    for (let run = -1; run < RUNS; run++) {
        const before = tsLines(250, run);
        const body = before.flatMap((line, i) => [
            `-${line}`,
            `+${line.replace(/\d+/, String(i + 1000))}`,
        ]);
        const diff: FileDiff = {
            path: "src/handler.ts",
            isNewFile: false,
            linesAdded: 250,
            linesRemoved: 250,
            diff: [
                "--- src/handler.ts",
                "+++ src/handler.ts",
                "@@ -1,250 +1,250 @@",
                ...body,
                "",
            ].join("\n"),
        };
        const plain = timeMs(() => wrapDiffRows(diffRows([diff]).rows, WIDTH));
        const lit = timeMs(() => wrapDiffRows(diffRows([diff], Infinity, ansi).rows, WIDTH, ansi));
        if (run < 0) continue;
        reviewPlain.push(plain);
        reviewLit.push(lit);
    }

    const bp = median(blockPlain);
    const bl = median(blockLit);
    const rp = median(reviewPlain);
    const rl = median(reviewLit);
    console.log(`\n## highlight (median of ${RUNS}, ${WIDTH} columns)`);
    console.log(`${"".padEnd(52)}${"render".padStart(12)}${"× plain".padStart(10)}`);
    row("1,000-line ts block, plain (unknown fence)", bp, bp);
    row("1,000-line ts block, highlighted", bl, bp);
    row("500-line edit review, rows by kind", rp, rp);
    row("500-line edit review, syntax + word marks", rl, rp);
    console.log(
        `cost per 1,000 lines: code block ${(bl - bp).toFixed(2)} ms, review ${((rl - rp) * 2).toFixed(2)} ms`
    );
    console.log(
        `grammars' load (import + registration, from source under tsx): ${grammarsMs.toFixed(1)} ms; built chunk ${chunkKb()}`
    );
}
