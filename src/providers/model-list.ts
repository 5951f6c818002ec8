/**
 * The models an endpoint lists (`north models --refresh`): Anthropic's and
 * OpenAI's `GET /v1/models`, through North's one transport (the proxy
 * variables hold) and the endpoint's signer if it has one.
 */
// Nothing from streaming-post.ts: sharing it would split the chat path's provider chunk.
import { DEFAULT_REQUEST_TIMEOUT_MS, sendNodeRequest } from "./node-fetch";
import type { ListedModel, ProviderEndpoint } from "./types";

/** A list this long is a server looping on its cursor, not a catalogue. */
const MAX_PAGES = 50;
/** Error bodies are read for their message only. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** GETs `url` and parses the JSON answer; a non-2xx answer throws with the API's message. */
async function getJson(
    endpoint: ProviderEndpoint,
    url: URL,
    headers: Record<string, string>,
    signal: AbortSignal
): Promise<unknown> {
    const all: Record<string, string> = { accept: "application/json", ...headers };
    for (const [name, value] of Object.entries(endpoint.headers ?? {}))
        all[name.toLowerCase()] = value;
    await endpoint.signer?.sign(
        { method: "GET", url, headers: all, body: Buffer.alloc(0) },
        signal
    );
    // The caller's signal or the endpoint's timeout, whichever comes first.
    const timeout = new AbortController();
    const onAbort = (): void => timeout.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(onAbort, endpoint.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
    try {
        return await readJson(url, all, timeout.signal);
    } finally {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
    }
}

async function readJson(
    url: URL,
    headers: Record<string, string>,
    signal: AbortSignal
): Promise<unknown> {
    const res = await sendNodeRequest(url, { method: "GET", headers, body: null, signal });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
            res.destroy();
            throw new Error(`the model list from ${url.host} is over ${MAX_BODY_BYTES} bytes`);
        }
        chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString("utf8");
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
        throw new Error(`HTTP ${status} from ${url.origin}${url.pathname}: ${errorMessage(text)}`);
    }
    try {
        return JSON.parse(text) as unknown;
    } catch {
        throw new Error(`${url.origin}${url.pathname} did not answer JSON`);
    }
}

function errorMessage(body: string): string {
    try {
        const parsed = JSON.parse(body) as { error?: { message?: unknown } | string };
        const error = parsed.error;
        if (typeof error === "string") return error;
        if (error && typeof error.message === "string") return error.message;
    } catch {
        // Not JSON: the text itself, shortened.
    }
    return body.trim().slice(0, 200) || "(no body)";
}

function urlFor(endpoint: ProviderEndpoint, defaultBase: string, path: string): URL {
    const base = endpoint.baseUrl || defaultBase;
    return new URL(base.replace(/\/+$/, "") + path);
}

interface AnthropicModelPage {
    data?: Array<{ id?: unknown; display_name?: unknown }>;
    has_more?: unknown;
    last_id?: unknown;
}

/** Anthropic's `GET /v1/models`, every page (`after_id` cursor); `headers` has version and key. */
export async function listAnthropicModels(
    endpoint: ProviderEndpoint,
    headers: Record<string, string>,
    signal: AbortSignal
): Promise<ListedModel[]> {
    const models: ListedModel[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
        const url = urlFor(endpoint, "https://api.anthropic.com", "/v1/models");
        url.searchParams.set("limit", "1000");
        if (after) url.searchParams.set("after_id", after);
        const body = (await getJson(endpoint, url, headers, signal)) as AnthropicModelPage;
        if (!Array.isArray(body.data)) throw new Error("the model list has no data array");
        for (const m of body.data) {
            if (typeof m.id !== "string") continue;
            models.push({
                id: m.id,
                ...(typeof m.display_name === "string" ? { display: m.display_name } : {}),
            });
        }
        if (body.has_more !== true || typeof body.last_id !== "string") return models;
        after = body.last_id;
    }
    throw new Error(`the model list did not end after ${MAX_PAGES} pages`);
}

/** OpenAI's `GET /v1/models` (one page; the base URL includes `/v1`). */
export async function listOpenAIModels(
    endpoint: ProviderEndpoint,
    headers: Record<string, string>,
    signal: AbortSignal
): Promise<ListedModel[]> {
    const url = urlFor(endpoint, "https://api.openai.com/v1", "/models");
    const body = (await getJson(endpoint, url, headers, signal)) as {
        data?: Array<{ id?: unknown }>;
    };
    if (!Array.isArray(body.data)) throw new Error("the model list has no data array");
    return body.data.flatMap((m) => (typeof m.id === "string" ? [{ id: m.id }] : []));
}
