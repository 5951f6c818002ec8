/**
 * `npm run bench -- tui`: the interactive app in a real pseudo-terminal
 * (the same harness as test/ui), against a model server that streams at a
 * steady pace. Same-run comparisons:
 *
 * - launch to composer visible (median; target ≤ 2× bare node in the same pty);
 * - keystroke to echo with 2,000 transcript entries vs 10 (target ≤ 1.2×);
 * - bytes written to the terminal per 1,000 streamed tokens, 2,000 vs 10 entries (≤ 1.2×);
 * - RSS growth from 10 to 2,000 entries (≤ 100 MB, VmRSS of the north process);
 * - keys honoured when typed 20 ms apart while an answer streams (target 100 %);
 * - command reviews answered by a key pressed 50 ms after the review draws (target 20/20).
 *
 * - PageUp to the moved view and bytes per PageUp at 2,000 entries vs 200 (≤ 50 ms).
 *
 * `BENCH_TUI_PART=keys` runs only the keys figures, `BENCH_TUI_PART=pageup` only PageUp.
 *
 * Long transcripts come from conversation logs written with the storage API
 * and opened with `north --resume ID`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as nodePty from "@lydell/node-pty";
import { DEFAULT_MODEL_ID } from "../src/providers/catalogue";
import { createConversationStore } from "../src/storage/conversations";
import { encodeReply, type FakeReplyTurn } from "../test/kit/fake-llm-wire";
import { declineLearning, isAppReady, rssMb, spawnNorthPty, type PtyNorth } from "../test/kit/pty";
import { median } from "./measure";

const LAUNCH_RUNS = Number(process.env.BENCH_TUI_LAUNCHES ?? 7);
const KEYSTROKES = Number(process.env.BENCH_TUI_KEYS ?? 25);
const STREAM_TOKENS = 1000;
/** Tokens the paced server sends per second (fast, but spread over many frames). */
const TOKENS_PER_SECOND = 500;
const COLS = 100;
const ROWS = 30;

// ---------------------------------------------------------------- a paced model server

interface PacedServer {
    url: string;
    /** `instant`: send the whole reply at once (for building a transcript). */
    enqueue(turn: FakeReplyTurn, instant?: boolean): void;
    close(): Promise<void>;
}

/** Speaks the Anthropic Messages stream, one SSE event every 1000/TOKENS_PER_SECOND ms. */
async function startPacedServer(): Promise<PacedServer> {
    const queue: Array<{ turn: FakeReplyTurn; instant: boolean }> = [];
    const timers = new Set<NodeJS.Timeout>();
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
        req.resume();
        req.on("end", () => {
            const next = queue.shift() ?? {
                turn: { text: "(no scripted turn left)" },
                instant: true,
            };
            const frames = encodeReply("anthropic", DEFAULT_MODEL_ID, next.turn);
            res.writeHead(200, { "content-type": "text/event-stream" });
            if (next.instant) {
                res.end(frames.join(""));
                return;
            }
            const interval = 1000 / TOKENS_PER_SECOND;
            const started = performance.now();
            let sent = 0;
            const pump = (): void => {
                timers.delete(timer);
                if (res.destroyed) return;
                // Catch up to the schedule in one write (timers are coarse).
                const due = Math.min(
                    frames.length,
                    Math.floor((performance.now() - started) / interval) + 1
                );
                if (due > sent) res.write(frames.slice(sent, due).join(""));
                sent = due;
                if (sent >= frames.length) res.end();
                else {
                    timer = setTimeout(pump, interval);
                    timers.add(timer);
                }
            };
            let timer = setTimeout(pump, 0);
            timers.add(timer);
        });
    });
    const sockets = new Set<Socket>();
    server.on("connection", (s) => {
        sockets.add(s);
        s.on("close", () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
        url: `http://127.0.0.1:${port}`,
        enqueue: (turn, instant = false) => void queue.push({ turn, instant }),
        close: () =>
            new Promise<void>((resolve) => {
                for (const t of timers) clearTimeout(t);
                for (const s of sockets) s.destroy();
                server.close(() => resolve());
            }),
    };
}

// ---------------------------------------------------------------- fixtures

export interface Fixture {
    repo: string;
    home: string;
    env: NodeJS.ProcessEnv;
}

export function makeFixture(serverUrl: string): Fixture {
    const repo = mkdtempSync(join(tmpdir(), "north-bench-tui-repo-"));
    mkdirSync(join(repo, "src"));
    writeFileSync(join(repo, "src", "index.ts"), "export const answer = 42;\n");
    const home = mkdtempSync(join(tmpdir(), "north-bench-tui-home-"));
    const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_API_KEY: "bench-key",
        ANTHROPIC_BASE_URL: serverUrl,
        NORTH_CONFIG_DIR: join(home, "config"),
        NORTH_DATA_DIR: join(home, "data"),
        XDG_STATE_HOME: join(home, "state"),
    };
    // Keys typed by the bench must reach the composer, not the first-start learning question.
    declineLearning(join(home, "data"), repo);
    return { repo, home, env };
}

