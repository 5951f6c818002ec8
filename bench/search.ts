/**
 * search_text on a 50,000-file tree: raw `rg --json QUERY .` (spawned and drained
 * in-process) against North's search_text with ripgrep and with the JavaScript
 * engine. Target: North with ripgrep ≤ 1.3× raw rg.
 */
import { spawn } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findRipgrep, ripgrepArgs } from "../src/tools/search-ripgrep";
import { MAX_SEARCH_FILE_BYTES, createSearchTextTool } from "../src/tools/search-text";
import { type Series, median, printTable } from "./measure";
import { SEARCH_TREE_QUERY, makeSearchTree } from "./search-tree";

const FILES = Number(process.env.BENCH_SEARCH_FILES ?? 50_000);
const RUNS = Number(process.env.BENCH_SEARCH_RUNS ?? 5);
const WORK = fileURLToPath(new URL("./.work/", import.meta.url));

export interface SearchBenchRow extends Series {
    /** Median wall time divided by raw rg's (null when rg is missing). */
    ratio: number | null;
}

export interface SearchBench {
    name: string;
    rows: SearchBenchRow[];
}

/** The benchmark tree, generated once and reused (bench/.work is git-ignored). */
async function ensureTree(): Promise<string> {
    const dir = path.join(WORK, `search-tree-${FILES}`);
    const marker = path.join(dir, ".north-bench-complete");
    if (!existsSync(marker)) {
        await fs.rm(dir, { recursive: true, force: true });
        await makeSearchTree(dir, FILES);
        await fs.writeFile(marker, "");
    }
    return dir;
}

/** Spawns rg and drains its stdout, like a consumer that does nothing with it. */
function rawRipgrep(rgPath: string, dir: string, args: string[]): Promise<void> {
    return new Promise((resolve, reject) => {
        const child = spawn(rgPath, args, {
            cwd: dir,
            stdio: ["ignore", "pipe", "ignore"],
        });
        child.stdout.on("data", () => undefined);
        child.once("error", reject);
        child.once("close", (code) =>
            code === 0 ? resolve() : reject(new Error(`rg exit ${code}`))
        );
    });
}

async function time(label: string, run: () => Promise<unknown>): Promise<Series> {
    await run();
    const walls: number[] = [];
    for (let i = 0; i < RUNS; i++) {
        const started = performance.now();
        await run();
        walls.push(performance.now() - started);
    }
    return { label, wallMs: median(walls), peakRssMb: null };
}

export async function benchSearch(): Promise<SearchBench> {
    const dir = await ensureTree();
    const rgPath = await findRipgrep();
    const ctx = { repoRoot: await fs.realpath(dir), signal: new AbortController().signal };
    const args = { query: SEARCH_TREE_QUERY, regex: false, caseSensitive: false, limit: 50 };
    const withRg = createSearchTextTool();
    const withJs = createSearchTextTool({ ripgrepPath: null });
    const execute = async (tool: typeof withRg, engine: string) => {
        const result = await tool.execute(args, ctx);
        if (!result.ok || result.data.engine !== engine) {
            throw new Error(`search_text (${engine}) failed: ${JSON.stringify(result)}`);
        }
    };

    const rows: Series[] = [];
    if (rgPath) {
        const plain = ["--json", SEARCH_TREE_QUERY, "."];
        rows.push(
            await time(`raw rg --json ${SEARCH_TREE_QUERY}`, () => rawRipgrep(rgPath, dir, plain))
        );
        // The same search with the flags North passes (ignore rules, size cap, case folding).
        const flags = ripgrepArgs(`(?i)${SEARCH_TREE_QUERY}`, "", MAX_SEARCH_FILE_BYTES, false);
        rows.push(await time("raw rg with North's flags", () => rawRipgrep(rgPath, dir, flags)));
        rows.push(await time("North search_text (ripgrep)", () => execute(withRg, "ripgrep")));
    }
    rows.push(await time("North search_text (JS engine)", () => execute(withJs, "js")));

    const baseline = rgPath ? rows[0]! : null;
    const title = `search_text on ${FILES.toLocaleString("en-US")} files, ${RUNS} runs (target ripgrep ≤ 1.3× raw rg)`;
    if (baseline) printTable(title, rows, baseline);
    else {
        console.log(`\n## ${title}\nrg is not on PATH; only the JS engine was measured.`);
        printTable(title, rows, rows[0]!);
    }
    return {
        name: "search",
        rows: rows.map((row) => ({
            ...row,
            ratio: baseline ? row.wallMs / baseline.wallMs : null,
        })),
    };
}
