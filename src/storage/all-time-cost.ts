/**
 * The format of `costs.json`, checked without zod (~17 ms to load, more to
 * build a schema): the chat's first frame reads the total, and costs.ts
 * reads and updates the file after model turns. Anything unreadable or odd
 * is left to costs.ts, which reports and repairs it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CostBreakdown, ModelCost } from "./costs";

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isCount = (value: unknown): boolean => typeof value === "number" && value >= 0;
const isOptionalCount = (value: unknown): boolean => value === undefined || isCount(value);

/** One `byModel` entry as costs.ts's schema accepts it. */
function isModelCost(value: unknown): boolean {
    return (
        isRecord(value) &&
        (value.provider === undefined || typeof value.provider === "string") &&
        isCount(value.inputTokens) &&
        isCount(value.outputTokens) &&
        isOptionalCount(value.cacheReadTokens) &&
        isOptionalCount(value.cacheWriteTokens) &&
        isCount(value.costUsd) &&
        (value.unpricedRequests === undefined ||
            (Number.isSafeInteger(value.unpricedRequests) &&
                (value.unpricedRequests as number) >= 0))
    );
}

/**
 * The breakdown in parsed `costs.json` text, missing optional counts filled
 * in and unknown keys left out; undefined when it is not in that format.
 */
export function plainBreakdown(json: unknown): CostBreakdown | undefined {
    if (
        !isRecord(json) ||
        !isCount(json.allTimeCostUsd) ||
        typeof json.lastUpdated !== "number" ||
        !isRecord(json.byModel) ||
        Object.prototype.hasOwnProperty.call(json.byModel, "__proto__") ||
        !Object.values(json.byModel).every(isModelCost)
    ) {
        return undefined;
    }
    const byModel: Record<string, ModelCost> = {};
    for (const [model, raw] of Object.entries(json.byModel as Record<string, Partial<ModelCost>>)) {
        byModel[model] = {
            provider: raw.provider ?? "unknown",
            inputTokens: raw.inputTokens!,
            outputTokens: raw.outputTokens!,
            cacheReadTokens: raw.cacheReadTokens ?? 0,
            cacheWriteTokens: raw.cacheWriteTokens ?? 0,
            costUsd: raw.costUsd!,
            unpricedRequests: raw.unpricedRequests ?? 0,
        };
    }
    return {
        allTimeCostUsd: json.allTimeCostUsd as number,
        byModel,
        lastUpdated: json.lastUpdated,
    };
}

/** The all-time cost in USD (0 without a file), or undefined: ask `createCostStore`. */
export function plainAllTimeCost(dataDirectory: string): number | undefined {
    const path = join(dataDirectory, "costs.json");
    if (!existsSync(path)) return 0;
    try {
        return plainBreakdown(JSON.parse(readFileSync(path, "utf8")))?.allTimeCostUsd;
    } catch {
        return undefined;
    }
}
