import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface ProcessSample {
    wallMs: number;
    /** Peak resident set size in MB (from /usr/bin/time when present). */
    peakRssMb: number | null;
    code: number | null;
    stdout: string;
    stderr: string;
}

const TIME_BIN = "/usr/bin/time";
const HAS_TIME = existsSync(TIME_BIN);

/** Runs a command once, measuring wall time and (when possible) peak RSS. */
export function runOnce(
    command: string,
    args: string[],
    options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}
): Promise<ProcessSample> {
    const wrapped = HAS_TIME
        ? [TIME_BIN, ["-f", "__RSS_KB__%M", command, ...args]]
        : [command, args];
    return new Promise((resolve, reject) => {
        const started = performance.now();
        const child = spawn(wrapped[0] as string, wrapped[1] as string[], {
            env: options.env ?? process.env,
            cwd: options.cwd,
            stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
        });
        let stdout = "";
        let stderr = "";
        child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
        child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
        if (options.input !== undefined) child.stdin?.end(options.input);
        child.on("error", reject);
        child.on("close", (code) => {
            const wallMs = performance.now() - started;
            const match = /__RSS_KB__(\d+)/.exec(stderr);
            stderr = stderr.replace(/__RSS_KB__\d+\n?/, "");
            resolve({
                wallMs,
                peakRssMb: match ? Number(match[1]) / 1024 : null,
                code,
                stdout,
                stderr,
            });
        });
    });
}

export function median(values: number[]): number {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface Series {
    label: string;
    wallMs: number;
    peakRssMb: number | null;
}

/** Runs `make()` `runs` times (after one warm-up) and keeps medians. */
export async function series(
    label: string,
    runs: number,
    make: () => Promise<ProcessSample>
): Promise<Series> {
    await make();
    const walls: number[] = [];
    const rss: number[] = [];
    for (let i = 0; i < runs; i++) {
        const sample = await make();
        if (sample.code !== 0) {
            throw new Error(`${label}: exit ${sample.code}\n${sample.stderr.slice(0, 2000)}`);
        }
        walls.push(sample.wallMs);
        if (sample.peakRssMb !== null) rss.push(sample.peakRssMb);
    }
    return { label, wallMs: median(walls), peakRssMb: rss.length ? median(rss) : null };
}

/**
 * Like `series`, for several commands at once: one run of each in turn, so a
 * change in the machine's load falls on all of them alike (A/B of two builds).
 */
export async function interleavedSeries(
    entries: Array<{ label: string; make: () => Promise<ProcessSample> }>,
    runs: number
): Promise<Series[]> {
    for (const entry of entries) await entry.make();
    const walls = entries.map(() => [] as number[]);
    const rss = entries.map(() => [] as number[]);
    for (let i = 0; i < runs; i++) {
        for (const [k, entry] of entries.entries()) {
            const sample = await entry.make();
            if (sample.code !== 0) {
                throw new Error(
                    `${entry.label}: exit ${sample.code}\n${sample.stderr.slice(0, 2000)}`
                );
            }
            walls[k]!.push(sample.wallMs);
            if (sample.peakRssMb !== null) rss[k]!.push(sample.peakRssMb);
        }
    }
    return entries.map((entry, k) => ({
        label: entry.label,
        wallMs: median(walls[k]!),
        peakRssMb: rss[k]!.length ? median(rss[k]!) : null,
    }));
}

export function printTable(title: string, rows: Series[], baseline: Series): void {
    console.log(`\n## ${title}`);
    console.log(
        `${"".padEnd(44)}${"wall (median)".padStart(16)}${"peak RSS".padStart(12)}${"× baseline".padStart(12)}`
    );
    for (const row of rows) {
        const rss = row.peakRssMb === null ? "n/a" : `${row.peakRssMb.toFixed(1)} MB`;
        console.log(
            `${row.label.padEnd(44)}${`${row.wallMs.toFixed(1)} ms`.padStart(16)}${rss.padStart(12)}${(row.wallMs / baseline.wallMs).toFixed(2).padStart(12)}`
        );
    }
}

export function northVersion(): string {
    return JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
        .version as string;
}

/** A North run's environment against a fake model server: its own HOME, config and data folders, a bench key. */
export function northEnv(baseUrl: string, home: string): NodeJS.ProcessEnv {
    return {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_API_KEY: "bench-key",
        ANTHROPIC_BASE_URL: baseUrl,
        NORTH_CONFIG_DIR: join(home, "config"),
        NORTH_DATA_DIR: join(home, "data"),
        XDG_STATE_HOME: join(home, "state"),
    };
}