/** Writes a conversation of `entries` messages (alternating user / assistant) and returns its id. */
export function writeConversation(fixture: Fixture, entries: number): string {
    const store = createConversationStore(join(fixture.home, "data", "conversations"));
    const log = store.start({
        repoRoot: fixture.repo,
        model: DEFAULT_MODEL_ID,
        firstPrompt: "question 0",
    });
    for (let i = 0; i < entries; i++) {
        const n = Math.floor(i / 2);
        const entry =
            i % 2 === 0
                ? {
                      id: `m${i + 1}`,
                      role: "user",
                      content: `question ${n}: how does module ${n} of the pipeline work?`,
                  }
                : {
                      id: `m${i + 1}`,
                      role: "assistant",
                      content: [
                          {
                              type: "text",
                              text: `reply ${n}: module ${n} reads the queue, retries twice, then writes the result to the store.`,
                          },
                      ],
                  };
        const result = log.append({ type: "entry_added", entry });
        if (!result.ok) throw new Error(result.error);
    }
    log.close();
    return log.id;
}

// ---------------------------------------------------------------- measurements

/** Starts North (`bin`: another build's bin/north.js) and waits for its composer. */
export async function launch(
    fixture: Fixture,
    args: string[] = [],
    options: { bin?: string; cols?: number; rows?: number } = {}
): Promise<{ north: PtyNorth; ms: number }> {
    const started = performance.now();
    const north = spawnNorthPty({
        args: ["--path", fixture.repo, ...args],
        env: fixture.env,
        cwd: fixture.repo,
        cols: options.cols ?? COLS,
        rows: options.rows ?? ROWS,
        bin: options.bin,
    });
    await north.waitFor(
        () => north.hasExited() || isAppReady(north),
        30_000,
        "the composer and status line"
    );
    if (north.hasExited()) {
        const screen = north.screenText();
        north.kill();
        throw new Error(`north exited before the app was ready; screen:\n${screen}`);
    }
    return { north, ms: performance.now() - started };
}

/** Bare node writing one word in a pty: the floor for any launch. */
export async function bareNodeLaunch(node = process.execPath): Promise<number> {
    const started = performance.now();
    const pty = nodePty.spawn(node, ["-e", "process.stdout.write('ready')"], {
        cols: COLS,
        rows: ROWS,
    });
    await new Promise<void>((resolve) => {
        let out = "";
        pty.onData((d) => {
            out += d;
            if (out.includes("ready")) resolve();
        });
    });
    const ms = performance.now() - started;
    pty.kill();
    return ms;
}

/** Median time from a key written to the pty until the screen shows it. */
/** Longer than Ink's 33 ms frame window (maxFps 30). */
const KEY_GAP_MS = 50;

