import type { CloudSettings, ProviderApi, ProviderAuth } from "./types";

/** Prices in USD per 1M tokens. */
export interface ModelPricing {
    input: number;
    output: number;
    /** Cache hits (Anthropic cache read, OpenAI cached input). */
    cacheRead: number;
    /** Cache writes (Anthropic only; 5-minute cache rate). */
    cacheWrite: number;
}

export interface ModelInfo {
    /** Short name users type: `sonnet-4-5`, `gpt-5.1`. */
    alias: string;
    /** Pinned id; a `-thinking` suffix turns on extended thinking (Anthropic). */
    id: string;
    display: string;
    /** Key into the provider table (`anthropic`, `openai`, or a user-defined one). */
    provider: string;
    contextLimitTokens: number;
    maxOutputTokens: number;
    thinkingBudget?: number;
    /** Undefined when nobody knows the price: costs are then reported as unknown, never as 0. */
    pricing?: ModelPricing;
    /** Accepts image input (Claude 3+, GPT-4o/4.1/5); otherwise images are replaced by a note. */
    images?: boolean;
}

export interface ProviderInfo {
    id: string;
    api: ProviderApi;
    display: string;
    /** Environment variable holding the key; undefined means no key is needed (local servers). */
    apiKeyEnv?: string;
    /** Environment variable that overrides the base URL. */
    baseUrlEnv?: string;
    baseUrl?: string;
    headers?: Record<string, string>;
    /** Default `key` (see `ProviderAuth`). */
    auth?: ProviderAuth;
    /** The header the key goes in when not the API's usual one (Azure's `api-key`). */
    keyHeader?: string;
    cloud?: CloudSettings;
}

export const BUILTIN_PROVIDERS: ProviderInfo[] = [
    {
        id: "anthropic",
        api: "anthropic",
        display: "Anthropic",
        apiKeyEnv: "ANTHROPIC_API_KEY",
        baseUrlEnv: "ANTHROPIC_BASE_URL",
    },
    {
        id: "openai",
        api: "openai-responses",
        display: "OpenAI",
        apiKeyEnv: "OPENAI_API_KEY",
        baseUrlEnv: "OPENAI_BASE_URL",
    },
    {
        id: "gemini",
        api: "gemini",
        display: "Gemini API",
        apiKeyEnv: "GEMINI_API_KEY",
        baseUrlEnv: "GOOGLE_GEMINI_BASE_URL",
    },
];

const SONNET: ModelPricing = { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 };
const OPUS_4: ModelPricing = { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 };
const HAIKU_4_5: ModelPricing = { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 };
const OPUS_4_5: ModelPricing = { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 };
const GPT_5: ModelPricing = { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 };
const GPT_5_MINI: ModelPricing = { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 };
const GPT_5_NANO: ModelPricing = { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0 };

const CLAUDE_THINKING_BUDGET = 16_000;

interface ClaudeBase {
    alias: string;
    id: string;
    display: string;
    maxOutputTokens: number;
    pricing: ModelPricing;
}

const CLAUDE_MODELS: ClaudeBase[] = [
    {
        alias: "sonnet-4",
        id: "claude-sonnet-4-20250514",
        display: "Claude Sonnet 4",
        maxOutputTokens: 64_000,
        pricing: SONNET,
    },
    {
        alias: "opus-4",
        id: "claude-opus-4-20250514",
        display: "Claude Opus 4",
        maxOutputTokens: 32_000,
        pricing: OPUS_4,
    },
    {
        alias: "opus-4-1",
        id: "claude-opus-4-1-20250805",
        display: "Claude Opus 4.1",
        maxOutputTokens: 32_000,
        pricing: OPUS_4,
    },
    {
        alias: "sonnet-4-5",
        id: "claude-sonnet-4-5-20250929",
        display: "Claude Sonnet 4.5",
        maxOutputTokens: 64_000,
        pricing: SONNET,
    },
    {
        alias: "haiku-4-5",
        id: "claude-haiku-4-5-20251001",
        display: "Claude Haiku 4.5",
        maxOutputTokens: 64_000,
        pricing: HAIKU_4_5,
    },
    {
        alias: "opus-4-5",
        id: "claude-opus-4-5-20251101",
        display: "Claude Opus 4.5",
        maxOutputTokens: 64_000,
        pricing: OPUS_4_5,
    },
];

