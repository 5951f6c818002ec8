/**
 * `npm run bench -- echo`: what a user feels while typing in the chat, in a
 * real pty read by a headless terminal (test/kit/pty.ts), keys typed 150–250 ms
 * apart:
 *
 * - keystroke to echo while an answer streams at ~180 tokens/s (target median
 *   ≤ 8 ms, p90 ≤ 15 ms) and at idle (median ≤ 5 ms);
 * - the same while streaming with 2,000 transcript entries (a resumed log)
 *   against 10 (target ≤ 1.2×);
 * - CPU of the North process over 10 s at idle (utime + stime from
 *   /proc/PID/stat, after the first frame settled; target 0) and the bytes it
 *   writes meanwhile.
 *
 * BENCH_BASELINE=<another build's bin/north.js> measures that build in the same
 * run and prints the two side by side; BENCH_ECHO_ROUNDS (default 2) alternates
 * the builds that many times and pools their samples, so both see the same
 * machine load. BENCH_ECHO_KEYS sets the keys per figure and round (default 40).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PtyNorth, spawnNorthPty } from "../test/kit/pty";
import { startPacedLlmServer, type PacedLlmServer } from "../test/kit/paced-llm-server";
import { median } from "./measure";
import { launch, makeFixture, writeConversation } from "./tui";

const KEYS = Number(process.env.BENCH_ECHO_KEYS ?? 40);
const ROUNDS = Number(process.env.BENCH_ECHO_ROUNDS ?? 2);
const IDLE_CPU_MS = 10_000;
const COLS = 120;
const ROWS = 40;
/** ~180 tokens/s: one token per event, 5.5 ms apart. */
const TOKEN_DELAY_MS = 5.5;
/** Long enough to outlast the keys typed during it (≈ KEYS × 250 ms at 180/s), with margin. */
const STREAM_TOKENS = Math.ceil(KEYS * 0.25 * 180 * 1.6) + 500;

interface Latency {
    median: number;
    p90: number;
}

interface BuildSamples {
    idleEcho: number[];
    streamEcho: number[];
    streamEcho2000: number[];
    idleCpuMs: number[];
    idleLaterCpuMs: number[];
    idleBytes: number[];
}

