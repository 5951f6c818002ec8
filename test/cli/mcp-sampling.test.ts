import { describe, expect, it } from "vitest";
import { type SamplingDeps, runSampling } from "../../src/cli/mcp-sampling";
import type { ModelInfo } from "../../src/providers/catalogue";
import type { Provider, StreamEvent, StreamRequest } from "../../src/providers/types";
import type { McpSamplingRequest } from "../../src/tools/mcp/client-requests";

const MODEL: ModelInfo = {
    alias: "small",
    id: "claude-small-thinking",
    display: "Small",
    provider: "anthropic",
    contextLimitTokens: 100_000,
    maxOutputTokens: 1000,
    pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
};
const USAGE = { inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

function fakeProvider(events: StreamEvent[], seen: StreamRequest[]): Provider {
    return {
        api: "anthropic",
        async *stream(request) {
            seen.push(request);
            yield* events;
        },
    };
}

function deps(events: StreamEvent[], seen: StreamRequest[], recorded: unknown[]): SamplingDeps {
    return {
        model: () => MODEL,
        providerFor: async () => fakeProvider(events, seen),
        record: (update) => void recorded.push(update),
    };
}

const REQUEST: McpSamplingRequest = {
    server: "feat",
    systemPrompt: "Be brief",
    messages: [
        { role: "user", text: "Hi" },
        { role: "assistant", text: "Hello" },
        { role: "user", text: "Colour?" },
    ],
    maxTokens: 4096,
};

describe("runSampling", () => {
    it("sends one tool-less request capped at the model's output limit and counts its cost", async () => {
        const seen: StreamRequest[] = [];
        const recorded: unknown[] = [];
        const answer = await runSampling(
            REQUEST,
            deps(
                [
                    { type: "text_delta", text: "Teal" },
                    {
                        type: "done",
                        message: { role: "assistant", content: [{ type: "text", text: "Teal" }] },
                        stopReason: "max_tokens",
                        usage: USAGE,
                    },
                ],
                seen,
                recorded
            ),
            new AbortController().signal
        );
        expect(answer).toEqual({ text: "Teal", model: MODEL.id, stopReason: "maxTokens" });
        expect(seen).toHaveLength(1);
        expect(seen[0]).toMatchObject({
            apiModelId: "claude-small",
            system: "Be brief",
            tools: [],
            maxOutputTokens: 1000,
            messages: [
                { role: "user", content: "Hi" },
                { role: "assistant", content: [{ type: "text", text: "Hello" }] },
                { role: "user", content: "Colour?" },
            ],
        });
        expect(seen[0]!.thinking).toBeUndefined();
        expect(recorded).toEqual([{ model: MODEL, usage: USAGE, costUsd: 3 }]);
    });

    it("fails with the provider's reason and still counts what was billed", async () => {
        const recorded: unknown[] = [];
        await expect(
            runSampling(
                REQUEST,
                deps(
                    [
                        {
                            type: "error",
                            error: { kind: "rate_limit", message: "slow down", retryable: true },
                            partial: { role: "assistant", content: [] },
                            usage: USAGE,
                        },
                    ],
                    [],
                    recorded
                ),
                new AbortController().signal
            )
        ).rejects.toThrow("the model request failed: slow down");
        expect(recorded).toHaveLength(1);
    });
});
