/**
 * `npm run bench -- startup`: where a one-turn `north -p` spends its time.
 * For this build and, with BENCH_BASELINE set to another build's
 * bin/north.js, that build too (runs interleaved): wall and CPU time from
 * process start to the first request sent, and to exit, read inside the
 * process; the files of dist/ the run loads, and the CPU time importing
 * them alone takes (module loading). CPU time is the steadier
 * figure on a busy machine: other processes stretch wall time, not CPU time.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeLlmServer } from "../test/kit/fake-llm-server";
import { median } from "./measure";

const NORTH = fileURLToPath(new URL("../bin/north.js", import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const MARK = "__NORTH_STARTUP__";

// Preloaded into each run: marks the first HTTP request and the exit.
const TIMELINE = `import dc from "node:diagnostics_channel";
import { writeSync } from "node:fs";
const mark = (what) => {
    const cpu = process.cpuUsage();
    writeSync(2, "${MARK} " + what + " " + performance.now() + " " + (cpu.user + cpu.system) / 1000 + "\\n");
};
let sent = false;
dc.subscribe("http.client.request.start", () => { if (!sent) { sent = true; mark("request"); } });
process.on("exit", () => mark("exit"));
`;

// Preloaded into one extra run: notes each file of dist/ that is loaded.
const HOOKS = `import { appendFileSync } from "node:fs";
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, next) {
    if (url.includes("/dist/")) appendFileSync(log, url + "\\n");
    return next(url, context);
}
`;
const REGISTER = `import { register } from "node:module";
register(new URL("./hooks.mjs", import.meta.url), { data: { log: process.env.BENCH_MODULE_LOG } });
`;

export interface Timeline {
    requestMs: number;
    requestCpuMs: number;
    exitMs: number;
    exitCpuMs: number;
}

/** Writes the preload that marks the first request and the exit; returns its path. */
export function writeTimelinePreload(dir: string): string {
    const file = join(dir, "timeline.mjs");
    writeFileSync(file, TIMELINE);
    return file;
}

/** Runs `bin -p hi` (one turn) with `preload` modules; resolves to its stderr. */
export function runPrintOnce(
    bin: string,
    o: { env: NodeJS.ProcessEnv; repo: string; preload: string[] }
): Promise<string> {
    const child = spawn(
        process.execPath,
        [...o.preload, bin, "-p", "hi", "--path", o.repo, "--output-format", "json"],
        { env: o.env, stdio: ["ignore", "ignore", "pipe"] }
    );
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    return new Promise((resolve, reject) => {
        child.on("error", reject);
        child.on("close", (code) => {
            if (code === 0) resolve(stderr);
            else reject(new Error(`${bin}: exit ${code}\n${stderr.slice(0, 2000)}`));
        });
    });
}

/** One run's marks (the preload from writeTimelinePreload); the caller queues the model's turn. */
export async function printTimeline(
    bin: string,
    o: { env: NodeJS.ProcessEnv; repo: string; timelineFile: string }
): Promise<Timeline> {
    const stderr = await runPrintOnce(bin, {
        env: o.env,
        repo: o.repo,
        preload: ["--import", o.timelineFile],
    });
    const marks = new Map<string, [number, number]>();
    for (const m of stderr.matchAll(new RegExp(`${MARK} (\\w+) ([\\d.]+) ([\\d.]+)`, "g"))) {
        marks.set(m[1]!, [Number(m[2]), Number(m[3])]);
    }
    const request = marks.get("request");
    const exit = marks.get("exit");
    if (!request || !exit) throw new Error(`${bin}: no timeline marks\n${stderr}`);
    return {
        requestMs: request[0],
        requestCpuMs: request[1],
        exitMs: exit[0],
        exitCpuMs: exit[1],
    };
}

