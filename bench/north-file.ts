/**
 * `npm run bench -- northfile`: kills North with SIGKILL at random moments
 * while it streams a NORTH_FILE block over an existing file, and counts how
 * often the original is byte-identical afterwards (it must always be).
 * `BENCH_KILLS` sets the number of kills (default 100).
 */
import { once } from "node:events";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PacedLlmServer, startPacedLlmServer } from "../test/kit/paced-llm-server";
import { isolatedHome, runNorth } from "../test/kit/run-north";

const KILLS = Number(process.env.BENCH_KILLS ?? 100);
const ORIGINAL_LINES = 20_000;
const BLOCK_CHUNKS = 60;
const LINES_PER_CHUNK = 40;
const EVENT_DELAY_MS = 4;
/** The answer has BLOCK_CHUNKS + 8 events: at least this long between its first and last. */
const STREAM_MS = (BLOCK_CHUNKS + 6) * EVENT_DELAY_MS;
const SIDECAR = /^\.big\.txt\.north-\d+-[0-9a-f]{8}\.partial$/;

const lines = (count: number, word: string) =>
    Array.from({ length: count }, (_, i) => `${word} ${i + 1}`).join("\n") + "\n";

interface KillOutcome {
    intact: boolean;
    /** The kill landed inside the block: its sidecar was left behind. */
    midBlock: boolean;
}

async function killOnce(
    server: PacedLlmServer,
    repo: string,
    original: string,
    env: NodeJS.ProcessEnv
): Promise<KillOutcome> {
    const target = join(repo, "big.txt");
    const chunks = ['Rewriting it.\n<NORTH_FILE path="big.txt">\n'];
    for (let i = 0; i < BLOCK_CHUNKS; i++) chunks.push(lines(LINES_PER_CHUNK, `new ${i}`));
    chunks.push("</NORTH_FILE>\nDone.");
    server.enqueue({ text: chunks, eventDelayMs: EVENT_DELAY_MS });
    let kill = (): void => undefined;
    const run = runNorth(["-p", "rewrite big.txt", "--path", repo], {
        env,
        onSpawn: (child) => (kill = () => void child.kill("SIGKILL")),
    });
    await Promise.race([once(server.events, "first_byte"), run]);
    // A random moment between the answer's first byte and its last (each event waits
    // at least EVENT_DELAY_MS, so the answer is still streaming then).
    const timer = setTimeout(kill, Math.random() * STREAM_MS);
    const ended = await run;
    clearTimeout(timer);
    if (ended.signal !== "SIGKILL") throw new Error(`north ended before the kill: ${ended.stderr}`);
    const intact = readFileSync(target, "utf8") === original;
    const midBlock = readdirSync(repo).some((name) => SIDECAR.test(name));
    if (!intact) writeFileSync(target, original);
    return { intact, midBlock };
}

export async function benchNorthFile(): Promise<void> {
    const server = await startPacedLlmServer();
    const repo = mkdtempSync(join(tmpdir(), "north-bench-nf-"));
    const { home, env: isolated } = isolatedHome();
    const env = {
        ...isolated,
        ANTHROPIC_API_KEY: "bench-key",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    };
    const original = lines(ORIGINAL_LINES, "original line");
    writeFileSync(join(repo, "big.txt"), original);
    const started = performance.now();
    let intact = 0;
    let midBlock = 0;
    try {
        for (let i = 0; i < KILLS; i++) {
            const outcome = await killOnce(server, repo, original, env);
            if (outcome.intact) intact++;
            if (outcome.midBlock) midBlock++;
        }
        const seconds = (performance.now() - started) / 1000;
        // One normal (denied) run in the same directory clears what the kills left.
        server.enqueue({ text: '<NORTH_FILE path="big.txt">\nx\n</NORTH_FILE>' }, { text: "ok" });
        await runNorth(["-p", "rewrite big.txt", "--path", repo], { env });
        const left = readdirSync(repo).filter((name) => SIDECAR.test(name)).length;
        console.log(
            `\nNORTH_FILE kill -9 at ${KILLS} random moments (a ${BLOCK_CHUNKS * LINES_PER_CHUNK}-line block ` +
                `over a ${ORIGINAL_LINES.toLocaleString("en")}-line file, streamed over ≥ ${STREAM_MS} ms)`
        );
        console.log(
            `original byte-identical afterwards: ${intact}/${KILLS} (target ${KILLS}/${KILLS})`
        );
        console.log(
            `kills inside the block (a stale sidecar left): ${midBlock}; stale sidecars after the next run: ${left}`
        );
        console.log(
            `took ${seconds.toFixed(1)} s (${((seconds * 1000) / KILLS).toFixed(0)} ms per kill)`
        );
        if (intact < KILLS || left > 0) process.exitCode = 1;
    } finally {
        await server.close();
        rmSync(repo, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
    }
}
