/**
 * `npm run bench -- soak`: a long chat session in a real pseudo-terminal
 * against the scripted fake model server (instant replies), to catch leaks
 * that only show after hundreds of turns.
 *
 * Each turn is one prompt; the scripted answers rotate through a read_file
 * call, a search_text call, an edit of a file in the project (its review
 * answered "1. Yes"), a shell command (approved with "1") and a long answer
 * of a few KB of markdown with code blocks. After turn 1 and every 100th
 * turn the bench samples the north process's RSS (VmRSS) and CPU time
 * (utime + stime from /proc/PID/stat), and prints:
 *
 * - RSS after turn 100 and after the last (target: RSS(1,000) ≤ RSS(100) + 30 MB),
 *   and the same for the RSS floor (the lowest reading over a block's last 10 turns,
 *   less sensitive to when the garbage collector last ran);
 * - CPU per turn over turns 100–200 and the last hundred (target ≤ 1.2×).
 *
 * `BENCH_SOAK_TURNS` (default 1,000; a multiple of 100, at least 200) sets
 * the length; `BENCH_BASELINE` (another build's bin/north.js) soaks that
 * build too, after this one; `BENCH_SOAK_HEAP_DIR` has North write a heap
 * snapshot there at every sample and report the live JS heap each holds (for
 * finding what grows; RSS then includes what writing them took). Every wait is for
 * a screen state (the turn's last words and the composer back), never a fixed time.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
    type FakeLlmServer,
    type FakeTurn,
    type ScriptedTurn,
    startFakeLlmServer,
} from "../test/kit/fake-llm-server";
import { isAppReady, REVIEW_READY, rssMb, spawnNorthPty, type PtyNorth } from "../test/kit/pty";
import { type Fixture, makeFixture } from "./tui";

const TURNS = Number(process.env.BENCH_SOAK_TURNS ?? 1000);
const SAMPLE_EVERY = 100;
const COLS = 100;
const ROWS = 30;
/** A turn waits this long at most for its answer (a review, a command and a long answer included). */
const TURN_TIMEOUT_MS = 60_000;
/** Clock ticks per second of /proc/PID/stat's utime and stime (USER_HZ, 100 on Linux). */
const CLOCK_TICKS_PER_SECOND = 100;
/** A review that has not said "Enter to choose" this long after it showed is taken as stuck. */
const STUCK_GUARD_MS = 5_000;
/** review-menu.tsx's hint while a consent review's guard holds keys for the draft. */
const GUARDING_HINT = "keys go to your draft for a moment";
const EDITED_FILE = "src/counter.ts";
const NOTES_FILE = "src/notes.md";

/** RSS also read after each of a block's last turns: its lowest reading is the floor left after GC. */
const FLOOR_TURNS = 10;

interface Sample {
    turn: number;
    rssMb: number;
    /** The lowest RSS after each of the FLOOR_TURNS turns up to this one (garbage not yet collected aside). */
    floorMb: number;
    /** CPU time so far, less what writing heap snapshots took. */
    cpuMs: number;
    /** Live JS heap after a full GC (with BENCH_SOAK_HEAP_DIR only). */
    liveHeapMb?: number;
}