async function keystrokeEcho(north: PtyNorth): Promise<number> {
    const alphabet = "qwxzjkvbpy";
    let typed = "Zq";
    north.type(typed);
    await north.waitForText(typed);
    const samples: number[] = [];
    for (let i = 0; i < KEYSTROKES + 5; i++) {
        const next = typed + alphabet[i % alphabet.length];
        // Ink redraws at most every 33 ms: a key typed inside that window waits for it,
        // whatever the transcript holds. Typing at a human pace measures the echo itself.
        await new Promise((resolve) => setTimeout(resolve, KEY_GAP_MS));
        const started = performance.now();
        north.type(next.slice(-1));
        await north.waitForText(next, 10_000);
        if (i >= 5) samples.push(performance.now() - started);
        typed = next;
    }
    // Clear the composer again.
    north.type("\x7f".repeat(typed.length));
    await north.waitFor(() => !north.screenText().includes("Zq"), 10_000, "the composer cleared");
    await north.waitForQuiet(200);
    return median(samples);
}

/** Bytes North writes while 1,000 tokens stream in, from Enter until the output settles. */
async function streamBytes(north: PtyNorth, server: PacedServer): Promise<number> {
    const tokens = Array.from({ length: STREAM_TOKENS }, (_, i) => `tok${i + 1} `);
    server.enqueue({ text: tokens, usage: { output: STREAM_TOKENS } });
    const prompt = "stream a long answer";
    north.type(prompt);
    await north.waitForText(prompt);
    await north.waitForQuiet(200);
    const before = north.bytesWritten();
    north.type("\r");
    await north.waitForText(`tok${STREAM_TOKENS}`, 60_000);
    await north.waitForQuiet(500, 30_000);
    return north.bytesWritten() - before;
}

interface SizeFigures {
    entries: number;
    /** Where the long transcript came from. */
    source: "resumed log" | "built live";
    resumeMs: number;
    echoMs: number;
    bytes: number;
    rssReadyMb: number | null;
    rssAfterMb: number | null;
}

const TOOL_CALLS_PER_TURN = 200;

/**
 * Fills the transcript with about `entries` entries in one run: the prompt,
 * tool calls (one entry each) over several model turns, and a final answer.
 */
async function buildLive(north: PtyNorth, server: PacedServer, entries: number): Promise<void> {
    let calls = Math.max(0, entries - 2);
    while (calls > 0) {
        const count = Math.min(TOOL_CALLS_PER_TURN, calls);
        calls -= count;
        server.enqueue(
            {
                toolCalls: Array.from({ length: count }, () => ({
                    name: "get_line_count",
                    input: { path: "src/index.ts" },
                })),
            },
            true
        );
    }
    const done = `built ${entries} entries`;
    server.enqueue({ text: done }, true);
    const prompt = "fill the transcript";
    north.type(prompt);
    await north.waitForText(prompt);
    north.type("\r");
    await north.waitForText(done, 180_000);
    await north.waitForQuiet(300, 30_000);
}

/**
 * Opens a conversation of `entries` messages with `--resume`. When the app
 * does not draw resumed messages in its transcript, the transcript is built
 * live in a fresh session instead (the resume time is still reported).
 */
async function measureAtSize(
    fixture: Fixture,
    server: PacedServer,
    entries: number
): Promise<SizeFigures> {
    const id = writeConversation(fixture, entries);
    const resumed = await launch(fixture, ["--resume", id]);
    let north = resumed.north;
    let source: SizeFigures["source"] = "resumed log";
    try {
        const lastReply = `reply ${Math.floor((entries - 1) / 2)}:`;
        try {
            await north.waitForText(lastReply, 5_000);
            await north.waitForQuiet(300);
        } catch {
            north.kill();
            north = (await launch(fixture)).north;
            source = "built live";
            await buildLive(north, server, entries);
        }
        const rssReadyMb = rssMb(north.pid);
        const echoMs = await keystrokeEcho(north);
        const bytes = await streamBytes(north, server);
        return {
            entries,
            source,
            resumeMs: resumed.ms,
            echoMs,
            bytes,
            rssReadyMb,
            rssAfterMb: rssMb(north.pid),
        };
    } finally {
        north.kill();
    }
}

