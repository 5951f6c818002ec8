/**
 * The built-in models as data: limits, prices, images, thinking, and for each
 * entry the page its figures were read from and the date read. A figure no
 * published page gives is left out (a price then shows as unknown, `$?`).
 */
import type { ModelInfo, ModelPricing, ModelSource } from "./catalogue";

const READ = "2026-11-28";

const ANTHROPIC_PRICING_PAGE = "https://platform.claude.com/docs/en/about-claude/pricing";
const anthropicPage = (model: string): ModelSource => ({
    url: `https://platform.claude.com/docs/en/models/${model}/overview`,
    read: READ,
});
const OPENAI_PRICING_PAGE: ModelSource = {
    url: "https://developers.openai.com/api/docs/pricing",
    // The GPT-5 rows came with North's first catalogue (2026-11-21).
    read: "2026-11-21",
};

/** Prices in USD per 1M tokens; cache writes at the 5-minute rate. */
const OPUS_5_5: ModelPricing = { input: 4, output: 20, cacheWrite: 5, cacheRead: 0.2 };
const OPUS_5: ModelPricing = { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 };
// Cache hits cut from $0.20 to $0.10 on 2026-10-07 (pricing page, prompt caching).
const SONNET_5_5: ModelPricing = { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.1 };
const SONNET_5: ModelPricing = { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 };
/** Haiku 5.5 is priced by prompt length: above 100K prompt tokens every token of the request costs more. */
const HAIKU_5_5: ModelPricing = {
    input: 0.1,
    output: 0.5,
    cacheWrite: 0.125,
    cacheRead: 0.01,
    longPrompt: {
        aboveTokens: 100_000,
        input: 0.5,
        output: 2.5,
        cacheWrite: 0.625,
        cacheRead: 0.05,
    },
};
const SONNET_4: ModelPricing = { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 };
const OPUS_4: ModelPricing = { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 };
const HAIKU_4_5: ModelPricing = { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 };
const OPUS_4_5: ModelPricing = { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 };

/** Above 272K input tokens input and cache rates double and output costs 1.5 times as much. */
const GPT_6_2_SOL: ModelPricing = {
    input: 2,
    output: 10,
    cacheRead: 0.1,
    cacheWrite: 2.5,
    longPrompt: { aboveTokens: 272_000, input: 4, output: 15, cacheRead: 0.2, cacheWrite: 5 },
};
const GPT_5: ModelPricing = { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 };
const GPT_5_MINI: ModelPricing = { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 };
const GPT_5_NANO: ModelPricing = { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0 };

/** Google's launch price, $0.75/$3.75 until 2026-12-31 ($1.50/$7.50 from 2027-01-01). */
const GEMINI_3_8_FLASH: ModelPricing = {
    input: 0.75,
    output: 3.75,
    cacheRead: 0.075,
    // Creating cached content is billed as input (storage per hour is not counted).
    cacheWrite: 0.75,
};

const CLAUDE_THINKING_BUDGET = 16_000;

interface ClaudeBase {
    alias: string;
    id: string;
    display: string;
    contextLimitTokens: number;
    maxOutputTokens: number;
    pricing: ModelPricing;
    /** `budget`: a `-thinking` twin with a token budget; `adaptive`: the model decides (effort). */
    thinking: "budget" | "adaptive";
    source: ModelSource;
}

const CLAUDE_4_SOURCE: ModelSource = {
    url: "https://docs.anthropic.com/en/docs/about-claude/models/overview",
    // These rows came with North's first catalogue (2026-11-21).
    read: "2026-11-21",
};

const CLAUDE_MODELS: ClaudeBase[] = [
    {
        alias: "opus-5-5",
        id: "claude-opus-5-5",
        display: "Claude Opus 5.5",
        contextLimitTokens: 1_000_000,
        maxOutputTokens: 128_000,
        pricing: OPUS_5_5,
        thinking: "adaptive",
        source: anthropicPage("opus-5-5"),
    },
    {
        alias: "sonnet-5-5",
        id: "claude-sonnet-5-5",
        display: "Claude Sonnet 5.5",
        contextLimitTokens: 1_000_000,
        maxOutputTokens: 128_000,
        pricing: SONNET_5_5,
        thinking: "adaptive",
        source: { url: ANTHROPIC_PRICING_PAGE, read: READ },
    },
    {
        alias: "haiku-5-5",
        id: "claude-haiku-5-5",
        display: "Claude Haiku 5.5",
        contextLimitTokens: 1_000_000,
        maxOutputTokens: 128_000,
        pricing: HAIKU_5_5,
        thinking: "adaptive",
        source: { url: ANTHROPIC_PRICING_PAGE, read: READ },
    },
    {
        alias: "opus-5",
        id: "claude-opus-5",
        display: "Claude Opus 5",
        contextLimitTokens: 1_000_000,
        maxOutputTokens: 128_000,
        pricing: OPUS_5,
        thinking: "adaptive",
        source: anthropicPage("opus-5"),
    },
    {
        alias: "sonnet-5",
        id: "claude-sonnet-5",
        display: "Claude Sonnet 5",
        contextLimitTokens: 1_000_000,
        maxOutputTokens: 128_000,
        pricing: SONNET_5,
        thinking: "adaptive",
        source: anthropicPage("sonnet-5"),
    },
    {
        alias: "sonnet-4",
        id: "claude-sonnet-4-20250514",
        display: "Claude Sonnet 4",
        contextLimitTokens: 200_000,
        maxOutputTokens: 64_000,
        pricing: SONNET_4,
        thinking: "budget",
        source: CLAUDE_4_SOURCE,
    },
    {
        alias: "opus-4",
        id: "claude-opus-4-20250514",
        display: "Claude Opus 4",
        contextLimitTokens: 200_000,
        maxOutputTokens: 32_000,
        pricing: OPUS_4,
        thinking: "budget",
        source: CLAUDE_4_SOURCE,
    },
    {
        alias: "opus-4-1",
        id: "claude-opus-4-1-20250805",
        display: "Claude Opus 4.1",
        contextLimitTokens: 200_000,
        maxOutputTokens: 32_000,
        pricing: OPUS_4,
        thinking: "budget",
        source: CLAUDE_4_SOURCE,
    },
    {
        alias: "sonnet-4-5",
        id: "claude-sonnet-4-5-20250929",
        display: "Claude Sonnet 4.5",
        contextLimitTokens: 200_000,
        maxOutputTokens: 64_000,
        pricing: SONNET_4,
        thinking: "budget",
        source: CLAUDE_4_SOURCE,
    },
    {
        alias: "haiku-4-5",
        id: "claude-haiku-4-5-20251001",
        display: "Claude Haiku 4.5",
        contextLimitTokens: 200_000,
        maxOutputTokens: 64_000,
        pricing: HAIKU_4_5,
        thinking: "budget",
        source: anthropicPage("opus-5"),
    },
    {
        alias: "opus-4-5",
        id: "claude-opus-4-5-20251101",
        display: "Claude Opus 4.5",
        contextLimitTokens: 200_000,
        maxOutputTokens: 64_000,
        pricing: OPUS_4_5,
        thinking: "budget",
        source: CLAUDE_4_SOURCE,
    },
];

