/**
 * `npm run bench -- NAME` (or no NAME for all). Every figure is a median and
 * is printed next to a baseline measured in the same run on the same machine.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { type FakeTurn, startFakeLlmServer } from "../test/kit/fake-llm-server";
import { interleavedSeries, northEnv, printTable, runOnce, series } from "./measure";
import { SESSION_PROMPT, fourTurnSession, makeRepo, stream20kTurns } from "./session-scripts";

const NORTH = fileURLToPath(new URL("../bin/north.js", import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 15);

/**
 * `north --version` next to `node -e 0` and, with BENCH_BASELINE set to
 * another build's bin/north.js (the build before a change), next to that
 * build, all interleaved (target: this build ≤ 1.05× the baseline build).
 */
async function benchVersion(): Promise<void> {
    const other = process.env.BENCH_BASELINE;
    const rows = await interleavedSeries(
        [
            { label: "node -e 0", make: () => runOnce(process.execPath, ["-e", "0"]) },
            ...(other
                ? [
                      {
                          label: "north --version (baseline build)",
                          make: () => runOnce(process.execPath, [other, "--version"]),
                      },
                  ]
                : []),
            {
                label: "north --version",
                make: () => runOnce(process.execPath, [NORTH, "--version"]),
            },
        ],
        RUNS * 2
    );
    printTable("north --version (target ≤ 1.3× node -e 0)", rows, rows[0]!);
    if (other) {
        const ratio = rows[2]!.wallMs / rows[1]!.wallMs;
        console.log(
            `this build / baseline build: ${ratio.toFixed(3)}× (target ≤ 1.05×)  (${other})`
        );
    }
}

/** A bare Node baseline (bench/bare-*.ts) bundled to plain JS, so node runs it without tsx. */
function bundleBare(name: string, dir: string): string {
    const out = join(dir, `${name}.mjs`);
    buildSync({
        entryPoints: [fileURLToPath(new URL(`./${name}.ts`, import.meta.url))],
        outfile: out,
        bundle: true,
        format: "esm",
        platform: "node",
        target: "node20",
        logLevel: "error",
    });
    return out;
}

/**
 * Runs a scripted print-mode session `RUNS` times against an instant fake
 * server, interleaved with its bare Node limit (`bare`, sent North's own
 * first request) and `node -e 0`; ratios are against the bare limit.
 */
