/**
 * The all-time total of `costs.json` for the chat's first frame, read without
 * zod (~17 ms to load) when the file is plainly well formed. Anything else
 * (unreadable, corrupt, odd) is left to costs.ts, which reports and repairs it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

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

/** The all-time cost in USD (0 without a file), or undefined: ask `createCostStore`. */
export function plainAllTimeCost(dataDirectory: string): number | undefined {
    const path = join(dataDirectory, "costs.json");
    if (!existsSync(path)) return 0;
    let json: unknown;
    try {
        json = JSON.parse(readFileSync(path, "utf8"));
    } catch {
        return undefined;
    }
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
    return json.allTimeCostUsd as number;
}
