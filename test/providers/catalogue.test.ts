import { describe, expect, it } from "vitest";
import {
    BUILTIN_MODELS,
    apiModelId,
    calculateCost,
    formatCost,
    isThinkingModel,
} from "../../src/providers/catalogue";
import { buildCatalogue, resolveEndpoint, resolveModel } from "../../src/providers/models";

describe("model catalogue", () => {
    it("has every model of the spec, Claude models twice (fast and -thinking)", () => {
        const aliases = BUILTIN_MODELS.map((m) => m.alias);
        for (const base of [
            "sonnet-4",
            "opus-4",
            "opus-4-1",
            "sonnet-4-5",
            "haiku-4-5",
            "opus-4-5",
        ]) {
            expect(aliases).toContain(base);
            expect(aliases).toContain(`${base}-thinking`);
        }
        for (const gpt of [
            "gpt-5.1",
            "gpt-5.1-codex",
            "gpt-5.1-codex-mini",
            "gpt-5.1-codex-max",
            "gpt-5",
            "gpt-5-mini",
            "gpt-5-nano",
        ]) {
            expect(aliases).toContain(gpt);
        }
        expect(new Set(aliases).size).toBe(aliases.length);
        const thinking = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4-5-thinking")!;
        expect(thinking.id).toBe("claude-sonnet-4-5-20250929-thinking");
        expect(thinking.thinkingBudget).toBeGreaterThan(0);
        expect(isThinkingModel(thinking.id)).toBe(true);
        expect(apiModelId(thinking.id)).toBe("claude-sonnet-4-5-20250929");
    });

    it("resolves aliases and pinned ids; unknown names suggest the closest aliases", () => {
        const catalogue = buildCatalogue();
        const byAlias = resolveModel(catalogue, "opus-4-5");
        expect(byAlias.ok && byAlias.model.id).toBe("claude-opus-4-5-20251101");
        const byId = resolveModel(catalogue, "gpt-5-mini");
        expect(byId.ok && byId.provider.api).toBe("openai-responses");
        const unknown = resolveModel(catalogue, "sonet-4-5");
        expect(unknown.ok).toBe(false);
        expect(!unknown.ok && unknown.error).toContain("sonnet-4-5");
        const far = resolveModel(catalogue, "zzzzzzzzzzzzzzzzzzz");
        expect(!far.ok && far.error).toContain("north models");
    });

    it("merges user providers and models, and accepts provider:model", () => {
        const catalogue = buildCatalogue(
            { ollama: { api: "openai-chat", baseUrl: "http://127.0.0.1:11434/v1" } },
            [
                {
                    alias: "qwen",
                    id: "qwen2.5-coder:14b",
                    provider: "ollama",
                    contextLimitTokens: 32768,
                },
            ]
        );
        const qwen = resolveModel(catalogue, "qwen");
        expect(qwen.ok && [qwen.model.contextLimitTokens, qwen.provider.api]).toEqual([
            32768,
            "openai-chat",
        ]);
        const adhoc = resolveModel(catalogue, "ollama:llama3.1");
        expect(adhoc.ok && adhoc.model.id).toBe("llama3.1");
        const endpoint = qwen.ok ? resolveEndpoint(qwen.provider, {}) : null;
        expect(endpoint?.ok && endpoint.endpoint.baseUrl).toBe("http://127.0.0.1:11434/v1");
    });

    it("needs the key for built-in providers and takes base URLs from the environment", () => {
        const catalogue = buildCatalogue();
        const provider = catalogue.providers.get("anthropic")!;
        const missing = resolveEndpoint(provider, {});
        expect(!missing.ok && missing.error).toMatch(
            /^anthropic: the key variable ANTHROPIC_API_KEY is not set/
        );
        const ok = resolveEndpoint(provider, {
            ANTHROPIC_API_KEY: "k",
            ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
        });
        expect(ok.ok && ok.endpoint).toMatchObject({
            api: "anthropic",
            apiKey: "k",
            baseUrl: "http://127.0.0.1:9",
        });
    });
});

describe("pricing", () => {
    it("Anthropic: input, cache read, cache write and output add up", () => {
        const sonnet = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!;
        const usage = {
            inputTokens: 1_000_000,
            outputTokens: 1_000_000,
            cacheReadTokens: 1_000_000,
            cacheWriteTokens: 1_000_000,
        };
        expect(calculateCost(sonnet.pricing, usage)).toBeCloseTo(3 + 15 + 0.3 + 3.75, 10);
    });

    it("OpenAI: cached tokens are billed at the cached rate, the rest at the input rate", () => {
        const gpt = BUILTIN_MODELS.find((m) => m.alias === "gpt-5.1")!;
        // The provider reports 1M input of which 400K cached: normalised to 600K + 400K cached.
        const usage = {
            inputTokens: 600_000,
            outputTokens: 0,
            cacheReadTokens: 400_000,
            cacheWriteTokens: 0,
        };
        expect(calculateCost(gpt.pricing, usage)).toBeCloseTo(0.6 * 1.25 + 0.4 * 0.125, 10);
    });

    it("an unknown price is unknown, not free", () => {
        const catalogue = buildCatalogue(
            { local: { api: "openai-chat", baseUrl: "http://127.0.0.1:1/v1" } },
            [
                { alias: "mystery", id: "m-1", provider: "local" },
                { alias: "free", id: "f-1", provider: "local", pricing: { input: 0, output: 0 } },
            ]
        );
        const usage = {
            inputTokens: 10,
            outputTokens: 10,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
        };
        const mystery = resolveModel(catalogue, "mystery");
        expect(mystery.ok && calculateCost(mystery.model.pricing, usage)).toBeNull();
        const adhoc = resolveModel(catalogue, "local:whatever");
        expect(adhoc.ok && calculateCost(adhoc.model.pricing, usage)).toBeNull();
        const free = resolveModel(catalogue, "free");
        expect(free.ok && calculateCost(free.model.pricing, usage)).toBe(0);
        expect(formatCost(null)).toBe("$?");
    });

    it("formats small and large sums", () => {
        expect(formatCost(0)).toBe("$0.00");
        expect(formatCost(0.0042)).toBe("$0.004");
        expect(formatCost(1.5)).toBe("$1.50");
    });
});
