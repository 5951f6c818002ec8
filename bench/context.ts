/**
 * Prompt-caching bench: a scripted 50-turn tool loop through `north -p`
 * against the fake Anthropic server, then Anthropic's prefix cache simulated
 * on the recorded request bodies (5-minute cache, breakpoints where North put
 * `cache_control`) and priced with the catalogue.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUILTIN_MODELS } from "../src/providers/catalogue";
import { type FakeTurn, startFakeLlmServer } from "../test/kit/fake-llm-server";
import { runOnce } from "./measure";

const NORTH = fileURLToPath(new URL("../bin/north.js", import.meta.url));
const TURNS = Number(process.env.BENCH_TURNS ?? 50);

interface Unit {
    text: string;
    breakpoint: boolean;
}

function hasCacheControl(value: unknown): boolean {
    return JSON.stringify(value).includes('"cache_control"');
}

function strip(value: unknown): string {
    return JSON.stringify(value, (key, v: unknown) => (key === "cache_control" ? undefined : v));
}

/** Splits a Messages request into cacheable units in Anthropic's order: tools, system, messages. */
function units(body: { tools?: unknown[]; system?: unknown; messages: unknown[] }): Unit[] {
    const out: Unit[] = [];
    out.push({ text: strip(body.tools ?? []), breakpoint: hasCacheControl(body.tools ?? []) });
    out.push({ text: strip(body.system ?? ""), breakpoint: hasCacheControl(body.system ?? "") });
    for (const message of body.messages)
        out.push({ text: strip(message), breakpoint: hasCacheControl(message) });
    return out;
}

const tokens = (chars: number): number => chars / 3.5;

export interface CacheFigures {
    requests: number;
    totalInput: number;
    totalRead: number;
    totalWrite: number;
    /** Requests after the first: what the cache can serve. */
    laterInput: number;
    laterRead: number;
}

/** Anthropic's prefix cache simulated over recorded request bodies (one 5-minute window). */
export function simulatePrefixCache(bodies: readonly unknown[]): CacheFigures {
    const cached = new Set<string>();
    const figures: CacheFigures = {
        requests: bodies.length,
        totalInput: 0,
        totalRead: 0,
        totalWrite: 0,
        laterInput: 0,
        laterRead: 0,
    };
    bodies.forEach((body, index) => {
        const parts = units(body as { messages: unknown[] });
        const prefixHashes: string[] = [];
        const hash = createHash("sha256");
        const prefixChars: number[] = [];
        let chars = 0;
        for (const part of parts) {
            hash.update(part.text);
            prefixHashes.push(hash.copy().digest("hex"));
            chars += part.text.length;
            prefixChars.push(chars);
        }
        let readUpTo = -1;
        for (let i = parts.length - 1; i >= 0; i--) {
            if (cached.has(prefixHashes[i]!)) {
                readUpTo = i;
                break;
            }
        }
        let lastBreakpoint = -1;
        parts.forEach((p, i) => {
            if (p.breakpoint) {
                lastBreakpoint = i;
                cached.add(prefixHashes[i]!);
            }
        });
        const all = tokens(chars);
        const read = readUpTo >= 0 ? tokens(prefixChars[readUpTo]!) : 0;
        const written = lastBreakpoint > readUpTo ? tokens(prefixChars[lastBreakpoint]!) - read : 0;
        figures.totalInput += all;
        figures.totalRead += read;
        figures.totalWrite += written;
        if (index > 0) {
            figures.laterInput += all;
            figures.laterRead += read;
        }
    });
    return figures;
}

/**
 * Runs `north -p` through a scripted tool loop of `turns` requests (reading
 * a long file 40 lines at a time) and returns the request bodies it sent.
 * `setup` prepares the repository and the isolated home first.
 */
