/**
 * `npm run bench -- shell`: the cost of shell_run next to same-run baselines.
 * - overhead: median wall of `true` through the service vs `bash -c true` spawned directly;
 * - 2 GB of output through the service: throughput and peak RSS growth of this process;
 * - cancel to return: abort `sleep 100 & wait` and time until run() resolves.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SHELL_HEAD_BYTES, SHELL_TAIL_BYTES } from "../src/tools/limits";
import { createShellService } from "../src/tools/shell-service";
import { median } from "./measure";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const BIG_BYTES = 2 * 1024 ** 3;

function spawnBashTrue(): Promise<number> {
    return new Promise((resolve, reject) => {
        const started = performance.now();
        const child = spawn("bash", ["-c", "true"], { stdio: ["ignore", "pipe", "pipe"] });
        child.on("error", reject);
        child.on("close", () => resolve(performance.now() - started));
    });
}

async function medianOf(runs: number, sample: () => Promise<number>): Promise<number> {
    await sample(); // warm-up
    const values: number[] = [];
    for (let i = 0; i < runs; i++) values.push(await sample());
    return median(values);
}

interface Row {
    label: string;
    value: string;
    target: string;
    pass: boolean;
}

function printRows(title: string, rows: Row[]): void {
    console.log(`\n## ${title}`);
    console.log(`${"".padEnd(48)}${"value".padStart(14)}${"target".padStart(18)}${"".padStart(6)}`);
    for (const row of rows) {
        console.log(
            `${row.label.padEnd(48)}${row.value.padStart(14)}${row.target.padStart(18)}${(row.pass ? "ok" : "MISS").padStart(6)}`
        );
    }
}

export async function benchShell(): Promise<void> {
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), "north-bench-shell-")));
    const shell = createShellService(root);
    try {
        const baseline = await medianOf(RUNS * 2, spawnBashTrue);
        const viaService = await medianOf(RUNS * 2, async () => {
            const started = performance.now();
            await shell.run("true");
            return performance.now() - started;
        });

        const big: Array<{ mbPerSec: number; rssGrowthMb: number }> = [];
        for (let i = 0; i < 3; i++) {
            global.gc?.();
            const before = process.memoryUsage().rss;
            let peak = before;
            const sampler = setInterval(() => {
                peak = Math.max(peak, process.memoryUsage().rss);
            }, 10);
            const started = performance.now();
            const result = await shell.run(`head -c ${BIG_BYTES} /dev/zero; echo; echo END`, {
                timeoutMs: 600_000,
            });
            const seconds = (performance.now() - started) / 1000;
            clearInterval(sampler);
            peak = Math.max(peak, process.memoryUsage().rss);
            // What the test suite checks on 64 MB, at full size: exact byte count, the end kept.
            const kept = SHELL_HEAD_BYTES + SHELL_TAIL_BYTES;
            if (
                result.droppedBytes + kept !== BIG_BYTES + 5 ||
                !result.output.endsWith("\nEND\n")
            ) {
                throw new Error(`2 GB run lost bytes or its end: dropped ${result.droppedBytes}`);
            }
            big.push({
                mbPerSec: BIG_BYTES / 1024 ** 2 / seconds,
                rssGrowthMb: (peak - before) / 1024 ** 2,
            });
        }
        const throughput = median(big.map((b) => b.mbPerSec));
        const rssGrowth = Math.max(...big.map((b) => b.rssGrowthMb));

        const cancel = await medianOf(Math.max(5, Math.round(RUNS / 2)), async () => {
            const controller = new AbortController();
            let abortedAt = 0;
            setTimeout(() => {
                abortedAt = performance.now();
                controller.abort();
            }, 100);
            await shell.run("sleep 100 & wait", { signal: controller.signal });
            return performance.now() - abortedAt;
        });

        const overhead = viaService - baseline;
        printRows("shell_run (npm run bench -- shell)", [
            {
                label: "bash -c true, spawned directly (baseline)",
                value: `${baseline.toFixed(1)} ms`,
                target: "",
                pass: true,
            },
            {
                label: "shell_run `true` through the service",
                value: `${viaService.toFixed(1)} ms`,
                target: `≤ baseline + 30`,
                pass: overhead <= 30,
            },
            {
                label: "  overhead above baseline",
                value: `${overhead.toFixed(1)} ms`,
                target: "≤ 30 ms",
                pass: overhead <= 30,
            },
            {
                label: "2 GB output: throughput (median of 3)",
                value: `${throughput.toFixed(0)} MB/s`,
                target: "≥ 200 MB/s",
                pass: throughput >= 200,
            },
            {
                label: "2 GB output: peak RSS growth (max of 3)",
                value: `${rssGrowth.toFixed(1)} MB`,
                target: "≤ 64 MB",
                pass: rssGrowth <= 64,
            },
            {
                label: "cancel `sleep 100 & wait` to return (median)",
                value: `${cancel.toFixed(1)} ms`,
                target: "≤ 1000 ms",
                pass: cancel <= 1000,
            },
        ]);
    } finally {
        shell.dispose();
        rmSync(root, { recursive: true, force: true });
    }
}
