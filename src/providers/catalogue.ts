import type { CloudSettings, ProviderApi, ProviderAuth } from "./types";

/** Prices in USD per 1M tokens. */
export interface TokenRates {
    input: number;
    output: number;
    /** Cache hits (Anthropic cache read, OpenAI cached input). */
    cacheRead: number;
    /** Cache writes (5-minute cache rate where there are several). */
    cacheWrite: number;
}

export interface ModelPricing extends TokenRates {
    /**
     * A long-prompt tier: a request whose prompt (input, cache reads and
     * writes) is over `aboveTokens` pays these rates on every token, output
     * included (OpenAI above 272K, Claude Haiku 5.5 above 100K).
     */
    longPrompt?: TokenRates & { aboveTokens: number };
}

/** Where a catalogue entry's figures were read, and when. */
export interface ModelSource {
    url: string;
    /** YYYY-MM-DD. */
    read: string;
}

/**
 * How a model thinks: `budget` (a token budget, North's `-thinking` twin),
 * `adaptive` (Claude 5: the model decides, steered by effort), `effort`
 * (OpenAI reasoning effort), `level` (Gemini thinking level).
 */
export type ThinkingSupport = "budget" | "adaptive" | "effort" | "level";

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
    thinking?: ThinkingSupport;
    /** Built-in entries: the page the figures come from. */
    source?: ModelSource;
    /**
     * The id the serving provider knows the model by when it is not `id`
     * (a Claude model routed to Bedrock: `us.anthropic.claude-…`).
     */
    wireId?: string;
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
        // Region, profile and the AWS endpoint variables are read in providers/bedrock/.
        id: "bedrock",
        api: "bedrock",
        display: "Amazon Bedrock",
        auth: "aws",
        baseUrlEnv: "ANTHROPIC_BEDROCK_BASE_URL",
    },
    // Azure hosts (azure-endpoint.ts): the key variable when set, else Entra ID tokens.
    {
        id: "azure",
        api: "openai-responses",
        display: "Azure OpenAI",
        baseUrlEnv: "AZURE_OPENAI_ENDPOINT",
        auth: "azure",
    },
    {
        id: "foundry",
        api: "anthropic",
        display: "Microsoft Foundry",
        baseUrlEnv: "ANTHROPIC_FOUNDRY_BASE_URL",
        auth: "azure",
    },
    // Gateways and hosts of the Chat Completions protocol, as each one's docs give base and key.
    {
        id: "openrouter",
        api: "openai-chat",
        display: "OpenRouter",
        apiKeyEnv: "OPENROUTER_API_KEY",
        baseUrl: "https://openrouter.ai/api/v1",
        // OpenRouter's app attribution (an `http-referer` can be added in providers.openrouter.headers).
        headers: { "x-title": "North" },
    },
    {
        id: "vercel",
        api: "openai-chat",
        display: "Vercel AI Gateway",
        apiKeyEnv: "AI_GATEWAY_API_KEY",
        baseUrl: "https://ai-gateway.vercel.sh/v1",
    },
    {
        id: "groq",
        api: "openai-chat",
        display: "Groq",
        apiKeyEnv: "GROQ_API_KEY",
        baseUrl: "https://api.groq.com/openai/v1",
    },
    {
        id: "deepseek",
        api: "openai-chat",
        display: "DeepSeek",
        apiKeyEnv: "DEEPSEEK_API_KEY",
        baseUrl: "https://api.deepseek.com/v1",
    },
    {
        id: "xai",
        api: "openai-chat",
        display: "xAI",
        apiKeyEnv: "XAI_API_KEY",
        baseUrl: "https://api.x.ai/v1",
    },
    {
        id: "vertex",
        api: "vertex",
        display: "Google Vertex AI",
        auth: "google",
        // Claude Code's variable; it includes the `/v1` (src/providers/vertex/vertex-location.ts).
        baseUrlEnv: "ANTHROPIC_VERTEX_BASE_URL",
    },
    {
        id: "gemini",
        api: "gemini",
        display: "Gemini API",
        apiKeyEnv: "GEMINI_API_KEY",
        baseUrlEnv: "GOOGLE_GEMINI_BASE_URL",
    },
];

export { BUILTIN_MODELS, PROVIDER_DEFAULT_MODELS } from "./catalogue-models";

/** The first default's model: Anthropic's current general-purpose model (the spec's was Sonnet 4). */
export const DEFAULT_MODEL_ID = "claude-opus-5-5";

export const THINKING_SUFFIX = "-thinking";

export function isThinkingModel(modelId: string): boolean {
    return modelId.endsWith(THINKING_SUFFIX);
}

/** The id sent on the wire: the `-thinking` suffix is North's, not the API's. */
export function apiModelId(modelId: string): string {
    return isThinkingModel(modelId) ? modelId.slice(0, -THINKING_SUFFIX.length) : modelId;
}

/** The id a model is requested by from its provider (its cloud id when rerouted). */
export function wireModelId(model: Pick<ModelInfo, "id" | "wireId">): string {
    return model.wireId ?? apiModelId(model.id);
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
        costUsd?: number;
    }
): number | null {
    // What the response says it cost (a gateway's bill) beats our price list.
    if (usage.costUsd !== undefined) return usage.costUsd;
    if (!pricing) return null;
    const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    const long = pricing.longPrompt;
    const rates: TokenRates = long && prompt > long.aboveTokens ? long : pricing;
    return (
        (usage.inputTokens * rates.input +
            usage.outputTokens * rates.output +
            usage.cacheReadTokens * rates.cacheRead +
            usage.cacheWriteTokens * rates.cacheWrite) /
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
