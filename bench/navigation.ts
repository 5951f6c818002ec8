/**
 * Large-file navigation: get_file_outline and find_blocks on a generated
 * 20,000-line TypeScript file (target: median ≤ 50 ms each) next to a plain
 * `readFile` + `split("\n")` of the same file, and a scripted navigation
 * (outline → search in a line range → read_around) whose tool results are
 * compared with the whole file (target: ≤ 25 % of its characters). Then
 * navigation at scale: find_files and the @ index on 100,000 files next to
 * `rg --files` (bench/navigation-tree.ts).
 */
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createFindBlocksTool } from "../src/tools/find-blocks";
import { createGetFileOutlineTool } from "../src/tools/get-file-outline";
import { createReadAroundTool } from "../src/tools/read-around";
import type { OutlineItem } from "../src/tools/structure/outline";
import type { ToolContext, ToolResult } from "../src/tools/types";
import { type Series, median, printTable } from "./measure";
import { benchNavigationTree } from "./navigation-tree";

const LINES = 20_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const FILE = "src/orders/service.ts";

/** One ~250-line module section: interfaces, an enum, a class with methods, functions. */
function section(n: number): string[] {
    const out = [
        `/**`,
        ` * Order handling, part ${n}: validation, pricing and persistence.`,
        ` * Braces in comments { like this } must not confuse the parser.`,
        ` */`,
        `export interface OrderLine${n} {`,
        `    sku: string;`,
        `    quantity: number;`,
        `    price: number;`,
        `    metadata?: Record<string, { key: string; value: string }>;`,
        `}`,
        ``,
        `export type OrderId${n} = string & { readonly brand: "OrderId${n}" };`,
        ``,
        `export enum OrderState${n} {`,
        `    Draft = "draft",`,
        `    Placed = "placed",`,
        `    Shipped = "shipped",`,
        `}`,
        ``,
        `export class OrderService${n} extends BaseService<{ region: string }> {`,
        `    private readonly cache = new Map<string, OrderLine${n}[]>();`,
        `    private retries = 0;`,
        ``,
        `    constructor(private readonly db: Database, private readonly log: Logger) {`,
        `        super({ region: "eu" });`,
        `    }`,
        ``,
    ];
    for (let m = 0; m < 8; m++) {
        out.push(
            `    /** Step ${m} of the order pipeline. */`,
            `    async step${m}(order: OrderId${n}, lines: OrderLine${n}[]): Promise<number> {`,
            `        const key = \`\${order}:${m}:{\${lines.length}}\`;`,
            `        if (this.cache.has(key)) {`,
            `            return this.cache.get(key)!.length;`,
            `        }`,
            `        let total = 0;`,
            `        for (const line of lines) {`,
            `            if (line.quantity <= 0) {`,
            `                this.log.warn("skipping empty line {", line.sku);`,
            `                continue;`,
            `            }`,
            `            total += line.quantity * line.price;`,
            `        }`,
            `        try {`,
            `            await this.db.save("orders", { key, total, state: OrderState${n}.Placed });`,
            `        } catch (error) {`,
            `            this.retries++;`,
            `            this.log.error(\`retry \${this.retries} for order \${order} (step ${m}, part ${n})\`);`,
            `            throw error;`,
            `        }`,
            `        this.cache.set(key, lines);`,
            `        return total;`,
            `    }`,
            ``
        );
    }
    out.push(
        `}`,
        ``,
        `export function priceOf${n}(lines: OrderLine${n}[], discount = 0): number {`,
        `    const subtotal = lines.reduce((sum, line) => sum + line.price * line.quantity, 0);`,
        `    return Math.round(subtotal * (1 - discount) * 100) / 100;`,
        `}`,
        ``,
        `export const isDraft${n} = (state: OrderState${n}): boolean => state === OrderState${n}.Draft;`,
        ``
    );
    return out;
}

function generate(): string {
    const lines = [
        `import { EventEmitter } from "node:events";`,
        `import type { Database } from "../db";`,
        `import type { Logger } from "../logger";`,
        `import { BaseService } from "./base";`,
        ``,
    ];
    for (let n = 0; lines.length < LINES; n++) lines.push(...section(n));
    return `${lines.slice(0, LINES).join("\n")}\n`;
}

async function timeMedian(label: string, work: () => Promise<unknown>): Promise<Series> {
    await work();
    const walls: number[] = [];
    for (let i = 0; i < RUNS; i++) {
        const started = performance.now();
        await work();
        walls.push(performance.now() - started);
    }
    return { label, wallMs: median(walls), peakRssMb: null };
}

