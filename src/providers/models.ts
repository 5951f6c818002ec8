import { closestMatches } from "../util/levenshtein";
import {
    BUILTIN_MODELS,
    BUILTIN_PROVIDERS,
    DEFAULT_MODEL_ID,
    type ModelInfo,
    type ProviderInfo,
} from "./catalogue";
import type { ProviderApi, ProviderEndpoint } from "./types";

export interface UserProviderEntry {
    api?: ProviderApi;
    baseUrl?: string;
    apiKeyEnv?: string;
    headers?: Record<string, string>;
    display?: string;
}

export interface UserModelEntry {
    alias: string;
    id: string;
    provider: string;
    display?: string;
    contextLimitTokens?: number;
    maxOutputTokens?: number;
    thinkingBudget?: number;
    pricing?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
}

export interface ModelCatalogue {
    models: ModelInfo[];
    providers: Map<string, ProviderInfo>;
    defaultModelId: string;
}

const UNKNOWN_CONTEXT_LIMIT = 128_000;
const UNKNOWN_MAX_OUTPUT = 8_192;

/** Built-in catalogue merged with the user's providers and models (user entries win). */
export function buildCatalogue(
    userProviders: Record<string, UserProviderEntry> = {},
    userModels: UserModelEntry[] = [],
    defaultModelId = DEFAULT_MODEL_ID
): ModelCatalogue {
    const providers = new Map(BUILTIN_PROVIDERS.map((p) => [p.id, { ...p }]));
    for (const [id, entry] of Object.entries(userProviders)) {
        const base = providers.get(id);
        providers.set(id, {
            id,
            api: entry.api ?? base?.api ?? "openai-chat",
            display: entry.display ?? base?.display ?? id,
            apiKeyEnv: entry.apiKeyEnv ?? base?.apiKeyEnv,
            baseUrlEnv: base?.baseUrlEnv,
            baseUrl: entry.baseUrl ?? base?.baseUrl,
            headers: { ...base?.headers, ...entry.headers },
        });
    }
    const userInfos: ModelInfo[] = userModels.map((m) => ({
        alias: m.alias,
        id: m.id,
        provider: m.provider,
        display: m.display ?? m.id,
        contextLimitTokens: m.contextLimitTokens ?? UNKNOWN_CONTEXT_LIMIT,
        maxOutputTokens: m.maxOutputTokens ?? UNKNOWN_MAX_OUTPUT,
        thinkingBudget: m.thinkingBudget,
        pricing: m.pricing
            ? {
                  input: m.pricing.input,
                  output: m.pricing.output,
                  cacheRead: m.pricing.cacheRead ?? m.pricing.input,
                  cacheWrite: m.pricing.cacheWrite ?? m.pricing.input,
              }
            : undefined,
    }));
    const overridden = new Set(userInfos.flatMap((m) => [m.alias, m.id]));
    const builtins = BUILTIN_MODELS.filter(
        (m) => !overridden.has(m.alias) && !overridden.has(m.id)
    );
    return { models: [...userInfos, ...builtins], providers, defaultModelId };
}

export type ModelResolution =
    { ok: true; model: ModelInfo; provider: ProviderInfo } | { ok: false; error: string };

/**
 * Maps an alias, a pinned id or `provider:model-id` (any model of a configured
 * provider, e.g. `ollama:qwen2.5-coder`) to a catalogue entry.
 */
export function resolveModel(catalogue: ModelCatalogue, name: string): ModelResolution {
    const wanted = name.trim();
    const found = catalogue.models.find((m) => m.alias === wanted || m.id === wanted);
    if (found) {
        const provider = catalogue.providers.get(found.provider);
        if (!provider) {
            return {
                ok: false,
                error: `model "${found.alias}" names provider "${found.provider}", which is not configured`,
            };
        }
        return { ok: true, model: found, provider };
    }
    const colon = wanted.indexOf(":");
    if (colon > 0) {
        const providerId = wanted.slice(0, colon);
        const modelId = wanted.slice(colon + 1);
        const provider = catalogue.providers.get(providerId);
        if (provider && modelId) {
            const model: ModelInfo = {
                alias: wanted,
                id: modelId,
                display: modelId,
                provider: providerId,
                contextLimitTokens: UNKNOWN_CONTEXT_LIMIT,
                maxOutputTokens: UNKNOWN_MAX_OUTPUT,
            };
            return { ok: true, model, provider };
        }
    }
    const names = catalogue.models.map((m) => m.alias);
    const close = closestMatches(wanted, names);
    const hint = close.length > 0 ? ` Did you mean: ${close.join(", ")}?` : "";
    return {
        ok: false,
        error: `unknown model "${wanted}".${hint} Run \`north models\` to list every model.`,
    };
}

export type EndpointResolution =
    { ok: true; endpoint: ProviderEndpoint } | { ok: false; error: string };

type Env = Record<string, string | undefined>;

/** Key and base URL from the environment (which wins) and the provider's config. */
export function resolveEndpoint(provider: ProviderInfo, env: Env): EndpointResolution {
    const baseUrl =
        (provider.baseUrlEnv && env[provider.baseUrlEnv]) || provider.baseUrl || undefined;
    let apiKey = "not-needed";
    if (provider.apiKeyEnv) {
        const key = env[provider.apiKeyEnv];
        // A configured local server may leave its key variable unset.
        const keyRequired =
            provider.id === "anthropic" || provider.id === "openai" || !provider.baseUrl;
        if (key) apiKey = key;
        else if (keyRequired) {
            return {
                ok: false,
                error: `${provider.apiKeyEnv} is not set: export ${provider.apiKeyEnv}=... to use ${provider.display} models, or pick another model with --model.`,
            };
        }
    }
    return {
        ok: true,
        endpoint: {
            api: provider.api,
            baseUrl,
            apiKey,
            headers:
                provider.headers && Object.keys(provider.headers).length > 0
                    ? provider.headers
                    : undefined,
        },
    };
}
