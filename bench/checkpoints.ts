/**
 * `npm run bench -- checkpoints`: what checkpoints cost and whether rewind
 * holds. (1) A one-line edit of a 20,000-line file through the real edit tool
 * (prepare + apply with fsync), with and without a checkpointer, interleaved,
 * median of `BENCH_EDITS` (default 60) each; with a new prompt before every
 * edit, so each one stores a copy of the file. (2) The store's size after
 * 1,000 such edits in one prompt and over 1,000 prompts. (3) `BENCH_KILLS`
 * (default 100) kill -9 of the built CLI during a checkpointed edit (half at
 * random moments of the edit, half right after a checkpoint record), each
 * followed by resume and `north rewind --to 1 --code`: byte-exact count.
 */
import { promises as fs, readdirSync, realpathSync, statSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ConversationCheckpoints, createCheckpointStore } from "../src/storage/checkpoints";
import { createEditReplaceExactTool } from "../src/tools/edit-replace-exact";
import type { FileCheckpointer, PreparedWrite, ToolContext } from "../src/tools/types";
import {
    type KillAim,
    type KillOutcome,
    killDuringEdit,
    measureEditWindow,
} from "../test/kit/checkpoint-kill";
import { startPacedLlmServer } from "../test/kit/paced-llm-server";
import { median } from "./measure";

const EDITS = Number(process.env.BENCH_EDITS ?? 60);
const KILLS = Number(process.env.BENCH_KILLS ?? 100);
const STORE_EDITS = 1000;

function bigFile(): string {
    const lines: string[] = [];
    for (let i = 0; lines.length < 20_000; i++) {
        lines.push(
            `export function handler${i}(input: Request, limit = ${i % 97}): Response {`,
            `    const parsed = parseRequest(input, "route-${i}");`,
            `    if (parsed.size > limit) return tooLarge(parsed, ${i});`,
            `    return respond(parsed, { id: ${i}, cache: "${i % 7 === 0 ? "no-store" : "default"}" });`,
            "}",
            ""
        );
    }
    return lines.slice(0, 20_000).join("\n") + "\n";
}

/** Edits line 3 of the big file, a different value each time; returns the ms taken. */
function editor(root: string) {
    const tool = createEditReplaceExactTool();
    let n = 0;
    return async (checkpoint?: FileCheckpointer): Promise<number> => {
        const ctx: ToolContext = {
            repoRoot: root,
            signal: new AbortController().signal,
            checkpoint,
        };
        const from = n === 0 ? "tooLarge(parsed, 0)" : `tooLarge(parsed, -${n})`;
        const input = { path: "big.ts", old_text: from, new_text: `tooLarge(parsed, -${n + 1})` };
        const started = performance.now();
        const prepared = await tool.execute(input, ctx);
        if (!prepared.ok) throw new Error(prepared.error.message);
        const applied = await (prepared.data as PreparedWrite).apply();
        if (!applied.ok) throw new Error(applied.error.message);
        n++;
        return performance.now() - started;
    };
}

function folderBytes(dir: string): { bytes: number; files: number } {
    let bytes = 0;
    let files = 0;
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue;
        bytes += statSync(path.join(entry.parentPath, entry.name)).size;
        files++;
    }
    return { bytes, files };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function withRepo<T>(run: (root: string, conv: ConversationCheckpoints) => Promise<T>) {
    const root = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "north-bench-cp-")));
    try {
        await fs.writeFile(path.join(root, "big.ts"), bigFile());
        const store = createCheckpointStore(path.join(root, ".data"), { autoPrune: false });
        return await run(root, store.forConversation("bench1"));
    } finally {
        await fs.rm(root, { recursive: true, force: true });
    }
}

