import type { ModelInfo } from "../providers/catalogue";
import type { Usage } from "../providers/types";
import type { CostBreakdown } from "../storage/costs";

/** Spend on one model: tokens in (cache reads and writes included) and out, and USD. */
export interface CostLine {
    provider: string;
    model: string;
    inputTokens: number;
    outputTokens: number;
    /** Priced usage only. */
    costUsd: number;
    /** Responses from a model without a price. */
    unpricedRequests: number;
    /** Server-side web searches the provider ran (their price is in `costUsd`). */
    webSearches?: number;
}

export interface SessionCosts {
    add(update: {
        model: Pick<ModelInfo, "id" | "provider">;
        usage: Usage;
        costUsd: number | null;
    }): void;
    lines(): CostLine[];
    /** Null once a model without a price answered: the total is then unknown. */
    totalUsd(): number | null;
}

/** What one conversation cost, per model. */
export function createSessionCosts(): SessionCosts {
    const byModel = new Map<string, CostLine>();
    let unpriced = false;
    return {
        add({ model, usage, costUsd }) {
            let line = byModel.get(model.id);
            if (!line) {
                line = {
                    provider: model.provider,
                    model: model.id,
                    inputTokens: 0,
                    outputTokens: 0,
                    costUsd: 0,
                    unpricedRequests: 0,
                };
                byModel.set(model.id, line);
            }
            line.inputTokens += usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
            line.outputTokens += usage.outputTokens;
            if (usage.webSearchRequests) {
                line.webSearches = (line.webSearches ?? 0) + usage.webSearchRequests;
            }
            if (costUsd === null) {
                line.unpricedRequests += 1;
                unpriced = true;
            } else line.costUsd += costUsd;
        },
        lines: () => [...byModel.values()].map((line) => ({ ...line })),
        totalUsd() {
            if (unpriced) return null;
            let total = 0;
            for (const line of byModel.values()) total += line.costUsd;
            return total;
        },
    };
}

/** The all-time store's figures as cost lines. */
export function allTimeLines(breakdown: CostBreakdown): CostLine[] {
    return Object.entries(breakdown.byModel).map(([model, cost]) => ({
        provider: cost.provider,
        model,
        inputTokens: cost.inputTokens + cost.cacheReadTokens + cost.cacheWriteTokens,
        outputTokens: cost.outputTokens,
        costUsd: cost.costUsd,
        unpricedRequests: cost.unpricedRequests,
    }));
}
