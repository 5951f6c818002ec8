/**
 * The shell-command judge (issue 19): the cost of the first judgement in a
 * fresh process (it loads the bash grammar), and the parse + judge cost per
 * command over the bypass corpus, next to a plain `split(" ")` and a
 * `JSON.parse` of the same strings measured in the same run.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { judgeCommand } from "../src/tools/permissions/command-judge";
import {
    BYPASS_CORPUS,
    CORPUS_CWD,
    CORPUS_RULES,
    corpusJudgeWrite,
} from "../test/tools/permissions/bypass-corpus";
import { median } from "./measure";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const COMMANDS = Object.values(BYPASS_CORPUS)
    .flat()
    .map(([command]) => command);

function percentile(values: number[], p: number): number {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Per-command times (ms) of `work` over the corpus, `rounds` times after one warm-up. */
async function perCommand(rounds: number, work: (command: string) => unknown): Promise<number[]> {
    for (const command of COMMANDS) await work(command);
    const times: number[] = [];
    for (let round = 0; round < rounds; round++) {
        for (const command of COMMANDS) {
            const started = performance.now();
            await work(command);
            times.push(performance.now() - started);
        }
    }
    return times;
}

/**
 * The first judgement in fresh processes, as the bundle in dist/ runs it: the
 * judge is bundled by esbuild the way scripts/build.mjs does, with the two
 * .wasm files beside it, and timed from inside each process.
 */
async function firstJudgementMs(): Promise<number[]> {
    const dir = mkdtempSync(join(tmpdir(), "north-bench-judge-"));
    try {
        const entry = join(dir, "entry.ts");
        const judgeModule = fileURLToPath(
            new URL("../src/tools/permissions/command-judge.ts", import.meta.url)
        );
        writeFileSync(
            entry,
            `const started = performance.now();
const { judgeCommand } = await import(${JSON.stringify(judgeModule)});
await judgeCommand("npm test && rm -rf /", { allow: ["npm test:*"], deny: ["rm:*"], ask: [] }, () => "allow");
process.stdout.write(String(performance.now() - started));
`
        );
        await build({
            entryPoints: [entry],
            outdir: join(dir, "dist"),
            bundle: true,
            splitting: true,
            format: "esm",
            platform: "node",
            target: "node20",
            chunkNames: "chunks/[name]-[hash]",
            banner: {
                js: 'import { createRequire as __northCreateRequire } from "node:module"; const require = __northCreateRequire(import.meta.url);',
            },
            logLevel: "warning",
        });
        const resolveFromRoot = createRequire(import.meta.url).resolve;
        copyFileSync(
            resolveFromRoot("web-tree-sitter/tree-sitter.wasm"),
            join(dir, "dist", "tree-sitter.wasm")
        );
        copyFileSync(
            resolveFromRoot("tree-sitter-bash/tree-sitter-bash.wasm"),
            join(dir, "dist", "tree-sitter-bash.wasm")
        );
        const samples: number[] = [];
        for (let i = 0; i < Math.max(5, Math.floor(RUNS / 2)); i++) {
            const child = spawnSync(process.execPath, [join(dir, "dist", "entry.js")], {
                encoding: "utf8",
            });
            if (child.status !== 0) throw new Error(`first judgement failed: ${child.stderr}`);
            samples.push(Number(child.stdout));
        }
        return samples;
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}

export async function benchPermissions(): Promise<void> {
    const first = await firstJudgementMs();
    const rounds = Math.max(3, Math.floor(RUNS / 3));
    const split = await perCommand(rounds, (command) => command.split(" "));
    const json = await perCommand(rounds, (command) => JSON.parse(JSON.stringify(command)));
    const judged = await perCommand(rounds, (command) =>
        judgeCommand(command, CORPUS_RULES, corpusJudgeWrite, { cwd: CORPUS_CWD })
    );
    const baseline = median(split);
    console.log(`\n## Shell-command judge (${COMMANDS.length} corpus commands × ${rounds} rounds)`);
    console.log(
        `${"".padEnd(44)}${"median".padStart(12)}${"p95".padStart(12)}${"× split".padStart(12)}`
    );
    const row = (label: string, times: number[]) =>
        console.log(
            `${label.padEnd(44)}${`${(median(times) * 1000).toFixed(1)} µs`.padStart(12)}${`${(percentile(times, 95) * 1000).toFixed(1)} µs`.padStart(12)}${(median(times) / baseline).toFixed(1).padStart(12)}`
        );
    row('command.split(" ") (baseline)', split);
    row("JSON.parse(JSON.stringify(command))", json);
    row("parse + judge (judgeCommand)", judged);
    console.log(
        `first judgement in a fresh process, bundled as in dist/ (loads the grammar): median ${median(first).toFixed(1)} ms, max ${Math.max(...first).toFixed(1)} ms over ${first.length} processes`
    );
}
