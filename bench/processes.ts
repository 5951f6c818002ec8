/**
 * `npm run bench -- processes`: the figures of issue 35 (background processes).
 *
 * (a) A scripted print-mode session against the instant fake model server: a
 *     small Node dev server (a fixture that prints a line, works 300 ms, then
 *     listens and logs requests) started in the background, waited for until
 *     it prints "listening", fetched with curl, its log read, stopped; against
 *     the same work in one blocking command that polls (start, curl every
 *     0.2 s until it answers, cat the log, kill), interleaved run by run.
 * (b) A background process printing as fast as North takes it for
 *     BENCH_FLOOD_SECONDS (default 60): bytes/s through North, North's RSS
 *     and CPU while it runs (sampled from /proc), next to the same printer
 *     into a bare pipe reader.
 * (c) Key to updated screen for a tty program driven through the process
 *     tools (process_send, then process_read until the screen shows the key),
 *     median and p95 (bench/pty-latency.ts's counter and rounds), next to
 *     the pty and screen alone; a model turn adds a request to each key.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FakeTurn, startFakeLlmServer } from "../test/kit/fake-llm-server";
import { createProcessReadTool } from "../src/tools/process-read";
import { createProcessSendTool } from "../src/tools/process-send";
import { createShellService } from "../src/tools/shell-service";
import type { ToolContext } from "../src/tools/types";
import { median, northEnv, runOnce } from "./measure";
import {
    COUNTER_PROGRAM,
    type KeyLatency,
    type KeyScreenDriver,
    measureKeyToScreen,
    ptyScreenDriver,
} from "./pty-latency";

const NORTH = fileURLToPath(new URL("../bin/north.js", import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const FLOOD_SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 60);

/** The dev server: one line at once, 300 ms of start-up, then it listens and logs each request. */
const DEV_SERVER = `
const port = Number(process.argv[2]);
console.log("starting dev server");
setTimeout(() => {
    require("http")
        .createServer((request, response) => {
            console.log(request.method + " " + request.url);
            response.end("hello from the dev server\\n");
        })
        .listen(port, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + port));
}, 300);
`;

/**
 * Prints 80-character lines as fast as the reader takes them (it waits for
 * drain); on SIGTERM it writes how many bytes it printed to ./printed.
 */
const FLOOD_PRINTER = `
const chunk = Buffer.from(("x".repeat(79) + "\\n").repeat(800));
let printed = 0;
process.on("SIGTERM", () => {
    require("fs").writeFileSync("printed", String(printed));
    process.exit(0);
});
const write = () => {
    while (process.stdout.write(chunk)) printed += chunk.length;
    printed += chunk.length;
    process.stdout.once("drain", write);
};
write();
`;

function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = createServer();
        server.on("error", reject);
        server.listen(0, "127.0.0.1", () => {
            const { port } = server.address() as { port: number };
            server.close(() => resolve(port));
        });
    });
}

function backgroundTurns(port: number): FakeTurn[] {
    return [
        {
            toolCalls: [
                {
                    name: "shell_run",
                    input: { command: `node server.js ${port}`, background: true },
                },
            ],
        },
        {
            toolCalls: [
                {
                    name: "process_read",
                    input: { id: "p1", wait: { pattern: "listening" }, timeoutMs: 30_000 },
                },
            ],
        },
        {
            toolCalls: [
                { name: "shell_run", input: { command: `curl -s http://127.0.0.1:${port}/` } },
            ],
        },
        { toolCalls: [{ name: "process_read", input: { id: "p1", mode: "tail", lines: 20 } }] },
        { toolCalls: [{ name: "process_stop", input: { id: "p1" } }] },
        { text: "The dev server answers; its log shows the request." },
    ];
}

function pollingTurns(port: number): FakeTurn[] {
    const url = `http://127.0.0.1:${port}/`;
    const command =
        `node server.js ${port} > server.log 2>&1 & ` +
        `for i in $(seq 1 150); do curl -sf ${url} && break; sleep 0.2; done; ` +
        `cat server.log; kill $!`;
    return [
        { toolCalls: [{ name: "shell_run", input: { command } }] },
        { text: "The dev server answers; its log shows the request." },
    ];
}

