/**
 * The symbol corpus (test/tools/fixtures/symbol-corpus): get_file_symbols
 * against the languages' own parsers per language (recall and precision on
 * name, kind, start line ±1 and end line exact; targets ≥ 99.5 %),
 * find_code_block's innermost declaration (target ≥ 99 %), every symbol of the
 * largest files reachable by paging, and the time per file next to a plain
 * `split` of the same text (and, for TypeScript, the compiler's own parser).
 */
import ts from "typescript";
import { extractSymbols } from "../src/tools/structure/symbols";
import {
    type CorpusFile,
    loadCorpus,
    reachability,
    scoreInnermost,
    scoreSymbols,
} from "../test/tools/symbol-corpus";
import { median } from "./measure";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);

function timeMs(runs: number, work: () => unknown): number {
    work();
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
        const started = performance.now();
        work();
        times.push(performance.now() - started);
    }
    return median(times);
}

const pct = (n: number, d: number) => (d === 0 ? "n/a" : `${((100 * n) / d).toFixed(2)} %`);

export async function benchSymbols(): Promise<void> {
    const corpus = loadCorpus();
    console.log("\n## Symbol corpus: get_file_symbols against the languages' own parsers");
    console.log(
        `${"language".padEnd(12)}${"files".padStart(6)}${"lines".padStart(8)}${"symbols".padStart(9)}` +
            `${"recall".padStart(10)}${"precision".padStart(11)}${"innermost".padStart(11)}${"probes".padStart(8)}`
    );
    const languages: CorpusFile["language"][] = ["typescript", "python", "go", "rust"];
    for (const language of languages) {
        const files = corpus.filter((file) => file.language === language);
        let lines = 0;
        let expected = 0;
        let found = 0;
        let matched = 0;
        let probes = 0;
        let correct = 0;
        for (const file of files) {
            const s = scoreSymbols(file);
            const i = scoreInnermost(file);
            lines += file.lines.length;
            expected += s.expected;
            found += s.found;
            matched += s.matched;
            probes += i.probes;
            correct += i.correct;
        }
        console.log(
            `${language.padEnd(12)}${String(files.length).padStart(6)}${String(lines).padStart(8)}` +
                `${String(expected).padStart(9)}${pct(matched, expected).padStart(10)}` +
                `${pct(matched, found).padStart(11)}${pct(correct, probes).padStart(11)}${String(probes).padStart(8)}`
        );
    }

    console.log(
        "\n## Reachability: every symbol by paging get_file_symbols (startLine = nextLine)"
    );
    const largest = [...corpus].sort((a, b) => b.lines.length - a.lines.length).slice(0, 2);
    for (const file of largest) {
        const r = await reachability(file);
        console.log(
            `${file.fixture.padEnd(36)}${`${file.lines.length} lines`.padStart(13)}` +
                `${`${r.reached}/${r.total} symbols`.padStart(20)}${`${r.calls} call(s)`.padStart(12)}`
        );
    }

    console.log("\n## Time per file (median)");
    console.log(
        `${"file".padEnd(36)}${"lines".padStart(7)}${"split".padStart(10)}${"symbols".padStart(10)}` +
            `${"× split".padStart(9)}${"tsc parse".padStart(11)}`
    );
    for (const file of corpus) {
        const text = file.lines.join("\n");
        const split = timeMs(RUNS, () => text.split("\n"));
        const symbols = timeMs(RUNS, () => extractSymbols(text.split("\n"), file.parser));
        const tsc =
            file.language === "typescript"
                ? `${timeMs(RUNS, () =>
                      ts.createSourceFile(file.path, text, ts.ScriptTarget.Latest, true)
                  ).toFixed(2)} ms`
                : "";
        console.log(
            `${file.fixture.padEnd(36)}${String(file.lines.length).padStart(7)}` +
                `${`${split.toFixed(2)} ms`.padStart(10)}${`${symbols.toFixed(2)} ms`.padStart(10)}` +
                `${(symbols / split).toFixed(1).padStart(9)}${tsc.padStart(11)}`
        );
    }
}
