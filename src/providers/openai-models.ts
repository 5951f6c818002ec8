/**
 * `GET {base}/models` on an OpenAI-compatible endpoint: the models a gateway
 * or local server lists (`north models --refresh`), and the doctor's probe,
 * which proves the key and the endpoint without sending a prompt.
 */

import type { IncomingMessage } from "node:http";
import { CredentialError } from "./errors";
import { sendNodeRequest } from "./node-fetch";
import { openAIAuthHeaders, openAIEnvHeaders, openAIQuery } from "./openai-post";
import type { ListedModel, ProbeResult, ProviderEndpoint } from "./types";

const DEFAULT_BASE_URL = "https://api.openai.com/v1";
/** A list is a few hundred KB at most (OpenRouter's); more is not a model list. */
const MAX_LIST_BYTES = 16 * 1024 * 1024;
const PROBE_TIMEOUT_MS = 15_000;

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
    const { url, body } = await getModels(endpoint, signal);
    let parsed: unknown;
    try {
        parsed = JSON.parse(body);
    } catch {
        throw new ModelListError(`${url.href} did not answer JSON`);
    }
    const data = (parsed as { data?: unknown })?.data;
    if (!Array.isArray(data)) throw new ModelListError(`${url.href} answered no "data" list`);
    const models: ListedModel[] = [];
    for (const entry of data as ListedEntry[]) {
        if (typeof entry?.id !== "string" || !entry.id) continue;
        models.push(listedModel(entry, entry.id));
    }
    return models;
}

export async function probeOpenAIModels(
    endpoint: ProviderEndpoint,
    label: string,
    signal: AbortSignal
): Promise<ProbeResult> {
    const limit = AbortSignal.any([signal, AbortSignal.timeout(PROBE_TIMEOUT_MS)]);
    try {
        const { url, body } = await getModels(endpoint, limit);
        const count = (JSON.parse(body) as { data?: unknown[] })?.data?.length;
        const listed = typeof count === "number" ? `, ${count} models listed` : "";
        return { ok: true, detail: `${label}: ${url.origin} accepts the credentials${listed}` };
    } catch (error) {
        if (error instanceof CredentialError || error instanceof ModelListError)
            return { ok: false, detail: `${label}: ${error.message}` };
        const timedOut = limit.aborted && !signal.aborted;
        const reason = timedOut
            ? `no answer after ${PROBE_TIMEOUT_MS / 1000} s`
            : String((error as Error).cause ?? (error as Error).message ?? error);
        return { ok: false, detail: `${label}: cannot reach ${baseUrl(endpoint)}: ${reason}` };
    }
}

function baseUrl(endpoint: ProviderEndpoint): string {
    return endpoint.baseUrl || DEFAULT_BASE_URL;
}

async function getModels(
    endpoint: ProviderEndpoint,
    signal: AbortSignal
): Promise<{ url: URL; body: string }> {
    const base = baseUrl(endpoint).replace(/\/+$/, "");
    const url = new URL(`${base}/models`);
    for (const [name, value] of Object.entries(openAIQuery(endpoint) ?? {}))
        url.searchParams.set(name, value);
    const headers: Record<string, string> = {
        accept: "application/json",
        ...openAIEnvHeaders(process.env),
        ...openAIAuthHeaders(endpoint, endpoint.apiKey || "not-needed"),
    };
    for (const [name, value] of Object.entries(endpoint.headers ?? {}))
        headers[name.toLowerCase()] = value;
    await endpoint.signer?.sign({ method: "GET", url, headers, body: Buffer.alloc(0) }, signal);
    const res = await sendNodeRequest(url, { method: "GET", headers, body: null, signal });
    const body = await readBody(res);
    const status = res.statusCode ?? 500;
    if (status >= 200 && status < 300) return { url, body };
    throw new ModelListError(statusMessage(url, status, body), status);
}

async function readBody(res: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_LIST_BYTES) {
            res.destroy();
            throw new ModelListError(`the model list passed ${MAX_LIST_BYTES} bytes`);
        }
        chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString("utf8");
}

/** The service's own words (OpenAI's and Azure's `error.message`), and what to do about a refusal. */
function statusMessage(url: URL, status: number, body: string): string {
    let said = "";
    try {
        const error = (JSON.parse(body) as { error?: { message?: unknown } | string })?.error;
        const message = typeof error === "string" ? error : error?.message;
        if (typeof message === "string") said = `: ${message}`;
    } catch {
        said = body.trim() ? `: ${body.trim().slice(0, 200)}` : "";
    }
    const hint =
        status === 401 || status === 403
            ? " (the key or token was refused: check it, or its access to this resource)"
            : status === 404
              ? " (no such path: check the base URL and api-version)"
              : "";
    return `GET ${url.origin}${url.pathname} answered ${status}${said}${hint}`;
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
