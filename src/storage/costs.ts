import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { plainBreakdown } from "./all-time-cost";
import { writeFileAtomicSync } from "./conversations/io";
import { withFileLock } from "./file-lock";

/** Tokens and spend of one model, all time. `costUsd` covers only priced usage. */
export interface ModelCost {
    provider: string;
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    costUsd: number;
    /** Requests whose model had no price: their cost is unknown, not zero. */
    unpricedRequests: number;
}

export interface CostBreakdown {
    allTimeCostUsd: number;
    byModel: Record<string, ModelCost>;
    lastUpdated: number;
}

export interface CostUpdate {
    modelId: string;
    provider: string;
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    /** Null when the model has no price. */
    costUsd: number | null;
}

function empty(): CostBreakdown {
    return { allTimeCostUsd: 0, byModel: {}, lastUpdated: 0 };
}

/**
 * All-time costs per model in `~/.north/costs.json`. Every update is a locked
 * read-modify-write, so two North processes never lose each other's updates;
 * a corrupt file is moved aside (`costs.json.corrupt-<time>`) and started over.
 */
export function createCostStore(dataDirectory: string, warn: (message: string) => void = () => {}) {
    const path = join(dataDirectory, "costs.json");

    const read = (): CostBreakdown => {
        if (!existsSync(path)) return empty();
        let text: string;
        try {
            text = readFileSync(path, "utf8");
        } catch (error) {
            warn(`could not read ${path}: ${(error as Error).message}`);
            return empty();
        }
        let parsed: CostBreakdown | undefined;
        try {
            parsed = plainBreakdown(JSON.parse(text));
        } catch {
            parsed = undefined;
        }
        if (parsed) return parsed;
        const backup = `${path}.corrupt-${Date.now()}`;
        try {
            renameSync(path, backup);
            warn(`${path} was corrupt; it was moved to ${backup} and all-time costs start over`);
        } catch (error) {
            warn(`${path} is corrupt and could not be moved aside: ${(error as Error).message}`);
        }
        return empty();
    };

    return {
        path,
        /** The current totals (a missing file is all zeros). */
        breakdown(): CostBreakdown {
            return read();
        },
        /** Adds one response's usage; returns the new totals. Never throws. */
        add(update: CostUpdate): CostBreakdown | null {
            try {
                mkdirSync(dataDirectory, { recursive: true, mode: 0o700 });
                return withFileLock(`${path}.lock`, () => {
                    const current = read();
                    const entry: ModelCost = current.byModel[update.modelId] ?? {
                        provider: update.provider,
                        inputTokens: 0,
                        outputTokens: 0,
                        cacheReadTokens: 0,
                        cacheWriteTokens: 0,
                        costUsd: 0,
                        unpricedRequests: 0,
                    };
                    entry.inputTokens += update.inputTokens;
                    entry.outputTokens += update.outputTokens;
                    entry.cacheReadTokens += update.cacheReadTokens;
                    entry.cacheWriteTokens += update.cacheWriteTokens;
                    if (update.costUsd === null) entry.unpricedRequests += 1;
                    else entry.costUsd += update.costUsd;
                    current.byModel[update.modelId] = entry;
                    current.allTimeCostUsd = Object.values(current.byModel).reduce(
                        (sum, m) => sum + m.costUsd,
                        0
                    );
                    current.lastUpdated = Date.now();
                    writeFileAtomicSync(path, JSON.stringify(current, null, 2) + "\n");
                    return current;
                });
            } catch (error) {
                warn(`could not update ${path}: ${(error as Error).message}`);
                return null;
            }
        },
    };
}

export type CostStore = ReturnType<typeof createCostStore>;