// ---------------------------------------------------------------- keys honoured

const TYPED_GAP_MS = 20;
const TYPED_DURING_STREAM = "thequickbrownfoxjumpsoverthelazydogagain";
const REVIEW_PRESSES = Number(process.env.BENCH_TUI_PRESSES ?? 20);
const PRESS_AFTER_DRAW_MS = 50;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The composer's text rows: from the last "❯ " row down to the status line. */
function composerRows(north: PtyNorth): string {
    const rows = north.screenText().split("\n");
    const first = rows.findLastIndex((row) => row.includes("❯ "));
    return first === -1 ? "" : rows.slice(first, -1).join("");
}

/** How many characters of `typed` appear, in order, in `shown`. */
function honoured(typed: string, shown: string): number {
    let at = 0;
    let count = 0;
    for (const ch of typed) {
        const found = shown.indexOf(ch, at);
        if (found === -1) continue;
        count++;
        at = found + 1;
    }
    return count;
}

/**
 * Types one key every 20 ms (each its own write) while 1,000 tokens stream
 * in; when the answer has ended, counts the keys the composer shows.
 */
async function keysWhileStreaming(north: PtyNorth, server: PacedServer): Promise<number> {
    const tokens = Array.from({ length: STREAM_TOKENS }, (_, i) => `tok${i + 1} `);
    server.enqueue({ text: tokens, usage: { output: STREAM_TOKENS } });
    const prompt = "stream while I type";
    north.type(prompt);
    await north.waitForText(prompt);
    north.type("\r");
    await north.waitForText("tok20 ", 30_000);
    for (const ch of TYPED_DURING_STREAM) {
        north.type(ch);
        await sleep(TYPED_GAP_MS);
    }
    const streaming = !north.screenText().includes(`tok${STREAM_TOKENS}`);
    await north.waitForText(`tok${STREAM_TOKENS}`, 60_000);
    await north.waitForQuiet(300, 30_000);
    const count = honoured(TYPED_DURING_STREAM, composerRows(north));
    if (!streaming) console.log("  (the answer ended before the last key: stream faster)");
    north.type("\x03"); // clears the composer
    await north.waitForQuiet(200);
    return count;
}

/**
 * Each press: a prompt whose answer asks to run a command; 50 ms after the
 * review is on screen, `d`. Honoured when the denial reaches the model.
 */
async function pressesAfterReviewDraws(north: PtyNorth, server: PacedServer): Promise<number> {
    let taken = 0;
    for (let i = 1; i <= REVIEW_PRESSES; i++) {
        server.enqueue(
            { toolCalls: [{ name: "shell_run", input: { command: `touch bench-${i}.txt` } }] },
            true
        );
        server.enqueue({ text: `left ${i} alone` }, true);
        const prompt = `press ${i}`;
        north.type(prompt);
        await north.waitForText(prompt);
        north.type("\r");
        await north.waitForText("[d] deny", 30_000);
        await sleep(PRESS_AFTER_DRAW_MS);
        north.type("d");
        try {
            await north.waitForText(`left ${i} alone`, 2_000);
            taken++;
        } catch {
            // Dropped: answer it now so the next press starts clean.
            while (!north.screenText().includes(`left ${i} alone`)) {
                north.type("d");
                await sleep(300);
            }
        }
        await north.waitForQuiet(100);
    }
    return taken;
}