function data<D>(result: ToolResult<D>): D {
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    return result.data;
}

function findItem(items: readonly OutlineItem[], label: string): OutlineItem | undefined {
    for (const item of items) {
        if (item.label === label) return item;
        const inner = item.children ? findItem(item.children, label) : undefined;
        if (inner) return inner;
    }
    return undefined;
}

/** outline (paging with startLine) → in-range search → read_around; characters the model receives. */
async function scriptedNavigation(
    ctx: ToolContext,
    text: string
): Promise<{ chars: number; steps: string[] }> {
    const outline = createGetFileOutlineTool();
    const around = createReadAroundTool();
    const target = "export class OrderService40";
    const steps: string[] = [];
    let chars = 0;
    let startLine: number | undefined;
    let item: OutlineItem | undefined;
    for (let page = 0; page < 10 && !item; page++) {
        const result = data(
            await outline.execute({ path: FILE, ...(startLine ? { startLine } : {}) }, ctx)
        );
        chars += JSON.stringify(result).length;
        steps.push(
            `get_file_outline${startLine ? ` (startLine ${startLine})` : ""}: ${result.items.length} items`
        );
        item = findItem(result.items, target);
        startLine = result.nextLine;
        if (!startLine) break;
    }
    if (!item) throw new Error(`${target} not in the outline`);
    // search_text with file + lineRange, simulated: the class's lines that log an error.
    const query = "this.log.error(";
    const lines = text.split("\n");
    const matches: { path: string; line: number; text: string }[] = [];
    for (let n = item.startLine; n <= item.endLine; n++) {
        const line = lines[n - 1]!;
        if (line.includes(query)) matches.push({ path: FILE, line: n, text: line.trim() });
    }
    const search = { matches, totalMatches: matches.length, truncated: false };
    chars += JSON.stringify(search).length;
    steps.push(
        `search "${query}" in lines ${item.startLine}-${item.endLine}: ${matches.length} matches`
    );
    // The model picks step 3's match and anchors on its unique text.
    const anchor = /\(step \d+, part \d+\)/.exec(matches[3]!.text)![0];
    const read = data(await around.execute({ path: FILE, anchor, before: 12, after: 20 }, ctx));
    chars += JSON.stringify(read).length;
    steps.push(
        `read_around "${anchor}": line ${read.matchLine}, ${read.endLine - read.startLine + 1} lines`
    );
    return { chars, steps };
}

export async function benchNavigation(): Promise<void> {
    const root = await fs.realpath(await fs.mkdtemp(path.join(tmpdir(), "north-bench-nav-")));
    try {
        const text = generate();
        const abs = path.join(root, FILE);
        await fs.mkdir(path.dirname(abs), { recursive: true });
        await fs.writeFile(abs, text);
        const ctx: ToolContext = { repoRoot: root, signal: new AbortController().signal };
        const outline = createGetFileOutlineTool();
        const blocks = createFindBlocksTool();

        const baseline = await timeMedian("readFile + split (baseline)", async () => {
            (await fs.readFile(abs, "utf8")).split("\n");
        });
        const outlineRow = await timeMedian("get_file_outline", async () =>
            data(await outline.execute({ path: FILE }, ctx))
        );
        const blocksRow = await timeMedian("find_blocks", async () =>
            data(await blocks.execute({ path: FILE }, ctx))
        );
        printTable(
            `get_file_outline / find_blocks on a ${LINES.toLocaleString("en")}-line TypeScript file (target ≤ 50 ms)`,
            [baseline, outlineRow, blocksRow],
            baseline
        );

        const nav = await scriptedNavigation(ctx, text);
        const share = (nav.chars / text.length) * 100;
        console.log(`\n## Scripted navigation vs reading the whole file (target ≤ 25 %)`);
        for (const step of nav.steps) console.log(`  ${step}`);
        console.log(
            `  tool results: ${nav.chars.toLocaleString("en")} chars; whole file: ` +
                `${text.length.toLocaleString("en")} chars; ${share.toFixed(1)} % ` +
                `(~${Math.round(nav.chars / 3.5).toLocaleString("en")} vs ~${Math.round(text.length / 3.5).toLocaleString("en")} tokens)`
        );
    } finally {
        await fs.rm(root, { recursive: true, force: true });
    }
    await benchNavigationTree();
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
    await benchNavigation();
}
