import { describe, expect, it } from "vitest";
import {
    BUILTIN_MODELS,
    DEFAULT_MODEL_ID,
    PROVIDER_DEFAULT_MODELS,
    calculateCost,
    formatCost,
} from "../../src/providers/catalogue";
import { buildCatalogue, resolveModel } from "../../src/providers/models";
import { withListedModels } from "../../src/cli/model-selection";
import { withCloudProviders } from "./catalogue-kit";

const USAGE = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

describe("the catalogue as data", () => {
    it("gives every built-in entry its source page and the date read", () => {
        for (const m of BUILTIN_MODELS) {
            expect(m.source, m.alias).toBeDefined();
            expect(new URL(m.source!.url).protocol, m.alias).toBe("https:");
            expect(m.source!.read, m.alias).toMatch(/^\d{4}-\d{2}-\d{2}$/);
            expect(Number.isNaN(Date.parse(m.source!.read)), m.alias).toBe(false);
        }
    });

    it("has prices that are numbers or absent, never zero input or output", () => {
        for (const m of BUILTIN_MODELS) {
            if (!m.pricing) continue;
            const { longPrompt, ...rates } = m.pricing;
            for (const [field, value] of Object.entries(rates)) {
                expect(Number.isFinite(value), `${m.alias} ${field}`).toBe(true);
                expect(value, `${m.alias} ${field}`).toBeGreaterThanOrEqual(0);
            }
            expect(rates.input, m.alias).toBeGreaterThan(0);
            expect(rates.output, m.alias).toBeGreaterThan(0);
            if (longPrompt) {
                expect(longPrompt.aboveTokens, m.alias).toBeGreaterThan(0);
                expect(longPrompt.input, m.alias).toBeGreaterThan(rates.input);
            }
        }
    });

    it("has unique aliases and ids, limits within the window, and says how each model thinks", () => {
        const names = BUILTIN_MODELS.flatMap((m) => [m.alias, m.id]);
        expect(new Set(BUILTIN_MODELS.map((m) => m.alias)).size).toBe(BUILTIN_MODELS.length);
        expect(new Set(BUILTIN_MODELS.map((m) => m.id)).size).toBe(BUILTIN_MODELS.length);
        expect(names.length).toBeGreaterThan(0);
        for (const m of BUILTIN_MODELS) {
            expect(m.maxOutputTokens, m.alias).toBeLessThanOrEqual(m.contextLimitTokens);
            expect(m.thinking, m.alias).toBeDefined();
            // Only budget-thinking models get a `-thinking` twin with a budget.
            if (m.thinkingBudget) expect(m.thinking, m.alias).toBe("budget");
        }
    });

    it("keeps the older models users pin, and knows the peers' current defaults", () => {
        const ids = BUILTIN_MODELS.map((m) => m.id);
        for (const id of [
            "claude-sonnet-4-20250514",
            "claude-opus-4-5-20251101",
            "gpt-5.1-codex",
            // Claude Code 2.1.332, Codex 0.171 and Gemini CLI 0.61 send these.
            "claude-opus-5-5",
            "gpt-6.2-sol",
            "gemini-3.8-flash",
        ]) {
            expect(ids).toContain(id);
        }
        // Adaptive-thinking models reject a manual budget: no `-thinking` twin.
        expect(ids).not.toContain("claude-opus-5-5-thinking");
    });

    it("prices a long prompt at its tier on every token of the request", () => {
        const haiku = BUILTIN_MODELS.find((m) => m.id === "claude-haiku-5-5")!;
        const short = calculateCost(haiku.pricing, {
            ...USAGE,
            inputTokens: 100_000,
            outputTokens: 1_000,
        });
        expect(short).toBeCloseTo((100_000 * 0.1 + 1_000 * 0.5) / 1e6, 10);
        // Cache reads count towards the prompt: 60K + 50K is over 100K.
        const long = calculateCost(haiku.pricing, {
            ...USAGE,
            inputTokens: 60_000,
            cacheReadTokens: 50_000,
            outputTokens: 1_000,
        });
        expect(long).toBeCloseTo((60_000 * 0.5 + 50_000 * 0.05 + 1_000 * 2.5) / 1e6, 10);
        const sol = BUILTIN_MODELS.find((m) => m.id === "gpt-6.2-sol")!;
        expect(
            calculateCost(sol.pricing, { ...USAGE, inputTokens: 300_000, outputTokens: 10_000 })
        ).toBeCloseTo((300_000 * 4 + 10_000 * 15) / 1e6, 10);
    });

    it("defaults to Anthropic's current general-purpose model, not the spec's Sonnet 4", () => {
        expect(DEFAULT_MODEL_ID).toBe("claude-opus-5-5");
        expect(PROVIDER_DEFAULT_MODELS.map((d) => d.provider)).toEqual([
            "anthropic",
            "openai",
            "gemini",
        ]);
        const catalogue = buildCatalogue();
        const resolved = resolveModel(catalogue, catalogue.defaultModelId);
        expect(resolved.ok && resolved.model.display).toBe("Claude Opus 5.5");
        for (const d of PROVIDER_DEFAULT_MODELS) {
            const entry = BUILTIN_MODELS.find((m) => m.id === d.model);
            expect(entry?.provider, d.model).toBe(d.provider);
        }
    });

    it("takes the first ready provider's default, in the documented order", () => {
        const providers = withCloudProviders();
        const choose = (env: Record<string, string>) =>
            buildCatalogue(providers, [], { env }).defaultModelId;
        expect(choose({ ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o" })).toBe("claude-opus-5-5");
        expect(choose({ OPENAI_API_KEY: "o", GEMINI_API_KEY: "g" })).toBe("gpt-6.2-sol");
        expect(choose({ GEMINI_API_KEY: "g" })).toBe("gemini-3.8-flash");
        // Nothing ready: Anthropic's, so the error names ANTHROPIC_API_KEY.
        expect(choose({})).toBe("claude-opus-5-5");
        // Claude Code's Bedrock switch: the Claude default is ready through Bedrock.
        const bedrock = buildCatalogue(providers, [], {
            env: { CLAUDE_CODE_USE_BEDROCK: "1", OPENAI_API_KEY: "o" },
        });
        const chosen = resolveModel(bedrock, bedrock.defaultModelId);
        expect(chosen.ok && [chosen.provider.id, chosen.model.wireId]).toEqual([
            "bedrock",
            "global.anthropic.claude-opus-5-5",
        ]);
    });

    it("shows an unknown price as $? and a listed model not in the catalogue works with defaults", () => {
        expect(formatCost(calculateCost(undefined, USAGE))).toBe("$?");
        const catalogue = buildCatalogue();
        const listed = resolveModel(catalogue, "anthropic:claude-nova-0-1");
        expect(listed.ok && listed.model.pricing).toBeUndefined();
        expect(listed.ok && listed.model.contextLimitTokens).toBeGreaterThan(0);
    });

    it("offers models the providers listed after the catalogue's, with its figures where known", () => {
        const catalogue = buildCatalogue();
        const models = withListedModels(catalogue, [
            "anthropic:claude-nova-0-1",
            "openai:gpt-6.2-sol",
            "nowhere:x",
        ]);
        expect(models.slice(0, catalogue.models.length)).toEqual(catalogue.models);
        const added = models.slice(catalogue.models.length);
        expect(added.map((m) => [m.alias, m.pricing?.input])).toEqual([
            ["anthropic:claude-nova-0-1", undefined],
            ["openai:gpt-6.2-sol", 2],
        ]);
    });
});
