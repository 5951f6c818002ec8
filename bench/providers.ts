/**
 * `npm run bench -- providers`: the 20,000-token stream and the 4-turn
 * session through `north -p` on every provider path in bench/paths/ (each
 * against its own instant fake), interleaved with the Anthropic path in the
 * same run, so each path's ratio to Anthropic is North's own overhead for
 * that wire (target ≤ 1.3×). BENCH_PATHS=openai,bedrock picks paths (the
 * Anthropic path always runs); BENCH_RUNS sets the runs per figure.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { FakeTurn } from "../test/kit/fake-llm-server";
import type { BenchPath, RunningBenchPath } from "./bench-path";
import { type ProcessSample, interleavedSeries, printTable, runOnce } from "./measure";
import { SESSION_PROMPT, fourTurnSession, makeRepo, stream20kTurns } from "./session-scripts";

const NORTH = fileURLToPath(new URL("../bin/north.js", import.meta.url));
const PATHS_DIR = fileURLToPath(new URL("./paths/", import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const REFERENCE = "anthropic";
const TARGET_RATIO = 1.3;

interface Scenario {
    title: string;
    turns: () => FakeTurn[];
    args: string[];
    /** Text every run's stdout must hold: the whole answer arrived. */
    expect: string;
}

const SCENARIOS: Scenario[] = [
    {
        title: "20,000-token answer, one token per event, text mode",
        turns: stream20kTurns,
        args: [],
        expect: "tok19999",
    },
    {
        title: "4-turn read session (3 tools), JSON output",
        turns: fourTurnSession,
        args: ["--output-format", "json"],
        expect: "The retry logic lives in src/retry.ts",
    },
];

/** Every path in bench/paths/, the reference first; BENCH_PATHS narrows the others. */
async function loadPaths(): Promise<BenchPath[]> {
    const files = readdirSync(PATHS_DIR)
        .filter((file) => file.endsWith(".ts"))
        .sort();
    const paths: BenchPath[] = [];
    for (const file of files) {
        const loaded = (await import(pathToFileURL(join(PATHS_DIR, file)).href)) as {
            default?: BenchPath;
        };
        const path = loaded.default;
        if (!path || typeof path.name !== "string" || typeof path.start !== "function")
            throw new Error(`bench/paths/${file} does not default-export { name, start() }`);
        paths.push(path);
    }
    const wanted = process.env.BENCH_PATHS?.split(",").map((name) => name.trim());
    const chosen = paths.filter(
        (path) => path.name === REFERENCE || !wanted || wanted.includes(path.name)
    );
    const unknown = wanted?.filter((name) => !paths.some((path) => path.name === name)) ?? [];
    if (unknown.length > 0)
        throw new Error(
            `BENCH_PATHS names no path: ${unknown.join(", ")}; bench/paths has ${paths.map((p) => p.name).join(", ")}`
        );
    const reference = chosen.find((path) => path.name === REFERENCE);
    if (!reference) throw new Error(`bench/paths has no "${REFERENCE}" path to compare with`);
    return [reference, ...chosen.filter((path) => path !== reference)];
}

export async function benchProviders(): Promise<void> {
    const paths = await loadPaths();
    const repo = makeRepo();
    const running: Array<{ path: BenchPath; live: RunningBenchPath; home: string }> = [];
    try {
        for (const path of paths) {
            const home = mkdtempSync(join(tmpdir(), `north-bench-${path.name}-`));
            running.push({ path, live: await path.start(), home });
        }
        console.log(
            `\nprovider paths: ${running.map(({ path, live }) => `${path.name} (--model ${live.model})`).join(", ")}`
        );
        for (const scenario of SCENARIOS) {
            const entries = running.map(({ path, live, home }) => {
                const run = async (): Promise<ProcessSample> => {
                    for (const turn of scenario.turns()) live.enqueue(turn);
                    const sample = await runOnce(
                        process.execPath,
                        [
                            NORTH,
                            "-p",
                            SESSION_PROMPT,
                            "--path",
                            repo,
                            "--model",
                            live.model,
                            ...scenario.args,
                        ],
                        {
                            env: {
                                PATH: process.env.PATH,
                                HOME: home,
                                NORTH_CONFIG_DIR: join(home, "config"),
                                NORTH_DATA_DIR: join(home, "data"),
                                XDG_STATE_HOME: join(home, "state"),
                                ...live.env,
                            },
                        }
                    );
                    // A run that did not get the whole answer measures nothing.
                    if (sample.code === 0 && !sample.stdout.includes(scenario.expect))
                        return {
                            ...sample,
                            code: -1,
                            stderr: `the answer is incomplete\n${sample.stdout.slice(-500)}\n${sample.stderr}`,
                        };
                    return sample;
                };
                return { label: `north -p via ${path.name}`, make: run };
            });
            const rows = await interleavedSeries(entries, RUNS);
            printTable(
                `${scenario.title}: each provider path next to the Anthropic path (target ≤ ${TARGET_RATIO}×)`,
                rows,
                rows[0]!
            );
            for (const row of rows.slice(1)) {
                const ratio = row.wallMs / rows[0]!.wallMs;
                console.log(
                    `  ${row.label}: ${ratio.toFixed(2)}× the Anthropic path${ratio <= TARGET_RATIO ? "" : `, OVER the ${TARGET_RATIO}× target`}`
                );
            }
        }
    } finally {
        for (const { live, home } of running) {
            await live.close();
            rmSync(home, { recursive: true, force: true });
        }
        rmSync(repo, { recursive: true, force: true });
    }
}
