/**
 * `npm run bench -- project`: the @-mention file index on 100,000 files and
 * fuzzy queries over it, and two processes updating costs at once.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFileIndex } from "../src/project/file-index";
import { createCostStore } from "../src/storage/costs";
import { median } from "./measure";
import { makeSearchTree } from "./search-tree";

const FILES = 100_000;

function countFilesSync(dir: string): number {
    let count = 0;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.name === ".git" || entry.name === "node_modules") continue;
        if (entry.isDirectory()) count += countFilesSync(join(dir, entry.name));
        else count++;
    }
    return count;
}

export async function benchProject(): Promise<void> {
    const tree = fileURLToPath(new URL(`./.work/tree-${FILES}`, import.meta.url));
    if (!existsSync(join(tree, ".done"))) {
        rmSync(tree, { recursive: true, force: true });
        mkdirSync(tree, { recursive: true });
        await makeSearchTree(tree, FILES);
        mkdirSync(join(tree, ".done"));
    }
    const baseline: number[] = [];
    const builds: number[] = [];
    let size = 0;
    for (let i = 0; i < 5; i++) {
        let t = performance.now();
        countFilesSync(tree);
        baseline.push(performance.now() - t);
        t = performance.now();
        size = (await createFileIndex(tree).ready()).length;
        builds.push(performance.now() - t);
    }
    const index = createFileIndex(tree);
    await index.ready();
    const queries = [
        "retry",
        "srvc",
        "index.ts",
        "mod42/file",
        "zzzz",
        "a",
        "utils/helpers",
        "cfg",
    ];
    const times: number[] = [];
    for (let round = 0; round < 5; round++) {
        for (const q of queries) {
            const t = performance.now();
            index.search(q, 10);
            times.push(performance.now() - t);
        }
    }
    console.log(`\n## @-mention file index (${size.toLocaleString()} files indexed)`);
    console.log(
        `bare recursive readdir of the tree (baseline)   ${median(baseline).toFixed(1)} ms`
    );
    console.log(
        `index build (gitignore-aware, off the input)    ${median(builds).toFixed(1)} ms  (${(median(builds) / median(baseline)).toFixed(2)}×; target ≤ 400 ms)`
    );
    console.log(
        `fuzzy query, median of ${times.length}                    ${median(times).toFixed(2)} ms  (target ≤ 10 ms)`
    );

    const dir = mkdtempSync(join(tmpdir(), "north-bench-costs-"));
    try {
        const writer = fileURLToPath(
            new URL("../test/storage/fixtures/cost-writer.ts", import.meta.url)
        );
        const run = (model: string) =>
            new Promise<void>((resolve) => {
                spawn(process.execPath, ["--import", "tsx", writer, dir, model, "500"], {
                    stdio: "inherit",
                }).on("close", () => resolve());
            });
        const t = performance.now();
        await Promise.all([run("a"), run("b")]);
        const totals = createCostStore(dir).breakdown();
        const exact =
            totals.byModel.a?.inputTokens === 500 &&
            totals.byModel.b?.inputTokens === 500 &&
            Math.abs(totals.allTimeCostUsd - 1) < 1e-9;
        console.log(
            `two processes × 500 cost updates                 ${exact ? "totals exact" : "LOST UPDATES"} (${(performance.now() - t).toFixed(0)} ms)`
        );
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}