/** Each Claude model appears twice: fast, and with extended thinking (`-thinking`). */
function claudeVariants(base: ClaudeBase): ModelInfo[] {
    const common = {
        provider: "anthropic",
        contextLimitTokens: 200_000,
        maxOutputTokens: base.maxOutputTokens,
        pricing: base.pricing,
        // Every Claude 3 and 4 model reads images (docs.anthropic.com/en/docs/vision).
        images: true,
    };
    return [
        { ...common, alias: base.alias, id: base.id, display: base.display },
        {
            ...common,
            alias: `${base.alias}-thinking`,
            id: `${base.id}-thinking`,
            display: `${base.display} (thinking)`,
            thinkingBudget: CLAUDE_THINKING_BUDGET,
        },
    ];
}

function gpt(alias: string, display: string, pricing: ModelPricing): ModelInfo {
    // GPT-5 family: 400K window, of which up to 128K is output.
    return {
        alias,
        id: alias,
        display,
        provider: "openai",
        contextLimitTokens: 272_000,
        maxOutputTokens: 128_000,
        pricing,
        // The GPT-5 family takes text and image input.
        images: true,
    };
}

export const BUILTIN_MODELS: ModelInfo[] = [
    ...CLAUDE_MODELS.flatMap(claudeVariants),
    gpt("gpt-5.1", "GPT-5.1", GPT_5),
    gpt("gpt-5.1-codex", "GPT-5.1 Codex", GPT_5),
    gpt("gpt-5.1-codex-mini", "GPT-5.1 Codex Mini", GPT_5_MINI),
    gpt("gpt-5.1-codex-max", "GPT-5.1 Codex Max", GPT_5),
    gpt("gpt-5", "GPT-5", GPT_5),
    gpt("gpt-5-mini", "GPT-5 Mini", GPT_5_MINI),
    gpt("gpt-5-nano", "GPT-5 Nano", GPT_5_NANO),
];

export const DEFAULT_MODEL_ID = "claude-sonnet-4-20250514";

export const THINKING_SUFFIX = "-thinking";

export function isThinkingModel(modelId: string): boolean {
    return modelId.endsWith(THINKING_SUFFIX);
}

/** The id sent on the wire: the `-thinking` suffix is North's, not the API's. */
export function apiModelId(modelId: string): string {
    return isThinkingModel(modelId) ? modelId.slice(0, -THINKING_SUFFIX.length) : modelId;
}

/**
 * Cost in USD of one response. Usage is normalised (input excludes cached
 * tokens), so the same additive formula serves Anthropic, where the fields are
 * reported that way, and OpenAI, where the provider subtracts cached tokens.
 */
export function calculateCost(
    pricing: ModelPricing | undefined,
    usage: {
        inputTokens: number;
        outputTokens: number;
        cacheReadTokens: number;
        cacheWriteTokens: number;
    }
): number | null {
    if (!pricing) return null;
    return (
        (usage.inputTokens * pricing.input +
            usage.outputTokens * pricing.output +
            usage.cacheReadTokens * pricing.cacheRead +
            usage.cacheWriteTokens * pricing.cacheWrite) /
        1_000_000
    );
}

/**
 * The spec's cost format: `$0.004` for small sums, `$1.50` otherwise, `$?`
 * when unknown; a spend too small for three decimals is `<$0.001`, never `$0.000`.
 */
export function formatCost(usd: number | null): string {
    if (usd === null) return "$?";
    if (usd === 0) return "$0.00";
    if (usd < 0.0005) return "<$0.001";
    if (usd < 0.1) return `$${usd.toFixed(3)}`;
    return `$${usd.toFixed(2)}`;
}