/**
 * Budget-thinking Claude models appear twice: fast, and with extended
 * thinking (`-thinking`). Adaptive models think on their own (Opus 5.5
 * cannot turn it off) and reject a manual budget, so they have no twin.
 */
function claudeVariants(base: ClaudeBase): ModelInfo[] {
    const common = {
        provider: "anthropic",
        contextLimitTokens: base.contextLimitTokens,
        maxOutputTokens: base.maxOutputTokens,
        pricing: base.pricing,
        // Every current Claude model reads text and images.
        images: true,
        thinking: base.thinking,
        source: base.source,
    };
    const fast: ModelInfo = { ...common, alias: base.alias, id: base.id, display: base.display };
    if (base.thinking === "adaptive") return [fast];
    return [
        fast,
        {
            ...common,
            alias: `${base.alias}-thinking`,
            id: `${base.id}-thinking`,
            display: `${base.display} (thinking)`,
            thinkingBudget: CLAUDE_THINKING_BUDGET,
        },
    ];
}

function gpt5(alias: string, display: string, pricing: ModelPricing): ModelInfo {
    // GPT-5 family: 400K window, of which up to 128K is output.
    return {
        alias,
        id: alias,
        display,
        provider: "openai",
        contextLimitTokens: 272_000,
        maxOutputTokens: 128_000,
        pricing,
        images: true,
        thinking: "effort",
        source: OPENAI_PRICING_PAGE,
    };
}

export const BUILTIN_MODELS: ModelInfo[] = [
    ...CLAUDE_MODELS.flatMap(claudeVariants),
    {
        alias: "gpt-6.2-sol",
        id: "gpt-6.2-sol",
        display: "GPT-6.2 Sol",
        provider: "openai",
        // 1,050,000 window, of which at most 922,000 input and 128,000 output.
        contextLimitTokens: 922_000,
        maxOutputTokens: 128_000,
        pricing: GPT_6_2_SOL,
        images: true,
        thinking: "effort",
        source: { url: "https://developers.openai.com/api/docs/models/gpt-6.2-sol", read: READ },
    },
    gpt5("gpt-5.1", "GPT-5.1", GPT_5),
    gpt5("gpt-5.1-codex", "GPT-5.1 Codex", GPT_5),
    gpt5("gpt-5.1-codex-mini", "GPT-5.1 Codex Mini", GPT_5_MINI),
    gpt5("gpt-5.1-codex-max", "GPT-5.1 Codex Max", GPT_5),
    gpt5("gpt-5", "GPT-5", GPT_5),
    gpt5("gpt-5-mini", "GPT-5 Mini", GPT_5_MINI),
    gpt5("gpt-5-nano", "GPT-5 Nano", GPT_5_NANO),
    {
        alias: "gemini-3.8-flash",
        id: "gemini-3.8-flash",
        display: "Gemini 3.8 Flash",
        provider: "gemini",
        contextLimitTokens: 1_048_576,
        maxOutputTokens: 65_536,
        pricing: GEMINI_3_8_FLASH,
        images: true,
        // thinking_level low / medium (default) / high; minimal is refused.
        thinking: "level",
        source: {
            url: "https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/gemini/3-8-flash",
            read: READ,
        },
    },
];

/**
 * Each provider's current general-purpose model, in the order a default is
 * looked for when neither `--model` nor a saved model names one: the first
 * whose provider is ready (key set, or a cloud switch on) wins.
 */
export const PROVIDER_DEFAULT_MODELS: ReadonlyArray<{ provider: string; model: string }> = [
    { provider: "anthropic", model: "claude-opus-5-5" },
    { provider: "openai", model: "gpt-6.2-sol" },
    { provider: "gemini", model: "gemini-3.8-flash" },
];