export async function benchTuiKeys(server?: PacedServer): Promise<void> {
    const own = server ?? (await startPacedServer());
    const fixture = makeFixture(own.url);
    try {
        const { north } = await launch(fixture);
        try {
            await north.waitForQuiet(200);
            const keys = await keysWhileStreaming(north, own);
            const total = TYPED_DURING_STREAM.length;
            console.log(
                `keys honoured when typed ${TYPED_GAP_MS} ms apart during streaming: ${keys}/${total} ` +
                    `(${((100 * keys) / total).toFixed(0)} %) — target 100 %: ${verdict(keys === total)}`
            );
            const presses = await pressesAfterReviewDraws(north, own);
            console.log(
                `review answered by a key ${PRESS_AFTER_DRAW_MS} ms after it draws: ${presses}/${REVIEW_PRESSES} ` +
                    `— target ${REVIEW_PRESSES}/${REVIEW_PRESSES}: ${verdict(presses === REVIEW_PRESSES)}`
            );
        } finally {
            north.kill();
        }
    } finally {
        if (!server) await own.close();
        rmSync(fixture.repo, { recursive: true, force: true });
        rmSync(fixture.home, { recursive: true, force: true });
    }
}

// ---------------------------------------------------------------- PageUp

const PAGE_UPS = Number(process.env.BENCH_TUI_PAGEUPS ?? 15);
const PAGE_UP = "\x1b[5~";

/**
 * Median time from PageUp written to the pty until the screen shows the
 * moved view, and median bytes North writes for one PageUp, with a resumed
 * conversation of `entries` messages.
 */
async function pageUps(fixture: Fixture, entries: number): Promise<{ ms: number; bytes: number }> {
    const id = writeConversation(fixture, entries);
    const { north } = await launch(fixture, ["--resume", id]);
    try {
        await north.waitForText(`reply ${Math.floor((entries - 1) / 2)}:`, 30_000);
        await north.waitForQuiet(300);
        const times: number[] = [];
        const bytes: number[] = [];
        for (let i = 0; i < PAGE_UPS; i++) {
            const screen = north.screenText();
            const before = north.bytesWritten();
            const started = performance.now();
            north.type(PAGE_UP);
            await north.waitFor(() => north.screenText() !== screen, 10_000, "the view to move");
            times.push(performance.now() - started);
            await north.waitForQuiet(150);
            bytes.push(north.bytesWritten() - before);
        }
        return { ms: median(times), bytes: median(bytes) };
    } finally {
        north.kill();
    }
}

/** PageUp at 2,000 entries next to 200 (target ≤ 50 ms median). */
export async function benchTuiPageUp(): Promise<void> {
    const fixture = makeFixture("http://127.0.0.1:9");
    try {
        const small = await pageUps(fixture, 200);
        const large = await pageUps(fixture, 2000);
        console.log(
            `PageUp to the moved view (median of ${PAGE_UPS}): ${small.ms.toFixed(1)} ms at 200 entries, ` +
                `${large.ms.toFixed(1)} ms at 2,000 (${(large.ms / small.ms).toFixed(2)}×) — target ≤ 50 ms: ${verdict(large.ms <= 50)}`
        );
        console.log(
            `bytes to the terminal per PageUp (median): ${small.bytes.toLocaleString("en")} B at 200 entries, ` +
                `${large.bytes.toLocaleString("en")} B at 2,000 (${(large.bytes / small.bytes).toFixed(2)}×)`
        );
    } finally {
        rmSync(fixture.repo, { recursive: true, force: true });
        rmSync(fixture.home, { recursive: true, force: true });
    }
}

const fmt = (value: number | null, unit: string, digits = 1): string =>
    value === null ? "n/a" : `${value.toFixed(digits)} ${unit}`;

const verdict = (ok: boolean): string => (ok ? "ok" : "OVER TARGET");