/** utime + stime of a live process, in ms. */
function cpuMs(pid: number): number {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** A few KB of markdown: headings, a list, a table and two code blocks. */
function longAnswer(turn: number): string {
    const code = Array.from(
        { length: 24 },
        (_, i) =>
            `export function step${turn}_${i}(input: number): number {\n    return input * ${i + 1} + ${turn};\n}`
    ).join("\n");
    const list = Array.from(
        { length: 12 },
        (_, i) =>
            `- **Point ${i + 1}** of turn ${turn}: the queue is drained in order, retried twice, then written to the store.`
    ).join("\n");
    const table = [
        "| stage | retries | timeout |",
        "| --- | --- | --- |",
        ...Array.from({ length: 8 }, (_, i) => `| stage ${i} | ${i % 3} | ${(i + 1) * 100} ms |`),
    ].join("\n");
    return [
        `## Turn ${turn}: how the pipeline works`,
        "",
        "The pipeline reads work items from a queue and writes results to a store. Here is the shape:",
        "",
        list,
        "",
        "```ts",
        code,
        "```",
        "",
        table,
        "",
        "```sh",
        `npm run build && node dist/pipeline.js --turn ${turn}`,
        "```",
        "",
        `That is all for now. soak turn ${turn} end`,
    ].join("\n");
}

/** The last words of turn `turn`'s answer: the screen shows them once the turn is over. */
const endOf = (turn: number): string => `soak turn ${turn} end`;

type TurnKind = "read" | "search" | "edit" | "shell" | "long";
const KINDS: TurnKind[] = ["read", "search", "edit", "shell", "long"];

/** The scripted replies of one turn, and whether the user must approve a review in it. */
function scriptTurn(turn: number): { replies: FakeTurn[]; review: boolean } {
    const kind = KINDS[(turn - 1) % KINDS.length]!;
    const done = { text: `Done with that. ${endOf(turn)}` };
    switch (kind) {
        case "read":
            return {
                replies: [
                    {
                        toolCalls: [
                            {
                                name: "read_file",
                                input: { path: NOTES_FILE, range: { start: 1, end: 40 } },
                            },
                        ],
                    },
                    done,
                ],
                review: false,
            };
        case "search":
            return {
                replies: [
                    { toolCalls: [{ name: "search_text", input: { query: "retry" } }] },
                    done,
                ],
                review: false,
            };
        case "edit":
            // Each edit turns the counter from its value at the last edit to the turn number.
            return {
                replies: [
                    {
                        toolCalls: [
                            {
                                name: "edit_replace_exact",
                                input: {
                                    path: EDITED_FILE,
                                    old_text: `counter = ${lastEditBefore(turn)};`,
                                    new_text: `counter = ${turn};`,
                                },
                            },
                        ],
                    },
                    done,
                ],
                review: true,
            };
        case "shell":
            return {
                replies: [
                    { toolCalls: [{ name: "shell_run", input: { command: `echo soak-${turn}` } }] },
                    done,
                ],
                review: true,
            };
        case "long":
            return { replies: [{ text: longAnswer(turn) }], review: false };
    }
}

/** The counter's value before the edit of turn `turn` (0 before the first edit). */
function lastEditBefore(turn: number): number {
    const previous = turn - KINDS.length;
    return previous > 0 ? previous : 0;
}

/** The turn of the last edit up to `turns` (each edit writes its turn number). */
function lastEditThrough(turns: number): number {
    const first = KINDS.indexOf("edit") + 1;
    return turns - ((turns - first) % KINDS.length);
}

function prepareProject(fixture: Fixture): void {
    writeFileSync(join(fixture.repo, EDITED_FILE), "export const counter = 0;\n");
    const notes = Array.from(
        { length: 200 },
        (_, i) => `line ${i + 1}: the retry logic waits ${i * 10} ms before try ${i + 2}`
    );
    writeFileSync(join(fixture.repo, NOTES_FILE), notes.join("\n") + "\n");
}

/**
 * The start of North's summary instructions (agent/context.ts SUMMARY_SYSTEM_PROMPT): a long
 * session passes 92 % of the context window and North summarises older turns.
 */
const SUMMARY_REQUEST = "You condense a coding conversation";

/** The answer to one summary request, served only to a request that asks for a summary. */
function summaryReply(): ScriptedTurn {
    return {
        when: (body) => body.includes(SUMMARY_REQUEST),
        text: JSON.stringify({
            goal: "answer the soak prompts",
            decisions: [`${EDITED_FILE} holds the counter`],
            constraints: [],
            openTasks: [],
            importantFiles: [EDITED_FILE, NOTES_FILE],
        }),
    };
}

/**
 * Keeps one summary answer waiting and forgets the requests seen so far (the
 * server records each body, and late requests carry the whole conversation).
 * Returns how many summaries North asked for.
 */
function settleRequests(server: FakeLlmServer): number {
    const summaries = server.requests.filter((r) =>
        JSON.stringify(r.body).includes(SUMMARY_REQUEST)
    ).length;
    for (let i = 0; i < summaries; i++) server.enqueue(summaryReply());
    server.requests.length = 0;
    return summaries;
}

/** Sends one prompt and returns once its answer's last words show and the composer is back. */
async function runTurn(
    north: PtyNorth,
    server: FakeLlmServer,
    turn: number
): Promise<{ stuckGuard: boolean }> {
    const { replies, review } = scriptTurn(turn);
    server.enqueue(...replies);
    const prompt = `soak prompt ${turn}`;
    north.type(prompt);
    await north.waitForText(prompt, TURN_TIMEOUT_MS);
    north.type("\r");
    let stuckGuard = false;
    if (review) {
        try {
            await north.waitForText(REVIEW_READY, STUCK_GUARD_MS);
        } catch {
            // Builds before the key gate's fix could miss the guard's end and keep saying
            // keys go to the draft while the review takes them: answer it anyway, and count it.
            await north.waitForText(GUARDING_HINT, TURN_TIMEOUT_MS);
            stuckGuard = true;
        }
        north.type("1");
    }
    await north.waitFor(
        () => north.screenText().includes(endOf(turn)) && isAppReady(north),
        TURN_TIMEOUT_MS,
        `the end of turn ${turn}`
    );
    return { stuckGuard };
}

/**
 * Has node write a heap snapshot into `dir` (SIGUSR2: a full GC first) and
 * returns the live JS heap it holds, in MB (the sum of every object's own size).
 */
async function heapSnapshot(pid: number, dir: string): Promise<number> {
    const files = (): string[] => readdirSync(dir).filter((f) => f.endsWith(".heapsnapshot"));
    const before = new Set(files());
    process.kill(pid, "SIGUSR2");
    // Node writes the file synchronously on its main thread: once the CPU clock stops
    // moving and the file exists, it is whole.
    for (;;) {
        const cpu = cpuMs(pid);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const written = files().find((f) => !before.has(f));
        if (written === undefined || cpuMs(pid) !== cpu) continue;
        const snapshot = JSON.parse(readFileSync(join(dir, written), "utf8")) as {
            snapshot: { meta: { node_fields: string[] } };
            nodes: number[];
        };
        const fields = snapshot.snapshot.meta.node_fields;
        const ownSize = fields.indexOf("self_size");
        let bytes = 0;
        for (let i = ownSize; i < snapshot.nodes.length; i += fields.length) {
            bytes += snapshot.nodes[i]!;
        }
        return bytes / 1024 / 1024;
    }
}

interface SoakResult {
    samples: Sample[];
    /** Reviews whose "Enter to choose" never showed (answered anyway). */
    stuckGuards: number;
    /** Automatic summaries of older turns North made (at 92 % of the context window). */
    summaries: number;
    seconds: number;
}

async function soak(bin: string | undefined, turns: number): Promise<SoakResult> {
    const server = await startFakeLlmServer();
    const fixture = makeFixture(server.anthropicBaseUrl);
    prepareProject(fixture);
    const snapshots = process.env.BENCH_SOAK_HEAP_DIR;
    const north = spawnNorthPty({
        args: ["--path", fixture.repo],
        env: snapshots
            ? {
                  ...fixture.env,
                  NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}`,
              }
            : fixture.env,
        cwd: fixture.repo,
        cols: COLS,
        rows: ROWS,
        bin,
    });
    const samples: Sample[] = [];
    let stuckGuards = 0;
    let summaries = 0;
    server.enqueue(summaryReply());
    try {
        await north.waitFor(
            () => north.hasExited() || isAppReady(north),
            30_000,
            "the composer and status line"
        );
        if (north.hasExited()) throw new Error(`north exited early:\n${north.screenText()}`);
        await north.waitForQuiet(100);
        const started = performance.now();
        let floor = Number.POSITIVE_INFINITY;
        let snapshotCpuMs = 0;
        for (let turn = 1; turn <= turns; turn++) {
            if ((await runTurn(north, server, turn)).stuckGuard) stuckGuards++;
            summaries += settleRequests(server);
            const untilSample = (SAMPLE_EVERY - (turn % SAMPLE_EVERY)) % SAMPLE_EVERY;
            if (turn !== 1 && untilSample >= FLOOR_TURNS) continue;
            const rss = rssMb(north.pid);
            if (rss === null) throw new Error("no /proc/PID/status: the soak needs Linux");
            floor = Math.min(floor, rss);
            if (turn === 1 || untilSample === 0) {
                const sample: Sample = {
                    turn,
                    rssMb: rss,
                    floorMb: floor,
                    cpuMs: cpuMs(north.pid) - snapshotCpuMs,
                };
                samples.push(sample);
                floor = Number.POSITIVE_INFINITY;
                if (snapshots) {
                    const cpuBefore = cpuMs(north.pid);
                    sample.liveHeapMb = await heapSnapshot(north.pid, snapshots);
                    snapshotCpuMs += cpuMs(north.pid) - cpuBefore;
                }
                const seconds = ((performance.now() - started) / 1000).toFixed(0);
                console.log(
                    `  turn ${String(turn).padStart(5)}  RSS ${rss.toFixed(1)} MB (floor ${sample.floorMb.toFixed(1)})  ` +
                        `CPU ${(sample.cpuMs / 1000).toFixed(1)} s${sample.liveHeapMb === undefined ? "" : `  live heap ${sample.liveHeapMb.toFixed(1)} MB`}  (${seconds} s elapsed)`
                );
            }
        }
        const edited = readFileSync(join(fixture.repo, EDITED_FILE), "utf8");
        if (!edited.includes(`counter = ${lastEditThrough(turns)};`)) {
            throw new Error(`the edits did not all land: ${EDITED_FILE} holds ${edited}`);
        }
        return {
            samples,
            stuckGuards,
            summaries,
            seconds: (performance.now() - started) / 1000,
        };
    } finally {
        north.kill();
        await server.close();
        rmSync(fixture.repo, { recursive: true, force: true });
        rmSync(fixture.home, { recursive: true, force: true });
    }
}

const verdict = (ok: boolean): string => (ok ? "ok" : "OVER TARGET");

function report(label: string, { samples, stuckGuards, summaries, seconds }: SoakResult): void {
    const at = (turn: number): Sample => {
        const sample = samples.find((s) => s.turn === turn);
        if (!sample) throw new Error(`no sample at turn ${turn}`);
        return sample;
    };
    const last = samples.at(-1)!;
    console.log(
        `\n${label}: ${samples.at(-1)!.turn} turns in ${seconds.toFixed(0)} s, ${summaries} automatic summaries`
    );
    if (stuckGuards > 0) {
        console.log(`  reviews stuck on "${GUARDING_HINT}" (answered anyway): ${stuckGuards}`);
    }
    console.log(
        `  RSS (MB) by turn: ${samples.map((s) => `${s.turn}: ${s.rssMb.toFixed(1)}`).join(", ")}`
    );
    console.log(
        `  RSS floor (MB, lowest of the ${FLOOR_TURNS} turns up to it): ${samples.map((s) => `${s.turn}: ${s.floorMb.toFixed(1)}`).join(", ")}`
    );
    const blocks: string[] = [];
    for (let i = 1; i < samples.length; i++) {
        const from = samples[i - 1]!;
        const to = samples[i]!;
        if (from.turn % SAMPLE_EVERY !== 0) continue;
        blocks.push(
            `${from.turn}–${to.turn}: ${((to.cpuMs - from.cpuMs) / (to.turn - from.turn)).toFixed(1)}`
        );
    }
    console.log(`  CPU ms per turn by block: ${blocks.join(", ")}`);
    const growth = last.rssMb - at(SAMPLE_EVERY).rssMb;
    console.log(
        `  RSS after turn ${SAMPLE_EVERY}: ${at(SAMPLE_EVERY).rssMb.toFixed(1)} MB, after turn ${last.turn}: ${last.rssMb.toFixed(1)} MB ` +
            `(+${growth.toFixed(1)} MB) — target ≤ +30 MB: ${verdict(growth <= 30)}`
    );
    if (last.liveHeapMb !== undefined) {
        console.log(
            `  live JS heap after a full GC (MB) by turn: ${samples.map((s) => `${s.turn}: ${s.liveHeapMb?.toFixed(1)}`).join(", ")}`
        );
    }
    const floorGrowth = last.floorMb - at(SAMPLE_EVERY).floorMb;
    console.log(
        `  RSS floor after turn ${SAMPLE_EVERY}: ${at(SAMPLE_EVERY).floorMb.toFixed(1)} MB, after turn ${last.turn}: ${last.floorMb.toFixed(1)} MB ` +
            `(+${floorGrowth.toFixed(1)} MB) — target ≤ +30 MB: ${verdict(floorGrowth <= 30)}`
    );
    const perTurn = (from: number, to: number): number =>
        (at(to).cpuMs - at(from).cpuMs) / (to - from);
    const early = perTurn(SAMPLE_EVERY, 2 * SAMPLE_EVERY);
    const late = perTurn(last.turn - SAMPLE_EVERY, last.turn);
    console.log(
        `  CPU per turn: ${early.toFixed(1)} ms over turns ${SAMPLE_EVERY}–${2 * SAMPLE_EVERY}, ` +
            `${late.toFixed(1)} ms over turns ${last.turn - SAMPLE_EVERY}–${last.turn} ` +
            `(${(late / early).toFixed(2)}×) — target ≤ 1.2×: ${verdict(late <= 1.2 * early)}`
    );
}

export async function benchSoak(): Promise<void> {
    if (!Number.isInteger(TURNS) || TURNS < 2 * SAMPLE_EVERY || TURNS % SAMPLE_EVERY !== 0) {
        throw new Error(
            `BENCH_SOAK_TURNS must be a multiple of ${SAMPLE_EVERY}, at least ${2 * SAMPLE_EVERY}`
        );
    }
    const builds: Array<{ label: string; bin: string | undefined }> = [
        { label: "this build", bin: undefined },
    ];
    const baseline = process.env.BENCH_BASELINE;
    if (baseline) builds.push({ label: `baseline build (${baseline})`, bin: baseline });
    console.log(`\n## ${TURNS}-turn chat session in a ${COLS}×${ROWS} pty`);
    const results: Array<{ label: string; result: SoakResult }> = [];
    for (const build of builds) {
        console.log(`${build.label}:`);
        results.push({ label: build.label, result: await soak(build.bin, TURNS) });
    }
    for (const { label, result } of results) report(label, result);
}
