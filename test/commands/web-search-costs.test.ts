import { describe, expect, it } from "vitest";
import type { CostFigures } from "../../src/agent/protocol";
import { costsCommand } from "../../src/commands/commands/costs";
import type { CommandPlan } from "../../src/commands/types";

// `/costs` counts the provider's web searches of this conversation.

const figures = (webSearches?: number): CostFigures => ({
    sessionUsd: 0.0403,
    allTimeUsd: 1.5,
    session: [
        {
            provider: "anthropic",
            model: "claude-sonnet-4",
            inputTokens: 1000,
            outputTokens: 100,
            costUsd: 0.0403,
            ...(webSearches === undefined ? {} : { webSearches }),
        },
    ],
    allTime: [],
});

async function reply(chat: boolean, costs: CostFigures): Promise<string> {
    const plan = costsCommand.plan(
        { positional: [], flags: {} } as never,
        { chat } as never
    ) as CommandPlan;
    if (plan.kind !== "submit") throw new Error(`expected submit, got ${plan.kind}`);
    const next = await plan.next((async () => costs) as never);
    if (next.kind !== "result") throw new Error(`expected result, got ${next.kind}`);
    return next.result.message;
}

describe("/costs with web searches", () => {
    it("names the session's searches in print mode and in the chat", async () => {
        expect(await reply(false, figures(3))).toBe(
            "Session: $0.040, 3 web searches\nAll time: $1.50"
        );
        expect(await reply(true, figures(1))).toMatch(/^Session \$0\.040, 1 web search · all time/);
    });

    it("says nothing of searches when there were none", async () => {
        expect(await reply(false, figures())).toBe("All time: $1.50");
    });
});
