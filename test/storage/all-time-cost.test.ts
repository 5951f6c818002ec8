import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { plainAllTimeCost } from "../../src/storage/all-time-cost";
import { createCostStore } from "../../src/storage/costs";

let dir: string;
beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "north-all-time-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const model = {
    provider: "anthropic",
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0.25,
    unpricedRequests: 0,
};

describe("the all-time cost read without zod", () => {
    it("is 0 without a file", () => {
        expect(plainAllTimeCost(dir)).toBe(0);
    });

    it("gives the cost store's total for a well-formed file, older fields missing too", () => {
        for (const byModel of [
            {},
            { m: model },
            { m: { inputTokens: 1, outputTokens: 2, costUsd: 0.5 }, n: model },
        ]) {
            const file = { allTimeCostUsd: 1.75, byModel, lastUpdated: 5 };
            writeFileSync(join(dir, "costs.json"), JSON.stringify(file));
            expect(plainAllTimeCost(dir)).toBe(1.75);
            expect(createCostStore(dir).breakdown().allTimeCostUsd).toBe(1.75);
        }
    });

    it("leaves every file the cost store would repair to it, and never moves it itself", () => {
        for (const text of [
            "not json",
            "[]",
            JSON.stringify({ allTimeCostUsd: -1, byModel: {}, lastUpdated: 1 }),
            JSON.stringify({ allTimeCostUsd: "1", byModel: {}, lastUpdated: 1 }),
            JSON.stringify({ allTimeCostUsd: 1, byModel: {} }),
            JSON.stringify({ allTimeCostUsd: 1, byModel: [], lastUpdated: 1 }),
            JSON.stringify({
                allTimeCostUsd: 1,
                byModel: { m: { ...model, costUsd: null } },
                lastUpdated: 1,
            }),
            JSON.stringify({
                allTimeCostUsd: 1,
                byModel: { m: { ...model, unpricedRequests: 1.5 } },
                lastUpdated: 1,
            }),
            JSON.stringify({
                allTimeCostUsd: 1,
                byModel: { m: { ...model, provider: 3 } },
                lastUpdated: 1,
            }),
        ]) {
            writeFileSync(join(dir, "costs.json"), text);
            expect(plainAllTimeCost(dir), text).toBeUndefined();
            expect(readdirSync(dir), text).toEqual(["costs.json"]);
            const warnings: string[] = [];
            createCostStore(dir, { warn: (message) => warnings.push(message) }).breakdown();
            expect(warnings, text).toHaveLength(1);
            rmSync(dir, { recursive: true, force: true });
            mkdirSync(dir);
        }
    });
});
