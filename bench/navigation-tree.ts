/**
 * Navigation at scale: find_files and the @ file index on a generated
 * 100,000-file git repository (made in a temp dir, never committed), next to
 * `rg --files` and a bare recursive readdir measured in the same run, runs
 * interleaved so machine load hits every row alike. Target: both ≤ 1.5×
 * `rg --files`.
 *
 * The tree: 40 packages of nested source folders, a root .gitignore and one per
 * package (with a negation), ignored build output and logs, a node_modules
 * folder, a few symbolic links, and tracked files that a .gitignore matches
 * (the index is written with `git update-index --index-info`, so no file is
 * hashed).
 */
import { execFileSync } from "node:child_process";
import { promises as fs, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createFileIndex } from "../src/project/file-index";
import { createFindFilesTool } from "../src/tools/find-files";
import type { ToolContext } from "../src/tools/types";
import { ALWAYS_IGNORED_NAMES } from "../src/util/ignore-walk";
import { type Series, median, printTable, runOnce } from "./measure";

const FILES = 100_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const EMPTY_BLOB_SHA1 = "e69de29bb2d1d6434b8b29ae77e5c8b57d8e2ac8";

interface Tree {
    /** Every file written (tracked or not), repo-relative. */
    written: string[];
    /** Paths to put in the index. */
    tracked: string[];
}

async function writeTree(root: string): Promise<Tree> {
    const written: string[] = [];
    const tracked: string[] = [];
    const dirs = new Set<string>();
    const add = (rel: string, track: boolean) => {
        written.push(rel);
        if (track) tracked.push(rel);
        dirs.add(path.posix.dirname(rel));
    };
    add(".gitignore", true);
    add("README.md", true);
    let sources = 0;
    for (let pkg = 0; sources < FILES - 2_000; pkg++) {
        const base = `packages/p${String(pkg).padStart(2, "0")}`;
        add(`${base}/.gitignore`, true);
        add(`${base}/package.json`, true);
        add(`${base}/keep.tmp`, true);
        add(`${base}/drop.tmp`, false);
        add(`${base}/debug.log`, false);
        for (let i = 0; i < 20; i++) add(`${base}/dist/chunk${i}.js`, false);
        // Tracked although ignored: a checked-in build artefact and a generated file.
        add(`${base}/dist/index.js`, true);
        add(`${base}/src/api.generated.ts`, true);
        for (let mod = 0; mod < 10 && sources < FILES - 2_000; mod++) {
            for (let sub = 0; sub < 5; sub++) {
                for (let f = 0; f < 50; f++, sources++) {
                    add(`${base}/src/m${mod}/s${sub}/file${f}.ts`, true);
                }
            }
        }
    }
    for (let i = 0; i < 1_000; i++) add(`node_modules/dep${i % 50}/lib/f${i}.js`, false);
    await Promise.all([...dirs].map((dir) => fs.mkdir(path.join(root, dir), { recursive: true })));
    const text: Record<string, string> = {
        ".gitignore": "dist/\n*.log\n/coverage/\n*.generated.ts\n",
        "README.md": "# navigation tree\n",
    };
    const CONCURRENCY = 64;
    let next = 0;
    const worker = async () => {
        while (next < written.length) {
            const rel = written[next++]!;
            const content = rel.endsWith("/.gitignore") ? "*.tmp\n!keep.tmp\n" : (text[rel] ?? "");
            await fs.writeFile(path.join(root, rel), content);
        }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    // Symbolic links: git lists them by name; nothing is read through them.
    await fs.symlink("README.md", path.join(root, "README-link.md"));
    await fs.symlink("packages/p00/src", path.join(root, "src-link"));
    await fs.symlink(tmpdir(), path.join(root, "outside-link"));
    tracked.push("README-link.md", "src-link");
    return { written, tracked };
}

function makeIndex(root: string, tracked: string[]): void {
    execFileSync("git", ["init", "-q"], { cwd: root });
    const lines = tracked.map((rel) =>
        rel.endsWith("-link") || rel === "README-link.md"
            ? `120000 ${EMPTY_BLOB_SHA1} 0\t${rel}`
            : `100644 ${EMPTY_BLOB_SHA1} 0\t${rel}`
    );
    execFileSync("git", ["update-index", "--index-info"], {
        cwd: root,
        input: `${lines.join("\n")}\n`,
        maxBuffer: 1 << 28,
    });
}

function bareReaddir(dir: string): number {
    let count = 0;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.name === ".git") continue;
        if (entry.isDirectory()) count += bareReaddir(path.join(dir, entry.name));
        else count++;
    }
    return count;
}