export async function recordToolLoop(o: {
    turns: number;
    setup?: (dirs: { repo: string; home: string; configDir: string; dataDir: string }) => void;
}): Promise<unknown[]> {
    const server = await startFakeLlmServer();
    const repo = mkdtempSync(join(tmpdir(), "north-bench-ctx-"));
    const home = mkdtempSync(join(tmpdir(), "north-bench-home-"));
    const configDir = join(home, "c");
    const dataDir = join(home, "d");
    try {
        mkdirSync(join(repo, "src"));
        const lines = Array.from(
            { length: 2000 },
            (_, i) => `export function step${i}(x: number): number { return x + ${i}; }`
        );
        writeFileSync(join(repo, "src", "steps.ts"), lines.join("\n") + "\n");
        o.setup?.({ repo, home, configDir, dataDir });
        const turns: FakeTurn[] = [];
        for (let i = 0; i < o.turns - 1; i++) {
            turns.push({
                text: `Reading part ${i + 1}.`,
                toolCalls: [
                    {
                        name: "read_file",
                        input: {
                            path: "src/steps.ts",
                            range: { start: i * 40 + 1, end: i * 40 + 40 },
                        },
                    },
                ],
            });
        }
        turns.push({ text: "All steps add their index." });
        server.enqueue(...turns);
        const run = await runOnce(
            process.execPath,
            [NORTH, "-p", "walk through src/steps.ts", "--path", repo, "--output-format", "json"],
            {
                env: {
                    PATH: process.env.PATH,
                    HOME: home,
                    ANTHROPIC_API_KEY: "bench",
                    ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
                    NORTH_CONFIG_DIR: configDir,
                    NORTH_DATA_DIR: dataDir,
                    XDG_STATE_HOME: join(home, "s"),
                },
            }
        );
        if (run.code !== 0) throw new Error(`north failed: ${run.stderr}`);
        return server.requests.map((request) => request.body);
    } finally {
        await server.close();
        rmSync(repo, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
    }
}

/** The share of input read from the cache after the first request, in per cent. */
export function laterCacheShare(figures: CacheFigures): number {
    return (figures.laterRead / figures.laterInput) * 100;
}

export async function benchContext(): Promise<void> {
    // BENCH_MEMORY_KB=8: a project memory of that size, which must not break the cache.
    const memoryKb = Number(process.env.BENCH_MEMORY_KB ?? 0);
    const bodies = await recordToolLoop({
        turns: TURNS,
        setup: ({ repo }) => {
            if (memoryKb <= 0) return;
            mkdirSync(join(repo, ".north", "memory"), { recursive: true });
            const note = "- The build uses esbuild; tests run with vitest.\n";
            writeFileSync(
                join(repo, ".north", "memory", "MEMORY.md"),
                note.repeat(Math.ceil((memoryKb * 1024) / note.length))
            );
        },
    });
    const figures = simulatePrefixCache(bodies);
    const { totalInput, totalRead, totalWrite } = figures;
    const pricing = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!.pricing!;
    const uncachedCost = (totalInput * pricing.input) / 1e6;
    const cachedCost =
        ((totalInput - totalRead - totalWrite) * pricing.input +
            totalRead * pricing.cacheRead +
            totalWrite * pricing.cacheWrite) /
        1e6;
    console.log(
        `\n## Prompt caching over a ${TURNS}-turn tool loop (sonnet-4 prices, ${figures.requests} requests)`
    );
    console.log(`input tokens sent (≈ chars/3.5):      ${Math.round(totalInput).toLocaleString()}`);
    console.log(`billed input, no caching (baseline):  $${uncachedCost.toFixed(4)}`);
    console.log(
        `billed input, with North's caching:   $${cachedCost.toFixed(4)}  (${(cachedCost / uncachedCost).toFixed(3)}× baseline; target ≤ 0.35×)`
    );
    console.log(
        `share read from cache after request 1: ${laterCacheShare(figures).toFixed(1)} %  (target ≥ 85 %)`
    );
}
