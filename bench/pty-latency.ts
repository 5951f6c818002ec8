/**
 * Key to screen for a tty background process: the time from sending a key
 * (what `process_send` does) to the first read (what `process_read` returns)
 * whose screen shows the program's redraw for it; median and p95 over
 * `rounds` keys. The program is a small full-screen counter that redraws the
 * whole alternate screen on every key, as an editor or `top` would.
 *
 * `measureKeyToScreen` takes a driver, so the same rounds run against the pty
 * and screen alone (`ptyScreenDriver`, `benchPtyLatency`) or through a
 * process table and its tools (bench/processes.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keysToBytes } from "../src/tools/processes/keys";
import { spawnPtyIo } from "../src/tools/processes/pty-io";
import { createTerminalScreen } from "../src/tools/processes/terminal-screen";
import type { ProcessInput } from "../src/tools/processes/types";
import { median } from "./measure";

/** One program driven by keys and read as a screen. */
export interface KeyScreenDriver {
    send(input: ProcessInput): Promise<void>;
    /** The screen as a read returns it. */
    read(): Promise<string>;
    close(): Promise<void>;
}

export interface KeyLatency {
    rounds: number;
    medianMs: number;
    p95Ms: number;
    maxMs: number;
}

/**
 * The counter: raw keys, the alternate screen, "keys: N" on the first row and
 * a screenful of rows under it redrawn on every key; Ctrl+C ends it.
 */
const COUNTER_SCRIPT = `
process.stdin.setRawMode(true);
process.stdin.resume();
let keys = 0;
const rows = (process.stdout.rows || 40) - 2;
const draw = () => process.stdout.write("\\x1b[H\\x1b[2Jkeys: " + keys + "\\r\\n" + "~ row\\r\\n".repeat(rows));
process.stdout.write("\\x1b[?1049h");
draw();
process.stdin.on("data", (data) => {
    if (data.includes(3)) { process.stdout.write("\\x1b[?1049l"); process.exit(0); }
    keys += data.length;
    draw();
});
`;

/** The counter as a command line (`node -e …`), for drivers that start their own process. */
export const COUNTER_PROGRAM = { file: process.execPath, args: ["-e", COUNTER_SCRIPT] };

/** The counter in a pty of its own, read from the headless screen (no process table). */
export async function ptyScreenDriver(cwd: string): Promise<KeyScreenDriver> {
    const io = await spawnPtyIo({ ...COUNTER_PROGRAM, cwd, env: process.env, tty: true });
    const screen = createTerminalScreen(120, 40, { onReply: (data) => io.write(data) });
    io.onData((chunk) => screen.write(chunk));
    const exited = new Promise<void>((resolve) => io.onExit(() => resolve()));
    return {
        send: async (input) => {
            const keys = input.keys
                ? keysToBytes(input.keys, { tty: true, modes: screen.keyModes() })
                : "";
            io.write((input.text ?? "") + keys);
        },
        read: async () => {
            await screen.flush();
            return screen.text();
        },
        close: async () => {
            io.write("\x03");
            await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
            io.kill("SIGKILL");
            screen.dispose();
        },
    };
}

function percentile(values: number[], fraction: number): number {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

/** Resolves with the first read whose screen matches; rejects with the screen after `timeoutMs`. */
async function readUntil(
    driver: KeyScreenDriver,
    pattern: RegExp,
    timeoutMs: number
): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
        const screen = await driver.read();
        if (pattern.test(screen)) return;
        if (performance.now() > deadline) {
            throw new Error(`the screen never showed ${pattern} in ${timeoutMs} ms:\n${screen}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 1));
    }
}

/**
 * Sends one key per round to the counter behind `driver` and times until a
 * read shows its count. The first screen ("keys: 0") is awaited untimed.
 */
export async function measureKeyToScreen(
    driver: KeyScreenDriver,
    { rounds = 60, timeoutMs = 10_000 }: { rounds?: number; timeoutMs?: number } = {}
): Promise<KeyLatency> {
    await readUntil(driver, /^keys: 0$/m, timeoutMs);
    const samples: number[] = [];
    for (let round = 1; round <= rounds; round++) {
        const started = performance.now();
        await driver.send({ keys: ["space"] });
        await readUntil(driver, new RegExp(`^keys: ${round}$`, "m"), timeoutMs);
        samples.push(performance.now() - started);
    }
    return {
        rounds,
        medianMs: median(samples),
        p95Ms: percentile(samples, 0.95),
        maxMs: Math.max(...samples),
    };
}

/** `npm run bench -- pty-latency`: the pty and the screen alone. */
export async function benchPtyLatency(): Promise<void> {
    const cwd = mkdtempSync(join(tmpdir(), "north-bench-pty-"));
    const driver = await ptyScreenDriver(cwd);
    try {
        const latency = await measureKeyToScreen(driver, {
            rounds: Number(process.env.BENCH_RUNS ?? 100),
        });
        console.log("\n## key to screen, tty process (pty + headless screen, no model)");
        console.log(`rounds   ${latency.rounds}`);
        console.log(`median   ${latency.medianMs.toFixed(2)} ms`);
        console.log(`p95      ${latency.p95Ms.toFixed(2)} ms`);
        console.log(`max      ${latency.maxMs.toFixed(2)} ms`);
    } finally {
        await driver.close();
        rmSync(cwd, { recursive: true, force: true });
    }
}
