/**
 * The models an OpenAI-compatible endpoint lists (`GET {base}/models`): a
 * gateway's or local server's, for `north models --refresh`. OpenRouter adds
 * context lengths and per-token prices.
 */

import { errorMessageOf, getJson } from "./probe-get";
import { openAIModelsGet } from "./openai-post";
import type { ListedModel, ProviderEndpoint } from "./types";

/** One entry of `data`, with the fields OpenRouter adds (prices per token, as strings). */
interface ListedEntry {
    id?: unknown;
    name?: unknown;
    context_length?: unknown;
    top_provider?: { max_completion_tokens?: unknown } | null;
    pricing?: Record<string, unknown> | null;
}

export class ModelListError extends Error {
    override name = "ModelListError";
    constructor(
        message: string,
        readonly status?: number
    ) {
        super(message);
    }
}

export async function listOpenAIModels(
    endpoint: ProviderEndpoint,
    signal: AbortSignal
): Promise<ListedModel[]> {
    const answer = await getJson(openAIModelsGet(endpoint), signal);
    const { url, status } = answer;
    if (status < 200 || status >= 300) {
        throw new ModelListError(
            `GET ${url.origin}${url.pathname} answered ${status}: ${errorMessageOf(answer)}`,
            status
        );
    }
    if (answer.body === undefined) throw new ModelListError(`${url.href} did not answer JSON`);
    const data = (answer.body as { data?: unknown })?.data;
    if (!Array.isArray(data)) throw new ModelListError(`${url.href} answered no "data" list`);
    const models: ListedModel[] = [];
    for (const entry of data as ListedEntry[]) {
        if (typeof entry?.id !== "string" || !entry.id) continue;
        models.push(listedModel(entry, entry.id));
    }
    return models;
}

function listedModel(entry: ListedEntry, id: string): ListedModel {
    const model: ListedModel = { id };
    if (typeof entry.name === "string" && entry.name) model.display = entry.name;
    const context = positive(entry.context_length);
    if (context) model.contextLimitTokens = context;
    const output = positive(entry.top_provider?.max_completion_tokens);
    if (output) model.maxOutputTokens = output;
    const pricing = entry.pricing;
    const input = perMillion(pricing?.prompt);
    const outputPrice = perMillion(pricing?.completion);
    if (input !== undefined && outputPrice !== undefined) {
        model.pricing = { input, output: outputPrice };
        const read = perMillion(pricing?.input_cache_read);
        const write = perMillion(pricing?.input_cache_write);
        if (read !== undefined) model.pricing.cacheRead = read;
        if (write !== undefined) model.pricing.cacheWrite = write;
    }
    return model;
}

function positive(value: unknown): number | undefined {
    return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** OpenRouter prices a token in USD, as a decimal string; North's prices are per 1M tokens. */
function perMillion(value: unknown): number | undefined {
    const perToken = typeof value === "string" ? Number(value) : value;
    if (typeof perToken !== "number" || !Number.isFinite(perToken) || perToken < 0)
        return undefined;
    return Math.round(perToken * 1_000_000 * 1e6) / 1e6;
}
