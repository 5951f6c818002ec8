/**
 * A deterministic source-like tree for the search benchmark: nested packages of
 * TypeScript files, a root and some nested .gitignore files, ignored build output,
 * a node_modules folder, and a query term on a few percent of the files.
 */
import { promises as fs } from "node:fs";
import path from "node:path";

/** The identifier the benchmark searches for; it appears in about 3% of files. */
export const SEARCH_TREE_QUERY = "retryWithBackoff";

/** Small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

const WORDS = [
    "config",
    "session",
    "request",
    "handler",
    "stream",
    "buffer",
    "cache",
    "token",
    "client",
    "server",
    "parser",
    "render",
    "index",
    "queue",
    "worker",
    "state",
];

function sourceFile(rand: () => number, id: number): string {
    const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
    const lines: string[] = [`import { ${word()}Utils } from "../shared/${word()}";`, ""];
    const functions = 3 + Math.floor(rand() * 5);
    for (let f = 0; f < functions; f++) {
        const name = `${word()}${word().replace(/^./, (c) => c.toUpperCase())}${id}_${f}`;
        lines.push(
            `export async function ${name}(input: string, limit = ${f + 1}): Promise<number> {`
        );
        const body = 3 + Math.floor(rand() * 6);
        for (let b = 0; b < body; b++) {
            lines.push(
                `    const ${word()}${b} = input.length * ${b} + limit; // ${word()} ${word()}`
            );
        }
        if (rand() < 0.006) lines.push(`    await ${SEARCH_TREE_QUERY}(() => fetch(input), 3);`);
        lines.push(`    return limit;`, `}`, "");
    }
    return lines.join("\n");
}

async function writeAll(jobs: Array<[string, string]>): Promise<void> {
    const CONCURRENCY = 64;
    let next = 0;
    const worker = async () => {
        while (next < jobs.length) {
            const [file, text] = jobs[next++]!;
            await fs.writeFile(file, text);
        }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/**
 * Writes about `files` searchable files under `dir` (plus some ignored ones):
 * packages/pNN/src/mMM/sKK/fileN.ts, 50 files per leaf directory.
 */
export async function makeSearchTree(dir: string, files = 50_000): Promise<void> {
    const rand = random(0x5eed);
    const perLeaf = 50;
    const leaves = Math.max(1, Math.ceil(files / perLeaf));
    const jobs: Array<[string, string]> = [];
    await fs.mkdir(dir, { recursive: true });
    jobs.push([path.join(dir, ".gitignore"), "build/\n*.generated.ts\n/coverage/\n"]);
    jobs.push([
        path.join(dir, "README.md"),
        `# search tree\n\nUse ${SEARCH_TREE_QUERY} for retries.\n`,
    ]);
    let written = 0;
    for (let leaf = 0; leaf < leaves; leaf++) {
        const pkg = `p${String(Math.floor(leaf / 50)).padStart(2, "0")}`;
        const mod = `m${Math.floor(leaf / 5) % 10}`;
        const sub = `s${leaf % 5}`;
        const leafDir = path.join(dir, "packages", pkg, "src", mod, sub);
        await fs.mkdir(leafDir, { recursive: true });
        for (let i = 0; i < perLeaf && written < files; i++, written++) {
            jobs.push([path.join(leafDir, `file${i}.ts`), sourceFile(rand, written)]);
        }
        if (leaf % 50 === 0) {
            const pkgDir = path.join(dir, "packages", pkg);
            await fs.mkdir(path.join(pkgDir, "build"), { recursive: true });
            jobs.push([path.join(pkgDir, ".gitignore"), "*.tmp\n!keep.tmp\n"]);
            jobs.push([path.join(pkgDir, "keep.tmp"), `${SEARCH_TREE_QUERY} kept\n`]);
            jobs.push([path.join(pkgDir, "drop.tmp"), `${SEARCH_TREE_QUERY} dropped\n`]);
            jobs.push([path.join(pkgDir, "build", "out.js"), `${SEARCH_TREE_QUERY}();\n`]);
            jobs.push([path.join(pkgDir, "api.generated.ts"), `${SEARCH_TREE_QUERY}();\n`]);
        }
    }
    await fs.mkdir(path.join(dir, "node_modules", "dep"), { recursive: true });
    jobs.push([path.join(dir, "node_modules", "dep", "index.js"), `${SEARCH_TREE_QUERY}();\n`]);
    await writeAll(jobs);
}
