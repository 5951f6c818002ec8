/**
 * `npm run bench -- launch`: chat launch to composer visible, this build
 * next to bare node in the same pty, and — with BENCH_BASELINE set to another
 * checkout's bin/north.js (e.g. the commit before a change) — next to that
 * build, runs interleaved so both see the same machine load. BENCH_NODE=lts
 * runs North and bare node on a current Node LTS (scripts/lts-node.mjs) and
 * adds North with Node's module compile cache turned off.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAppReady, spawnNorthPty } from "../test/kit/pty";
import { startPacedLlmServer } from "../test/kit/paced-llm-server";
import { median } from "./measure";
import { bareNodeLaunch, makeFixture } from "./tui";
import { ltsNodeBinary } from "../scripts/lts-node.mjs";

const RUNS = Number(process.env.BENCH_LAUNCH_RUNS ?? 15);
const COLS = 100;
const ROWS = 30;

/** One chat launch to the composer and status line, in ms (the pty killed after). */
export async function launchMs(
    bin: string | undefined,
    fixture: ReturnType<typeof makeFixture>,
    node?: string,
    extraEnv: NodeJS.ProcessEnv = {}
) {
    const started = performance.now();
    const north = spawnNorthPty({
        args: ["--path", fixture.repo],
        env: { ...fixture.env, ...extraEnv },
        node,
        cwd: fixture.repo,
        cols: COLS,
        rows: ROWS,
        bin,
    });
    try {
        await north.waitFor(
            () => north.hasExited() || isAppReady(north),
            30_000,
            "the composer and status line"
        );
        if (north.hasExited()) throw new Error(`north exited early:\n${north.screenText()}`);
        return performance.now() - started;
    } finally {
        north.kill();
    }
}

export async function benchLaunch(): Promise<void> {
    const baseline = process.env.BENCH_BASELINE;
    const node = process.env.BENCH_NODE === "lts" ? ltsNodeBinary() : undefined;
    const uncached = { NODE_DISABLE_COMPILE_CACHE: "1" };
    const server = await startPacedLlmServer();
    const fixture = makeFixture(server.anthropicBaseUrl);
    // BENCH_LAUNCH_FULL_CONFIG=1: a user config with providers, models and permission rules
    // (keys the zod-free start-up check does not cover), as a local-model user has.
    if (process.env.BENCH_LAUNCH_FULL_CONFIG === "1") {
        mkdirSync(join(fixture.home, "config"), { recursive: true });
        writeFileSync(
            join(fixture.home, "config", "config.json"),
            JSON.stringify({
                providers: {
                    ollama: { api: "openai-chat", baseUrl: "http://127.0.0.1:11434/v1" },
                },
                models: [{ alias: "qwen", id: "qwen2.5-coder", provider: "ollama" }],
                permissions: { allow: ["Bash(npm test:*)"], deny: ["Read(./.env)"] },
            })
        );
    }
    const samples = {
        bare: [] as number[],
        north: [] as number[],
        uncached: [] as number[],
        baseline: [] as number[],
    };
    try {
        // One warm-up of each fills the disk cache (and North's compile cache).
        await launchMs(undefined, fixture, node);
        if (baseline) await launchMs(baseline, fixture, node);
        for (let i = 0; i < RUNS; i++) {
            samples.bare.push(await bareNodeLaunch(node));
            samples.north.push(await launchMs(undefined, fixture, node));
            if (node) samples.uncached.push(await launchMs(undefined, fixture, node, uncached));
            if (baseline) samples.baseline.push(await launchMs(baseline, fixture, node));
        }
    } finally {
        await server.close();
        rmSync(fixture.repo, { recursive: true, force: true });
        rmSync(fixture.home, { recursive: true, force: true });
    }
    const bare = median(samples.bare);
    const north = median(samples.north);
    console.log(
        `\nchat launch to composer visible (median of ${RUNS}, ${COLS}×${ROWS} pty, node ${node ?? process.execPath})`
    );
    console.log(`  bare node in a pty   ${bare.toFixed(1)} ms`);
    console.log(
        `  north (this build)   ${north.toFixed(1)} ms  ${(north / bare).toFixed(2)}× bare node`
    );
    if (node) {
        const off = median(samples.uncached);
        console.log(
            `  north, no compile cache ${off.toFixed(1)} ms  ${(off / bare).toFixed(2)}× bare node; cache saves ${(off - north).toFixed(1)} ms`
        );
    }
    if (baseline) {
        const base = median(samples.baseline);
        console.log(
            `  baseline build       ${base.toFixed(1)} ms  ${(base / bare).toFixed(2)}× bare node  (${baseline})`
        );
        console.log(`  this build / baseline: ${(north / base).toFixed(3)}×`);
    }
}