function ripgrepAvailable(): boolean {
    try {
        execFileSync("rg", ["--version"], { stdio: "ignore" });
        return true;
    } catch {
        return false;
    }
}

/** `rg --files` with the flags search_text gives ripgrep (the same rules as the walk). */
function northRgArgs(): string[] {
    const args = ["--files", "--no-config", "--hidden", "--no-follow", "--no-require-git"];
    args.push("--no-ignore-global", "--no-ignore-parent");
    for (const name of ALWAYS_IGNORED_NAMES) args.push("--glob", `!${name}`);
    return args;
}

export async function benchNavigationTree(): Promise<void> {
    if (!ripgrepAvailable()) {
        console.log("\n## find_files / @ index on 100,000 files: skipped (rg is not on PATH)");
        return;
    }
    const root = await fs.realpath(await fs.mkdtemp(path.join(tmpdir(), "north-bench-tree-")));
    try {
        const started = performance.now();
        const tree = await writeTree(root);
        makeIndex(root, tree.tracked);
        console.log(
            `\n(generated ${tree.written.length.toLocaleString("en")} files, ` +
                `${tree.tracked.length.toLocaleString("en")} tracked, in ` +
                `${((performance.now() - started) / 1000).toFixed(1)} s)`
        );
        const ctx: ToolContext = { repoRoot: root, signal: new AbortController().signal };
        const findFiles = createFindFilesTool();
        let listed = 0;
        let indexed = 0;
        let rgListed = 0;
        const rows: Record<string, () => Promise<void>> = {
            "rg --files (baseline)": async () => {
                const run = await runOnce("rg", ["--files"], { cwd: root });
                rgListed = run.stdout.split("\n").length - 1;
            },
            "rg --files, North's flags": async () => {
                await runOnce("rg", northRgArgs(), { cwd: root });
            },
            "bare recursive readdirSync": async () => {
                bareReaddir(root);
            },
            'find_files "*.ts"': async () => {
                const result = await findFiles.execute({ pattern: "*.ts", limit: 50 }, ctx);
                if (!result.ok) throw new Error(result.error.message);
            },
            "@ file index build": async () => {
                indexed = (await createFileIndex(root).ready()).length;
            },
        };
        const all = await findFiles.execute({ pattern: "**", limit: 1 }, ctx);
        if (all.ok) listed = all.data.totalMatches;
        const samples = new Map<string, number[]>(Object.keys(rows).map((k) => [k, []]));
        for (const work of Object.values(rows)) await work();
        for (let i = 0; i < RUNS; i++) {
            for (const [label, work] of Object.entries(rows)) {
                const t = performance.now();
                await work();
                samples.get(label)!.push(performance.now() - t);
            }
        }
        const series: Series[] = [...samples].map(([label, walls]) => ({
            label,
            wallMs: median(walls),
            peakRssMb: null,
        }));
        printTable(
            `find_files and the @ index on ${tree.written.length.toLocaleString("en")} files (target ≤ 1.5× rg --files)`,
            series,
            series[0]!
        );
        console.log(
            `  listed: rg --files ${rgListed.toLocaleString("en")}, find_files ${listed.toLocaleString("en")}, ` +
                `@ index ${indexed.toLocaleString("en")} (North also lists tracked files a .gitignore ` +
                `matches, hidden files and symlinks; rg --files lists neither)`
        );
    } finally {
        await fs.rm(root, { recursive: true, force: true });
    }
}
