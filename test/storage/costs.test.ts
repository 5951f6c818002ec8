import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createCostStore } from "../../src/storage/costs";

const dirs: string[] = [];
const temp = (): string => {
    const dir = mkdtempSync(join(tmpdir(), "north-costs-"));
    dirs.push(dir);
    return dir;
};
afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const update = (modelId: string, costUsd: number | null) => ({
    modelId,
    provider: "anthropic",
    inputTokens: 100,
    outputTokens: 10,
    cacheReadTokens: 5,
    cacheWriteTokens: 1,
    costUsd,
});

describe("all-time costs", () => {
    it("adds usage per model and keeps the total", () => {
        const store = createCostStore(temp());
        store.add(update("sonnet", 0.5));
        store.add(update("sonnet", 0.25));
        const totals = store.add(update("opus", 1))!;
        expect(totals.allTimeCostUsd).toBeCloseTo(1.75, 10);
        expect(totals.byModel.sonnet).toMatchObject({
            inputTokens: 200,
            outputTokens: 20,
            cacheReadTokens: 10,
            costUsd: 0.75,
        });
        expect(store.breakdown().byModel.opus?.costUsd).toBe(1);
    });

    it("reads an older file's missing counts as zero and drops keys it does not know", () => {
        const dir = temp();
        writeFileSync(
            join(dir, "costs.json"),
            JSON.stringify({
                allTimeCostUsd: 2,
                byModel: { sonnet: { inputTokens: 7, outputTokens: 3, costUsd: 2, extra: 1 } },
                lastUpdated: 1,
                note: "x",
            })
        );
        const totals = createCostStore(dir).add(update("sonnet", 0.5))!;
        expect(totals.allTimeCostUsd).toBeCloseTo(2.5, 10);
        expect(totals.byModel.sonnet).toEqual({
            provider: "unknown",
            inputTokens: 107,
            outputTokens: 13,
            cacheReadTokens: 5,
            cacheWriteTokens: 1,
            costUsd: 2.5,
            unpricedRequests: 0,
        });
        const file = JSON.parse(readFileSync(join(dir, "costs.json"), "utf8"));
        expect(Object.keys(file).sort()).toEqual(["allTimeCostUsd", "byModel", "lastUpdated"]);
    });

    it("batched, saves a moment after the first unsaved update or on flush, totals current meanwhile", () => {
        vi.useFakeTimers();
        try {
            const dir = temp();
            const store = createCostStore(dir, { batchMs: 1000 });
            const other = createCostStore(dir); // another North process
            expect(store.add(update("sonnet", 0.5))?.allTimeCostUsd).toBeCloseTo(0.5, 10);
            expect(store.add(update("sonnet", 0.25))?.allTimeCostUsd).toBeCloseTo(0.75, 10);
            expect(store.breakdown().byModel.sonnet?.inputTokens).toBe(200);
            expect(existsSync(join(dir, "costs.json"))).toBe(false);
            vi.advanceTimersByTime(999);
            expect(existsSync(join(dir, "costs.json"))).toBe(false);
            vi.advanceTimersByTime(1);
            expect(other.breakdown().allTimeCostUsd).toBeCloseTo(0.75, 10);

            other.add(update("opus", 1));
            store.add(update("sonnet", 0.25));
            store.flush();
            const saved = other.breakdown();
            expect(saved.allTimeCostUsd).toBeCloseTo(2, 10);
            expect(saved.byModel.sonnet?.inputTokens).toBe(300);
            vi.advanceTimersByTime(5000); // the flushed batch is not saved twice
            expect(other.breakdown().byModel.sonnet?.inputTokens).toBe(300);
        } finally {
            vi.useRealTimers();
        }
    });

    it("counts unpriced requests instead of calling them free", () => {
        const store = createCostStore(temp());
        const totals = store.add(update("local", null))!;
        expect(totals.byModel.local).toMatchObject({
            costUsd: 0,
            unpricedRequests: 1,
            inputTokens: 100,
        });
    });

    it("moves a corrupt costs.json aside, warns, and starts over", () => {
        const dir = temp();
        writeFileSync(join(dir, "costs.json"), "{ broken");
        const warnings: string[] = [];
        const store = createCostStore(dir, { warn: (w) => warnings.push(w) });
        store.add(update("sonnet", 0.1));
        expect(warnings.join("\n")).toContain("corrupt");
        expect(readdirSync(dir).some((f) => f.startsWith("costs.json.corrupt-"))).toBe(true);
        expect(store.breakdown().allTimeCostUsd).toBeCloseTo(0.1, 10);
    });

    it("never throws when the data directory is unusable", () => {
        const blocker = join(temp(), "file");
        writeFileSync(blocker, "");
        const warnings: string[] = [];
        const store = createCostStore(join(blocker, "data"), { warn: (w) => warnings.push(w) });
        expect(store.add(update("sonnet", 1))).toBeNull();
        expect(warnings).toHaveLength(1);
        expect(existsSync(join(blocker, "data"))).toBe(false);
    });

    /** Runs test/storage/fixtures/cost-writer.ts: `count` updates for `model` in `dir`. */
    const runWriter = (dir: string, model: string, count: number, mode = "") =>
        new Promise<number | null>((resolve) => {
            const child = spawn(
                process.execPath,
                [
                    "--import",
                    "tsx",
                    join(import.meta.dirname, "fixtures", "cost-writer.ts"),
                    dir,
                    model,
                    String(count),
                    mode,
                ],
                { stdio: "inherit" }
            );
            child.on("close", resolve);
        });

    it("batched, still saves what is pending when the process ends without a flush", async () => {
        const dir = temp();
        expect(await runWriter(dir, "a", 3, "batched")).toBe(0);
        expect(createCostStore(dir).breakdown().byModel.a?.inputTokens).toBe(3);
    }, 60_000);

    it("two processes adding 500 updates each lose none", async () => {
        const dir = temp();
        const run = (model: string) => runWriter(dir, model, 500);
        expect(await Promise.all([run("a"), run("b")])).toEqual([0, 0]);
        const totals = createCostStore(dir).breakdown();
        expect(totals.byModel.a?.inputTokens).toBe(500);
        expect(totals.byModel.b?.outputTokens).toBe(1000);
        expect(totals.allTimeCostUsd).toBeCloseTo(1, 9);
    }, 60_000);
});
