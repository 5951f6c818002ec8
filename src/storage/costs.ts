import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { plainBreakdown } from "./all-time-cost";
import { writeConfigFileAtomicSync } from "../util/atomic-write";
import { withFileLock } from "../util/file-lock";

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

/** Adds one response's usage to `totals`, in place. */
function apply(totals: CostBreakdown, update: CostUpdate): void {
    const entry: ModelCost = totals.byModel[update.modelId] ?? {
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
    totals.byModel[update.modelId] = entry;
    totals.allTimeCostUsd = Object.values(totals.byModel).reduce((sum, m) => sum + m.costUsd, 0);
}

export interface CostStoreOptions {
    warn?: (message: string) => void;
    /**
     * Batches updates: they are saved together this long after the first
     * unsaved one, or by `flush()`, instead of one locked, fsynced rewrite
     * per model response. Unset: every update is saved before `add` returns.
     */
    batchMs?: number;
}

/**
 * All-time costs per model in `~/.north/costs.json`. Every save is a locked
 * read-modify-write, so two North processes never lose each other's updates;
 * a corrupt file is moved aside (`costs.json.corrupt-<time>`) and started over.
 */
export function createCostStore(dataDirectory: string, options: CostStoreOptions = {}) {
    const path = join(dataDirectory, "costs.json");
    const warn = options.warn ?? (() => {});
    const pending: CostUpdate[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    /** The totals last read or saved, so a batched `add` does not re-read the file. */
    let known: CostBreakdown | undefined;

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

    /** Saves the pending updates; the new totals, or null (warned) when they could not be saved. */
    const save = (): CostBreakdown | null => {
        if (timer !== undefined) clearTimeout(timer);
        timer = undefined;
        process.off("exit", saveAtExit);
        const updates = pending.splice(0);
        try {
            mkdirSync(dataDirectory, { recursive: true, mode: 0o700 });
            return withFileLock(`${path}.lock`, () => {
                const current = read();
                for (const update of updates) apply(current, update);
                current.lastUpdated = Date.now();
                writeConfigFileAtomicSync(path, JSON.stringify(current, null, 2) + "\n");
                known = current;
                return current;
            });
        } catch (error) {
            warn(`could not update ${path}: ${(error as Error).message}`);
            return null;
        }
    };

    // A process that ends without flush() (a Node API user, an exit forced mid-turn)
    // still saves: the save is synchronous, so it runs inside an exit listener.
    const saveAtExit = (): void => void save();

    /** `totals` (a copy) with the unsaved updates added. */
    const withPending = (totals: CostBreakdown): CostBreakdown => {
        const copy = { ...totals, byModel: { ...totals.byModel } };
        for (const [model, cost] of Object.entries(copy.byModel)) copy.byModel[model] = { ...cost };
        for (const update of pending) apply(copy, update);
        return copy;
    };

    return {
        path,
        /** The current totals (a missing file is all zeros), unsaved updates included. */
        breakdown(): CostBreakdown {
            known = read();
            return withPending(known);
        },
        /**
         * Adds one response's usage; returns the new totals, or null (warned)
         * when they could not be saved. Never throws.
         */
        add(update: CostUpdate): CostBreakdown | null {
            pending.push(update);
            if (options.batchMs === undefined) return save();
            if (timer === undefined) {
                timer = setTimeout(save, options.batchMs);
                // A pending save never holds the process open: the exit listener saves it.
                timer.unref?.();
                process.once("exit", saveAtExit);
            }
            known ??= read();
            return withPending(known);
        },
        /** Saves what is pending now (at exit). Never throws. */
        flush(): void {
            if (pending.length > 0) save();
        },
    };
}

export type CostStore = ReturnType<typeof createCostStore>;