export async function benchTui(): Promise<void> {
    if (process.env.BENCH_TUI_PART === "pageup") {
        console.log(`\n## PageUp in a ${COLS}×${ROWS} pty`);
        return benchTuiPageUp();
    }
    if (process.env.BENCH_TUI_PART === "keys") {
        console.log(`\n## Keys in a ${COLS}×${ROWS} pty`);
        return benchTuiKeys();
    }
    const server = await startPacedServer();
    const fixture = makeFixture(server.url);
    try {
        console.log(`\n## Interactive app in a ${COLS}×${ROWS} pty`);

        await bareNodeLaunch();
        const bare: number[] = [];
        for (let i = 0; i < LAUNCH_RUNS; i++) bare.push(await bareNodeLaunch());
        const launches: number[] = [];
        for (let i = 0; i <= LAUNCH_RUNS; i++) {
            const { north, ms } = await launch(fixture);
            north.kill();
            if (i > 0) launches.push(ms); // the first run warms the disk cache
        }
        const launchMedian = median(launches);
        const launchRatio = launchMedian / median(bare);
        console.log(
            `launch to composer visible (median of ${LAUNCH_RUNS}): ${launchMedian.toFixed(1)} ms ` +
                `(bare node in a pty: ${median(bare).toFixed(1)} ms, ${launchRatio.toFixed(2)}×) — target ≤ 2×: ${verdict(launchRatio <= 2)}`
        );

        const small = await measureAtSize(fixture, server, 10);
        const large = await measureAtSize(fixture, server, 2000);
        const rows: Array<[string, string, string, string]> = [
            ["", "10 entries", "2,000 entries", "ratio / growth"],
            [
                "--resume to composer visible",
                fmt(small.resumeMs, "ms"),
                fmt(large.resumeMs, "ms"),
                `${(large.resumeMs / small.resumeMs).toFixed(2)}×`,
            ],
            [
                `keystroke to echo (median of ${KEYSTROKES})`,
                fmt(small.echoMs, "ms", 2),
                fmt(large.echoMs, "ms", 2),
                `${(large.echoMs / small.echoMs).toFixed(2)}×`,
            ],
            [
                `bytes to the terminal per ${STREAM_TOKENS.toLocaleString("en")} tokens`,
                `${small.bytes.toLocaleString("en")} B`,
                `${large.bytes.toLocaleString("en")} B`,
                `${(large.bytes / small.bytes).toFixed(2)}×`,
            ],
            [
                "RSS when ready (VmRSS)",
                fmt(small.rssReadyMb, "MB"),
                fmt(large.rssReadyMb, "MB"),
                small.rssReadyMb === null || large.rssReadyMb === null
                    ? "n/a"
                    : `+${(large.rssReadyMb - small.rssReadyMb).toFixed(1)} MB`,
            ],
            [
                "RSS after streaming (VmRSS)",
                fmt(small.rssAfterMb, "MB"),
                fmt(large.rssAfterMb, "MB"),
                small.rssAfterMb === null || large.rssAfterMb === null
                    ? "n/a"
                    : `+${(large.rssAfterMb - small.rssAfterMb).toFixed(1)} MB`,
            ],
        ];
        console.log(`transcript entries from: ${small.source} (10), ${large.source} (2,000)`);
        for (const [label, a, b, c] of rows) {
            console.log(`${label.padEnd(44)}${a.padStart(14)}${b.padStart(16)}${c.padStart(16)}`);
        }
        const echoRatio = large.echoMs / small.echoMs;
        const bytesRatio = large.bytes / small.bytes;
        const growth =
            small.rssAfterMb === null || large.rssAfterMb === null
                ? null
                : large.rssAfterMb - small.rssAfterMb;
        console.log(
            `targets: echo ≤ 1.2× ${verdict(echoRatio <= 1.2)}; bytes ≤ 1.2× ${verdict(bytesRatio <= 1.2)}; ` +
                `RSS growth ≤ 100 MB ${growth === null ? "n/a" : verdict(growth <= 100)}`
        );
        await benchTuiPageUp();
        await benchTuiKeys(server);
    } finally {
        await server.close();
        rmSync(fixture.repo, { recursive: true, force: true });
        rmSync(fixture.home, { recursive: true, force: true });
    }
}

// `tsx bench/tui.ts` runs it directly.
if (import.meta.url === `file://${process.argv[1]}`) {
    await benchTui();
}