async function benchOverhead(): Promise<void> {
    await withRepo(async (root, conv) => {
        const edit = editor(root);
        let prompt = 0;
        const checkpoint = conv.checkpointer(() => `p${prompt}`);
        const without: number[] = [];
        const withCp: number[] = [];
        const compress: number[] = [];
        for (let i = 0; i < 5; i++) await edit(checkpoint);
        for (let i = 0; i < EDITS; i++) {
            prompt++;
            withCp.push(await edit(checkpoint));
            // Compression normally runs 250 ms after the edit, between model turns.
            const started = performance.now();
            await conv.idle();
            compress.push(performance.now() - started);
            without.push(await edit());
        }
        const size = (await fs.stat(path.join(root, "big.ts"))).size;
        const a = median(without);
        const b = median(withCp);
        console.log(
            `\n## Checkpoint overhead: one-line edit of a 20,000-line file (${(size / 1024).toFixed(0)} KB), median of ${EDITS} each`
        );
        console.log(`edit (prepare + apply, fsync), no checkpointer      ${a.toFixed(2)} ms`);
        console.log(`edit with a checkpoint (a new prompt before each)   ${b.toFixed(2)} ms`);
        console.log(
            `difference: ${(b - a).toFixed(2)} ms (target ≤ 5 ms); background gzip of the copy afterwards: ${median(compress).toFixed(2)} ms (not in the edit)`
        );
    });
}

async function storeSize(label: string, promptPerEdit: boolean): Promise<void> {
    await withRepo(async (root, conv) => {
        const edit = editor(root);
        let prompt = 0;
        const checkpoint = conv.checkpointer(() => `p${prompt}`);
        for (let i = 0; i < STORE_EDITS; i++) {
            if (promptPerEdit) prompt++;
            await edit(checkpoint);
        }
        await conv.idle();
        const { bytes, files } = folderBytes(conv.dir);
        const fileSize = (await fs.stat(path.join(root, "big.ts"))).size;
        console.log(
            `${label.padEnd(40)}${mb(bytes).padStart(10)}  (${files} files; ${(bytes / fileSize).toFixed(1)}× the file)`
        );
    });
}

async function benchKills(): Promise<void> {
    const server = await startPacedLlmServer();
    const repo = mkdtempSync(path.join(tmpdir(), "north-bench-kill-"));
    const env = { ANTHROPIC_API_KEY: "bench-key", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    const started = performance.now();
    try {
        const window = await measureEditWindow(server, repo, env);
        const outcomes: KillOutcome[] = [];
        for (let i = 0; i < KILLS; i++) {
            const aim: KillAim = i % 2 === 0 ? "answer" : "checkpoint";
            const at = aim === "answer" ? Math.random() * window * 1.2 : Math.random() * 3;
            const outcome = await killDuringEdit(server, repo, env, at, aim);
            if (!outcome.exact) console.log(`kill ${i + 1}: not restored: ${outcome.detail}`);
            outcomes.push(outcome);
        }
        const count = (p: (o: KillOutcome) => boolean) => outcomes.filter(p).length;
        const exact = count((o) => o.exact);
        console.log(
            `\n## kill -9 during a checkpointed edit (batch: 20,000-line CRLF file, BOM file, new file), ${KILLS} kills`
        );
        console.log(
            `killed: ${count((o) => o.killed)}; files at the kill: ${count((o) => o.atKill === "original")} as before, ` +
                `${count((o) => o.atKill === "mixed")} some changed, ${count((o) => o.atKill === "edited")} all changed; ` +
                `with a checkpoint already recorded: ${count((o) => o.records > 0)}`
        );
        console.log(
            `rewind (after resume) restored byte-exact: ${exact}/${KILLS} (target ${KILLS}/${KILLS})`
        );
        const seconds = (performance.now() - started) / 1000;
        console.log(`edit window ${window.toFixed(0)} ms; took ${seconds.toFixed(1)} s`);
        if (exact < KILLS) process.exitCode = 1;
    } finally {
        await server.close();
        rmSync(repo, { recursive: true, force: true });
    }
}

export async function benchCheckpoints(): Promise<void> {
    await benchOverhead();
    console.log(`\n## Checkpoint store after ${STORE_EDITS} edits of that file`);
    await storeSize(`${STORE_EDITS} edits in one prompt`, false);
    await storeSize(`${STORE_EDITS} edits over ${STORE_EDITS} prompts`, true);
    await benchKills();
}