async function benchSession(
    title: string,
    label: string,
    turns: () => FakeTurn[],
    args: string[],
    bare: "bare-stream" | "bare-agent"
): Promise<void> {
    const server = await startFakeLlmServer();
    const repo = makeRepo();
    const home = mkdtempSync(join(tmpdir(), "north-bench-home-"));
    try {
        const session = (bin: string) => () => {
            server.enqueue(...turns());
            return runOnce(process.execPath, [bin, "-p", SESSION_PROMPT, "--path", repo, ...args], {
                env: northEnv(server.anthropicBaseUrl, home),
            });
        };
        // The bare client sends exactly what North sends first.
        const before = server.requests.length;
        const first = await session(NORTH)();
        if (first.code !== 0) throw new Error(`${label}: exit ${first.code}\n${first.stderr}`);
        const requestFile = join(home, "first-request.json");
        writeFileSync(requestFile, JSON.stringify(server.requests[before]!.body));
        const bareScript = bundleBare(bare, home);
        const bareRun = () => {
            server.enqueue(...turns());
            return runOnce(process.execPath, [bareScript, requestFile, repo], {
                env: { PATH: process.env.PATH, BARE_BASE_URL: server.url },
            });
        };
        // BENCH_BASELINE: another build's bin/north.js, run in turn with this one (A/B).
        const other = process.env.BENCH_BASELINE;
        const rows = await interleavedSeries(
            [
                { label: "node -e 0", make: () => runOnce(process.execPath, ["-e", "0"]) },
                { label: `${bare} (the limit)`, make: bareRun },
                ...(other ? [{ label: `${label} (baseline build)`, make: session(other) }] : []),
                { label, make: session(NORTH) },
            ],
            RUNS
        );
        printTable(title, rows, rows[1]!);
    } finally {
        await server.close();
        rmSync(repo, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
    }
}

function toolTurns(count: number): FakeTurn[] {
    const turns: FakeTurn[] = [];
    for (let i = 0; i < count; i++) {
        turns.push({
            toolCalls: [
                {
                    name: "read_file",
                    input: { path: "src/retry.ts", range: { start: i * 10 + 1, end: i * 10 + 10 } },
                },
            ],
        });
    }
    turns.push({ text: "Done." });
    return turns;
}

async function benchTools20(): Promise<void> {
    const server = await startFakeLlmServer();
    const repo = makeRepo();
    const home = mkdtempSync(join(tmpdir(), "north-bench-home-"));
    try {
        const run = (turns: FakeTurn[]) => () => {
            server.enqueue(...turns);
            return runOnce(
                process.execPath,
                [NORTH, "-p", "read it", "--path", repo, "--output-format", "json"],
                {
                    env: northEnv(server.anthropicBaseUrl, home),
                }
            );
        };
        const baseline = await series("node -e 0", RUNS, () =>
            runOnce(process.execPath, ["-e", "0"])
        );
        const one = await series("north -p: 1 turn, no tools", RUNS, run([{ text: "Done." }]));
        const twenty = await series("north -p: 20 tool turns + answer", RUNS, run(toolTurns(20)));
        printTable(
            "20-tool-turn session (overhead target ≤ 300 ms)",
            [baseline, one, twenty],
            baseline
        );
        console.log(
            `North overhead of 20 tool turns: ${(twenty.wallMs - one.wallMs).toFixed(1)} ms over a 1-turn session; ` +
                `${(twenty.wallMs - baseline.wallMs).toFixed(1)} ms over bare node in total`
        );
    } finally {
        await server.close();
        rmSync(repo, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
    }
}

async function benchSearchTree(): Promise<void> {
    const { benchSearch } = await import("./search");
    await benchSearch();
}

const BENCHES: Record<string, () => Promise<void>> = {
    version: benchVersion,
    session4: () =>
        benchSession(
            "4-turn read session (target ≤ 1.2× a bare Node agent)",
            "north -p: 4 turns (3 tools)",
            fourTurnSession,
            ["--output-format", "json"],
            "bare-agent"
        ),
    stream20k: () =>
        benchSession(
            "20,000-token answer, one token per event, text mode (target ≤ 1.3× a bare consumer, RSS ≤ 90 MB)",
            "north -p: 20k-token stream",
            stream20kTurns,
            [],
            "bare-stream"
        ),
    tools20: benchTools20,
    search: benchSearchTree,
    context: async () => (await import("./context")).benchContext(),
    "output-style": async () => (await import("./output-style")).benchOutputStyle(),
    shell: async () => (await import("./shell")).benchShell(),
    sandbox: async () => (await import("./sandbox")).benchSandbox(),
    processes: async () => (await import("./processes")).benchProcesses(),
    edits: async () => (await import("./edits")).benchEdits(),
    "edit-corpus": async () => (await import("./edit-corpus")).benchEditCorpus(),
    "lsp-diagnostics": async () => (await import("./lsp-diagnostics")).benchLspDiagnostics(),
    navigation: async () => (await import("./navigation")).benchNavigation(),
    prompt: async () => (await import("./prompt-size")).benchPromptSize(),
    subagents: async () => (await import("./subagents")).benchSubagents(),
    review: async () => (await import("./review")).benchReview(),
    tui: async () => (await import("./tui")).benchTui(),
    highlight: async () => (await import("./highlight")).benchHighlight(),
    echo: async () => (await import("./echo")).benchEcho(),
    launch: async () => (await import("./launch")).benchLaunch(),
    startup: async () => (await import("./print-startup")).benchPrintStartup(),
    plugins: async () => (await import("./plugins")).benchPlugins(),
    project: async () => (await import("./project")).benchProject(),
    sessions: async () => (await import("./sessions")).benchSessions(),
    northfile: async () => (await import("./north-file")).benchNorthFile(),
    hostile: async () => (await import("./hostile")).benchHostile(),
    checkpoints: async () => (await import("./checkpoints")).benchCheckpoints(),
    resume: async () => (await import("./resume")).benchResume(),
    symbols: async () => (await import("./symbols")).benchSymbols(),
    permissions: async () => (await import("./permissions")).benchPermissions(),
    install: async () => (await import("./install")).benchInstall(),
    "pty-latency": async () => (await import("./pty-latency")).benchPtyLatency(),
    acp: async () => (await import("./acp")).benchAcp(),
    soak: async () => (await import("./soak")).benchSoak(),
    providers: async () => (await import("./providers")).benchProviders(),
    attempts: async () => (await import("./attempts")).benchAttempts(),
};

const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? wanted : Object.keys(BENCHES);
for (const name of names) {
    const bench = BENCHES[name];
    if (!bench) {
        console.error(`unknown bench "${name}"; choose from: ${Object.keys(BENCHES).join(", ")}`);
        process.exit(2);
    }
    await bench();
}