export async function benchPrintStartup(): Promise<void> {
    const server = await startFakeLlmServer();
    const work = mkdtempSync(join(tmpdir(), "north-bench-startup-"));
    const repo = join(work, "repo");
    mkdirSync(join(repo, "src"), { recursive: true });
    writeFileSync(join(repo, "src", "retry.ts"), "export const retries = 3;\n");
    writeFileSync(join(work, "hooks.mjs"), HOOKS);
    writeFileSync(join(work, "register.mjs"), REGISTER);
    const env = {
        PATH: process.env.PATH,
        HOME: work,
        ANTHROPIC_API_KEY: "bench-key",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        NORTH_CONFIG_DIR: join(work, "config"),
        NORTH_DATA_DIR: join(work, "data"),
        XDG_STATE_HOME: join(work, "state"),
    };
    const timelineFile = writeTimelinePreload(work);
    const run = (bin: string, preload: string[], extraEnv = {}): Promise<string> => {
        server.enqueue({ text: "Done." });
        return runPrintOnce(bin, { env: { ...env, ...extraEnv }, repo, preload });
    };
    const timeline = (bin: string): Promise<Timeline> => {
        server.enqueue({ text: "Done." });
        return printTimeline(bin, { env, repo, timelineFile });
    };
    const filesLoaded = async (bin: string, name: string): Promise<string[]> => {
        const log = join(work, `${name}.modules.log`);
        writeFileSync(log, "");
        await run(bin, ["--import", join(work, "register.mjs")], { BENCH_MODULE_LOG: log });
        return readFileSync(log, "utf8").split("\n").filter(Boolean);
    };
    // The same files imported in a fresh process, without running anything: the
    // module-load share of start-up (reading, compiling, linking, top-level code).
    // The entry (cli.js) would start a run, so it is left out; it is 2 KB.
    const moduleLoadCpuMs = async (files: string[]): Promise<number> => {
        const chunks = files.filter((url) => !url.endsWith("/dist/cli.js"));
        const script = `const c0 = process.cpuUsage();
for (const url of ${JSON.stringify(chunks)}) await import(url);
const c = process.cpuUsage(c0);
process.stdout.write(String((c.user + c.system) / 1000));`;
        const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
            stdio: ["ignore", "pipe", "inherit"],
        });
        let out = "";
        child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
        await new Promise((resolve) => child.on("close", resolve));
        return Number(out);
    };

    const builds = [
        ...(process.env.BENCH_BASELINE
            ? [{ label: "baseline build", bin: process.env.BENCH_BASELINE }]
            : []),
        { label: "this build", bin: NORTH },
    ];
    try {
        const samples = builds.map(() => [] as Timeline[]);
        for (const build of builds) await timeline(build.bin); // warm-up
        for (let i = 0; i < RUNS; i++) {
            for (const [k, build] of builds.entries()) samples[k]!.push(await timeline(build.bin));
        }
        const loads = builds.map(() => [] as number[]);
        const files: string[][] = [];
        for (const [k, build] of builds.entries()) files.push(await filesLoaded(build.bin, `${k}`));
        for (let i = 0; i < RUNS; i++) {
            for (const k of builds.keys()) loads[k]!.push(await moduleLoadCpuMs(files[k]!));
        }
        console.log(`\n## north -p, one turn: start-up to the first request (median of ${RUNS})`);
        console.log(
            `${"".padEnd(16)}${"request wall".padStart(14)}${"request CPU".padStart(14)}${"exit wall".padStart(12)}${"exit CPU".padStart(12)}${"dist files".padStart(12)}${"load CPU".padStart(12)}`
        );
        for (const [k, build] of builds.entries()) {
            const of = (key: keyof Timeline) =>
                `${median(samples[k]!.map((s) => s[key])).toFixed(1)} ms`;
            console.log(
                `${build.label.padEnd(16)}${of("requestMs").padStart(14)}${of("requestCpuMs").padStart(14)}${of("exitMs").padStart(12)}${of("exitCpuMs").padStart(12)}${String(files[k]!.length).padStart(12)}${`${median(loads[k]!).toFixed(1)} ms`.padStart(12)}`
            );
        }
        console.log(
            "load CPU: importing the same dist/ files (but cli.js) in a fresh process, nothing run"
        );
        if (builds.length === 2) {
            const ratio = (key: keyof Timeline) =>
                (
                    median(samples[1]!.map((s) => s[key])) / median(samples[0]!.map((s) => s[key]))
                ).toFixed(3);
            console.log(
                `this build / baseline build, first request: ${ratio("requestMs")}× wall, ${ratio("requestCpuMs")}× CPU (target ≤ 1.05×)`
            );
        }
    } finally {
        await server.close();
        rmSync(work, { recursive: true, force: true });
    }
}