interface BuildFigures {
    idleEcho: Latency;
    streamEcho: Latency;
    streamEcho2000: Latency;
    /** Median over the rounds. */
    idleCpuMs: number;
    idleLaterCpuMs: number;
    idleBytes: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: number[], fraction: number): number {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

/** utime + stime of `pid` in milliseconds (Linux). */
function cpuMs(pid: number): number {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start at field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    // Linux reports in USER_HZ, 100 per second on every common build.
    return ticks * 10;
}

/**
 * Types `KEYS` letters into the composer 150–250 ms apart and times each from
 * the write to the screen showing it. The composer's text is unique ("Zq…"),
 * so the streaming answer never matches it.
 */
async function echoes(north: PtyNorth, clear = true): Promise<number[]> {
    const alphabet = "qwxzjkvbpy";
    let typed = "Zq";
    north.type(typed);
    await north.waitForText(typed);
    const samples: number[] = [];
    for (let i = 0; i < KEYS; i++) {
        await sleep(150 + Math.random() * 100);
        const next = typed + alphabet[i % alphabet.length];
        const started = performance.now();
        north.type(next.slice(-1));
        await north.waitForText(next, 10_000);
        samples.push(performance.now() - started);
        typed = next;
    }
    if (!clear) return samples;
    // Leave the composer empty for the next figure.
    north.type("\x7f".repeat(typed.length));
    await north.waitFor(() => !north.screenText().includes("Zq"), 10_000, "the composer cleared");
    return samples;
}

function latency(samples: number[]): Latency {
    return { median: median(samples), p90: percentile(samples, 0.9) };
}

/** Starts a paced answer, waits for it to be on screen, measures echoes, and lets it end. */
async function echoWhileStreaming(north: PtyNorth, server: PacedLlmServer): Promise<number[]> {
    const tokens = Array.from({ length: STREAM_TOKENS }, (_, i) =>
        i % 40 === 39 ? `word${i + 1}.\n\n` : `word${i + 1} `
    );
    server.enqueue({ text: tokens, eventDelayMs: TOKEN_DELAY_MS });
    north.type("stream a long answer\r");
    await north.waitForText("word20 ", 30_000);
    const samples = await echoes(north);
    const stillStreaming = !north.screenText().includes(`word${STREAM_TOKENS}`);
    if (!stillStreaming) console.log("  (the answer ended before the last key)");
    // Interrupt what is left, so the next figure starts idle.
    north.type("\x1b");
    await north.waitForQuiet(500, 30_000);
    return samples;
}

/** The harness's own floor: keys echoed by a program that draws nothing else. */
const RAW_ECHO_SCRIPT =
    'process.stdin.setRawMode(true);process.stdin.resume();process.stdout.write("ready> ");' +
    "process.stdin.on('data',(d)=>{if(d.includes(3))process.exit(0);process.stdout.write(d)});";

async function floorEchoes(): Promise<number[]> {
    const dir = mkdtempSync(join(tmpdir(), "north-bench-echo-floor-"));
    const script = join(dir, "raw-echo.mjs");
    writeFileSync(script, RAW_ECHO_SCRIPT);
    const program = spawnNorthPty({ bin: script, cols: COLS, rows: ROWS, cwd: dir, env: {} });
    try {
        await program.waitForText("ready>", 10_000);
        // One round: the echoed text stays on its line, so a second "Zq…" would match the first.
        return await echoes(program, false);
    } finally {
        program.kill();
        rmSync(dir, { recursive: true, force: true });
    }
}

/**
 * CPU over two idle windows one after the other, from 1 s after the first frame
 * settled. V8's memory reducer runs one GC about 8 s after start
 * (`--gc-memory-reducer-start-delay-ms`), which lands in the first window; the
 * second shows whether anything of North's own ticks.
 */
async function idleCpu(
    north: PtyNorth
): Promise<{ cpuMs: number; laterCpuMs: number; bytes: number }> {
    await north.waitForQuiet(1_000, 30_000);
    const cpuBefore = cpuMs(north.pid);
    const bytesBefore = north.bytesWritten();
    await sleep(IDLE_CPU_MS);
    const cpuMiddle = cpuMs(north.pid);
    await sleep(IDLE_CPU_MS);
    return {
        cpuMs: cpuMiddle - cpuBefore,
        laterCpuMs: cpuMs(north.pid) - cpuMiddle,
        bytes: north.bytesWritten() - bytesBefore,
    };
}

async function measureBuild(
    bin: string | undefined,
    server: PacedLlmServer,
    into: BuildSamples
): Promise<void> {
    const fixture = makeFixture(server.anthropicBaseUrl);
    try {
        const { north } = await launch(fixture, [], { bin, cols: COLS, rows: ROWS });
        try {
            const idle = await idleCpu(north);
            into.idleCpuMs.push(idle.cpuMs);
            into.idleLaterCpuMs.push(idle.laterCpuMs);
            into.idleBytes.push(idle.bytes);
            into.idleEcho.push(...(await echoes(north)));
            into.streamEcho.push(...(await echoWhileStreaming(north, server)));
        } finally {
            north.kill();
        }
        const id = writeConversation(fixture, 2000);
        const { north: large } = await launch(fixture, ["--resume", id], {
            bin,
            cols: COLS,
            rows: ROWS,
        });
        try {
            await large.waitForText("reply 999:", 30_000);
            await large.waitForQuiet(500, 30_000);
            into.streamEcho2000.push(...(await echoWhileStreaming(large, server)));
        } finally {
            large.kill();
        }
    } finally {
        rmSync(fixture.repo, { recursive: true, force: true });
        rmSync(fixture.home, { recursive: true, force: true });
    }
}

const ms = (value: number): string => `${value.toFixed(1)} ms`;
const both = (l: Latency): string => `${ms(l.median)} / ${ms(l.p90)}`;
const verdict = (ok: boolean): string => (ok ? "ok" : "OVER TARGET");

function printFigures(label: string, f: BuildFigures): void {
    const ratio = f.streamEcho2000.median / f.streamEcho.median;
    console.log(`\n${label}`);
    console.log(
        `  echo while streaming, median / p90   ${both(f.streamEcho).padEnd(20)} target ≤ 8 / ≤ 15 ms: ${verdict(f.streamEcho.median <= 8 && f.streamEcho.p90 <= 15)}`
    );
    console.log(
        `  echo at idle, median / p90           ${both(f.idleEcho).padEnd(20)} target ≤ 5 ms: ${verdict(f.idleEcho.median <= 5)}`
    );
    console.log(
        `  echo streaming at 2,000 entries      ${both(f.streamEcho2000).padEnd(20)} ${ratio.toFixed(2)}× the 10-entry echo, target ≤ 1.2×: ${verdict(ratio <= 1.2)}`
    );
    console.log(
        `  CPU over ${IDLE_CPU_MS / 1000} s at idle               ${ms(f.idleCpuMs).padEnd(20)} target 0: ${verdict(f.idleCpuMs === 0)}; ${f.idleBytes} B written over ${(2 * IDLE_CPU_MS) / 1000} s (medians of the rounds)\n` +
            `  CPU over the next ${IDLE_CPU_MS / 1000} s               ${ms(f.idleLaterCpuMs).padEnd(20)} target 0: ${verdict(f.idleLaterCpuMs === 0)} (the first window holds V8's one memory-reducer GC, ~8 s after start)`
    );
}

export async function benchEcho(): Promise<void> {
    const baseline = process.env.BENCH_BASELINE;
    const server = await startPacedLlmServer();
    try {
        console.log(
            `\n## Keystroke echo in a ${COLS}×${ROWS} pty (${KEYS * ROUNDS} keys per figure in ${ROUNDS} rounds, 150–250 ms apart; ` +
                `stream ~${Math.round(1000 / TOKEN_DELAY_MS)} tokens/s)`
        );
        const empty = (): BuildSamples => ({
            idleEcho: [],
            streamEcho: [],
            streamEcho2000: [],
            idleCpuMs: [],
            idleLaterCpuMs: [],
            idleBytes: [],
        });
        const baseSamples = empty();
        const ownSamples = empty();
        for (let round = 0; round < ROUNDS; round++) {
            if (baseline) await measureBuild(baseline, server, baseSamples);
            await measureBuild(undefined, server, ownSamples);
        }
        const figures = (s: BuildSamples): BuildFigures => ({
            idleEcho: latency(s.idleEcho),
            streamEcho: latency(s.streamEcho),
            streamEcho2000: latency(s.streamEcho2000),
            idleCpuMs: median(s.idleCpuMs),
            idleLaterCpuMs: median(s.idleLaterCpuMs),
            idleBytes: median(s.idleBytes),
        });
        const floor = latency(await floorEchoes());
        console.log(
            `\nfloor: a bare node program echoing raw keys in the same pty and emulator: median ${floor.median.toFixed(1)} ms, p90 ${floor.p90.toFixed(1)} ms`
        );
        const base = baseline ? figures(baseSamples) : undefined;
        const own = figures(ownSamples);
        if (base) printFigures(`baseline build (${baseline})`, base);
        printFigures("this build", own);
        if (base) {
            const r = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;
            console.log(
                `\nthis build / baseline: echo while streaming ${r(own.streamEcho.median, base.streamEcho.median)} (median), ` +
                    `${r(own.streamEcho.p90, base.streamEcho.p90)} (p90); at idle ${r(own.idleEcho.median, base.idleEcho.median)}; ` +
                    `at 2,000 entries ${r(own.streamEcho2000.median, base.streamEcho2000.median)}`
            );
        }
    } finally {
        await server.close();
    }
}