/** (a): wall time of the scripted session, background tools against one polling command. */
async function benchDevServerSession(): Promise<void> {
    const server = await startFakeLlmServer();
    const repo = mkdtempSync(join(tmpdir(), "north-bench-processes-"));
    const home = mkdtempSync(join(tmpdir(), "north-bench-home-"));
    writeFileSync(join(repo, "server.js"), DEV_SERVER);
    const session = (turns: (port: number) => FakeTurn[]) => async () => {
        server.enqueue(...turns(await freePort()));
        const before = server.requests.length;
        const run = await runOnce(
            process.execPath,
            [NORTH, "-p", "start the dev server and fetch /", "--path", repo, "--allow-shell"],
            { env: northEnv(server.anthropicBaseUrl, home) }
        );
        // The curl's answer reached the model: the session did the work it is timed for.
        const sent = JSON.stringify(server.requests.slice(before).map((r) => r.body));
        if (run.code === 0 && !sent.includes("hello from the dev server")) {
            return { ...run, code: -1, stderr: `the fetch never answered:\n${sent.slice(-2000)}` };
        }
        return run;
    };
    try {
        const entries = [
            { label: "background: start, wait, curl, log, stop", make: session(backgroundTurns) },
            { label: "blocking: one command polling every 0.2 s", make: session(pollingTurns) },
        ];
        for (const entry of entries) {
            const warm = await entry.make();
            if (warm.code !== 0) throw new Error(`${entry.label}: ${warm.stderr.slice(0, 2000)}`);
        }
        const walls = entries.map(() => [] as number[]);
        for (let i = 0; i < RUNS; i++) {
            for (const [k, entry] of entries.entries()) {
                const run = await entry.make();
                if (run.code !== 0) throw new Error(`${entry.label}: ${run.stderr.slice(0, 2000)}`);
                walls[k]!.push(run.wallMs);
            }
        }
        console.log(
            `\n## dev server session through North -p, instant fake model (median of ${RUNS})`
        );
        for (const [k, entry] of entries.entries()) {
            console.log(
                `${entry.label.padEnd(48)}${`${median(walls[k]!).toFixed(0)} ms`.padStart(10)}`
            );
        }
        console.log(
            `(the server prints a line, works 300 ms, then listens; background = 5 tool turns, blocking = 1)`
        );
    } finally {
        await server.close();
        rmSync(repo, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
    }
}

/** RSS (MB) and CPU time (s) of a live process, from /proc. */
function sampleProcess(pid: number): { rssMb: number; cpuSeconds: number } | null {
    try {
        const status = readFileSync(`/proc/${pid}/status`, "utf8");
        const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        // utime and stime: fields 14 and 15, in clock ticks (100 per second on Linux).
        const ticks = Number(fields[11]) + Number(fields[12]);
        return { rssMb: rssKb / 1024, cpuSeconds: ticks / 100 };
    } catch {
        return null;
    }
}

/** The printer into a bare Node reader for `seconds`: the most a reader in Node takes. */
async function barePipeRate(dir: string, seconds: number): Promise<number> {
    const child = spawn(process.execPath, ["-e", FLOOD_PRINTER], {
        cwd: dir,
        stdio: ["ignore", "pipe", "ignore"],
    });
    let bytes = 0;
    child.stdout.on("data", (chunk: Buffer) => (bytes += chunk.length));
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const rate = bytes / ((performance.now() - started) / 1000);
    child.kill("SIGKILL");
    return rate;
}

/** (b): the printer as a background process of North -p, waited on for FLOOD_SECONDS, then stopped. */
async function benchFlood(): Promise<void> {
    if (process.platform !== "linux") {
        console.log("\n## flood: skipped (samples North's /proc)");
        return;
    }
    const server = await startFakeLlmServer();
    const repo = mkdtempSync(join(tmpdir(), "north-bench-flood-"));
    const home = mkdtempSync(join(tmpdir(), "north-bench-home-"));
    writeFileSync(join(repo, "printer.js"), FLOOD_PRINTER);
    try {
        const waitMs = FLOOD_SECONDS * 1000;
        server.enqueue(
            {
                toolCalls: [
                    { name: "shell_run", input: { command: "node printer.js", background: true } },
                ],
            },
            // The wait times out while the printer runs: North only takes its output meanwhile.
            {
                toolCalls: [
                    { name: "process_read", input: { id: "p1", wait: "exit", timeoutMs: waitMs } },
                ],
            },
            { toolCalls: [{ name: "process_stop", input: { id: "p1" } }] },
            { text: "Stopped." }
        );
        const north = spawn(
            process.execPath,
            [NORTH, "-p", "flood", "--path", repo, "--allow-shell"],
            {
                env: northEnv(server.anthropicBaseUrl, home),
                stdio: ["ignore", "ignore", "pipe"],
            }
        );
        let stderr = "";
        north.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
        const closed = new Promise<number | null>((resolve) => north.on("close", resolve));
        const samples: { at: number; rssMb: number; cpuSeconds: number }[] = [];
        const spillDir = join(home, "data", "processes");
        let spillMax = 0;
        // The printer runs from the start's result (request 2) to the stop's (request 4).
        let printerStarted = 0;
        let printerStopped = 0;
        const timer = setInterval(() => {
            const requests = server.requests.length;
            if (requests >= 2 && printerStarted === 0) printerStarted = performance.now();
            if (requests >= 4 && printerStopped === 0) printerStopped = performance.now();
            // From the wait's request to the stop's: the printer runs and North only reads it.
            if (requests < 2 || requests >= 3) return;
            const sample = north.pid === undefined ? null : sampleProcess(north.pid);
            if (sample) samples.push({ at: performance.now(), ...sample });
            spillMax = Math.max(spillMax, spillBytes(spillDir));
        }, 250);
        const code = await closed;
        clearInterval(timer);
        // North ended between two looks: the stop came at most then.
        if (printerStopped === 0) printerStopped = performance.now();
        if (code !== 0) throw new Error(`north -p exited ${code}: ${stderr.slice(0, 2000)}`);
        const printed = Number(readFileSync(join(repo, "printed"), "utf8"));
        const first = samples[0]!;
        const last = samples.at(-1)!;
        const seconds = (last.at - first.at) / 1000;
        const cpu = (last.cpuSeconds - first.cpuSeconds) / seconds;
        const bare = await barePipeRate(repo, Math.min(10, FLOOD_SECONDS));
        const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
        console.log(`\n## background process printing as fast as it can, ${FLOOD_SECONDS} s`);
        const row = (label: string, value: string): void =>
            console.log(`${label.padEnd(48)}${value.padStart(16)}`);
        const printerSeconds = (printerStopped - printerStarted) / 1000;
        row("printed through North", `${mb(printed / printerSeconds)}/s`);
        row("the same printer into a bare Node reader", `${mb(bare)}/s`);
        row("North's RSS at the start of the flood", mb(first.rssMb * 1024 * 1024));
        row("North's RSS, highest", mb(Math.max(...samples.map((s) => s.rssMb)) * 1024 * 1024));
        row("North's RSS at the end", mb(last.rssMb * 1024 * 1024));
        // Flat or growing: the RSS at each quarter of the flood.
        const quarters = [1, 2, 3, 4].map(
            (q) => samples[Math.min(samples.length - 1, Math.round((q * samples.length) / 4) - 1)]!
        );
        row(
            "  at 1/4, 2/4, 3/4, 4/4 of it",
            quarters.map((s) => s.rssMb.toFixed(0)).join(" / ") + " MB"
        );
        row("North's CPU while it runs (one core = 100%)", `${(cpu * 100).toFixed(0)} %`);
        row("spill files, largest seen (bounded by the cap)", mb(spillMax));
    } finally {
        await server.close();
        rmSync(repo, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
    }
}

/** Bytes in the spill files under `dir` now (0 when there are none). */
function spillBytes(dir: string): number {
    let total = 0;
    let names: string[];
    try {
        names = readdirSync(dir);
    } catch {
        return 0;
    }
    for (const name of names) {
        const path = join(dir, name);
        try {
            const stat = statSync(path);
            total += stat.isDirectory() ? spillBytes(path) : stat.size;
        } catch {
            // removed meanwhile
        }
    }
    return total;
}

/**
 * The counter as a tty background process of a shell service, driven by the
 * model's tools: process_send with the key, process_read for the screen.
 */
async function toolDriver(dir: string): Promise<KeyScreenDriver> {
    writeFileSync(join(dir, "counter.js"), COUNTER_PROGRAM.args[1]!);
    const shell = createShellService(dir);
    const { process: counter } = await shell.start!(`"${process.execPath}" counter.js`, {
        tty: true,
        origin: "bench",
    });
    const send = createProcessSendTool(shell);
    const read = createProcessReadTool(shell);
    const context: ToolContext = { repoRoot: dir, signal: new AbortController().signal };
    return {
        async send(input) {
            const result = await send.execute({ id: counter.id, ...input }, context);
            if (!result.ok) throw new Error(`process_send: ${result.error.message}`);
        },
        async read() {
            const result = await read.execute({ id: counter.id }, context);
            if (!result.ok) throw new Error(`process_read: ${result.error.message}`);
            return result.data.text;
        },
        async close() {
            shell.dispose();
        },
    };
}

/** One driver's rounds; null (and why) when the pty cannot run here. */
async function keyLatency(
    make: (dir: string) => Promise<KeyScreenDriver>
): Promise<KeyLatency | string> {
    const dir = mkdtempSync(join(tmpdir(), "north-bench-keys-"));
    let driver: KeyScreenDriver | undefined;
    try {
        driver = await make(dir);
        return await measureKeyToScreen(driver, { rounds: RUNS * 10 });
    } catch (error) {
        return (error as Error).message.split("\n")[0]!;
    } finally {
        await driver?.close();
        rmSync(dir, { recursive: true, force: true });
    }
}

/** (c): key to updated screen through the tools (no model in between), next to the pty alone. */
async function benchKeyToScreen(): Promise<void> {
    console.log("\n## key to updated screen, a tty program redrawing on each key");
    for (const [label, make] of [
        ["pty + headless screen alone", ptyScreenDriver],
        ["through process_send / process_read", toolDriver],
    ] as const) {
        const latency = await keyLatency(make);
        console.log(
            typeof latency === "string"
                ? `${label.padEnd(40)}skipped: ${latency}`
                : `${label.padEnd(40)}median ${latency.medianMs.toFixed(1)} ms, p95 ${latency.p95Ms.toFixed(1)} ms (${latency.rounds} keys)`
        );
    }
}

export async function benchProcesses(): Promise<void> {
    await benchDevServerSession();
    await benchFlood();
    await benchKeyToScreen();
}
