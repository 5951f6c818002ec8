/**
 * What the host's conversations cost: the current conversation's spend per
 * model (a resumed one's earlier spend included) and the all-time totals.
 */
import type { ModelInfo } from "../../providers/catalogue";
import { type ModelCatalogue, resolveModel } from "../../providers/models";
import type { LoadedConversation } from "../../storage/conversations";
import type { CostBreakdown, CostStore } from "../../storage/costs";
import { restoredUsage } from "../conversation-log";
import type { CostFigures, CostRow, StatusCosts } from "../protocol";
import type { SessionOptions } from "../session";
import {
    type CostLine,
    type SessionCosts,
    allTimeLines,
    createSessionCosts,
} from "../session-costs";

export type UsageRecord = Parameters<NonNullable<SessionOptions["usageSink"]>>[0];

const rows = (lines: CostLine[]): CostRow[] =>
    lines.map(({ provider, model, inputTokens, outputTokens, costUsd, unpricedRequests }) => ({
        provider,
        model,
        inputTokens,
        outputTokens,
        costUsd,
        ...(unpricedRequests ? { unpricedRequests } : {}),
    }));

export class Spend {
    private conversation: SessionCosts = createSessionCosts();
    private allTime: CostBreakdown;

    constructor(
        private readonly store: Pick<CostStore, "add" | "breakdown">,
        private readonly catalogue: ModelCatalogue
    ) {
        this.allTime = store.breakdown();
    }

    /** Records one response's usage in both; hand to anything that calls a model. */
    readonly record = (update: UsageRecord): void => {
        this.conversation.add(update);
        const { usage } = update;
        const totals = this.store.add({
            modelId: update.model.id,
            provider: update.model.provider,
            inputTokens: usage.inputTokens,
            outputTokens: usage.outputTokens,
            cacheReadTokens: usage.cacheReadTokens,
            cacheWriteTokens: usage.cacheWriteTokens,
            costUsd: update.costUsd,
        });
        if (totals) this.allTime = totals;
    };

    /** Starts counting another conversation, from its own stored spend. */
    switchTo(stored: LoadedConversation | undefined): void {
        const costs = createSessionCosts();
        for (const spent of stored?.usage ?? []) {
            const found = resolveModel(this.catalogue, spent.model);
            const provider = found.ok ? found.model.provider : spent.model.split(":")[0] || "?";
            const model: Pick<ModelInfo, "id" | "provider"> = { id: spent.model, provider };
            costs.add({ model, usage: restoredUsage(spent.usage), costUsd: spent.costUsd });
        }
        this.conversation = costs;
    }

    status(): StatusCosts {
        return {
            sessionUsd: this.conversation.totalUsd(),
            allTimeUsd: this.allTime.allTimeCostUsd,
        };
    }

    figures(): CostFigures {
        const allTime = this.store.breakdown();
        return {
            sessionUsd: this.conversation.totalUsd(),
            allTimeUsd: allTime.allTimeCostUsd,
            session: rows(this.conversation.lines()),
            allTime: rows(allTimeLines(allTime)),
        };
    }
}
