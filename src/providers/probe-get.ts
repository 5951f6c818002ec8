/**
 * A GET on a provider's API through North's one transport (`node-fetch.ts`:
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY, NODE_EXTRA_CA_CERTS), signed like the
 * provider's POSTs: `north doctor`'s credential check (`probeModelList`) and
 * the model lists (`getJson`).
 */
import { sendNodeRequest } from "./node-fetch";
import { CredentialError } from "./errors";
import type { ProbeResult, ProviderEndpoint } from "./types";

export interface GetSpec {
    endpoint: ProviderEndpoint;
    /** The API's public base URL, used when the endpoint names none. */
    defaultBaseUrl: string;
    /** Path under the base URL, e.g. "/v1/models". */
    path: string;
    query?: Record<string, string>;
    /** The API's headers, auth included; the endpoint's own headers override them. */
    headers: Record<string, string>;
}

export interface GetAnswer {
    url: URL;
    status: number;
    /** The parsed JSON body, or undefined when it is not JSON. */
    body: unknown;
    text: string;
    /** The response's headers (retry-after, error type), for classifying a failure. */
    headers: Headers;
}

/** A models list is a few hundred KB at most; more is not an API answering. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

export function requestUrl(
    spec: Pick<GetSpec, "endpoint" | "defaultBaseUrl" | "path" | "query">
): URL {
    const base = spec.endpoint.baseUrl || spec.defaultBaseUrl;
    const url = new URL(
        base + (base.endsWith("/") && spec.path.startsWith("/") ? spec.path.slice(1) : spec.path)
    );
    for (const [name, value] of Object.entries(spec.query ?? {})) url.searchParams.set(name, value);
    return url;
}

/**
 * Sends the GET (after the endpoint's signer, if any) and reads the whole
 * answer, whatever its status. Rejects on a network failure, an abort, or
 * a `CredentialError` from the signer.
 */
export async function getJson(spec: GetSpec, signal: AbortSignal): Promise<GetAnswer> {
    const url = requestUrl(spec);
    const headers: Record<string, string> = { accept: "application/json", ...spec.headers };
    for (const [name, value] of Object.entries(spec.endpoint.headers ?? {}))
        headers[name.toLowerCase()] = value;
    await spec.endpoint.signer?.sign(
        { method: "GET", url, headers, body: Buffer.alloc(0) },
        signal
    );
    const res = await sendNodeRequest(url, { method: "GET", headers, body: null, signal });
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > MAX_BODY_BYTES) {
            res.destroy();
            throw new Error(`the answer from ${url.href} is larger than ${MAX_BODY_BYTES} bytes`);
        }
        chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    try {
        body = JSON.parse(text);
    } catch {
        body = undefined;
    }
    const responseHeaders = new Headers();
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
        responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
    return { url, status: res.statusCode ?? 0, body, text, headers: responseHeaders };
}

/** The message of an error body in the Anthropic, OpenAI or Google shape, or the text. */
export function errorMessageOf(answer: Pick<GetAnswer, "body" | "text">): string {
    const error = (answer.body as { error?: unknown } | undefined)?.error;
    if (typeof error === "object" && error !== null) {
        const { message, type } = error as { message?: unknown; type?: unknown };
        if (typeof message === "string" && message)
            return typeof type === "string" && type ? `${type}: ${message}` : message;
    }
    if (typeof error === "string" && error) return error;
    const flat = answer.text.replace(/\s+/g, " ").trim();
    return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat || "no body";
}

/** Why a request failed before any answer: the network error's code or the message. */
export function failureOf(error: unknown): string {
    if (error instanceof CredentialError) return error.message;
    const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
    if (cause?.code) return cause.code;
    if (cause?.message) return cause.message;
    return error instanceof Error ? error.message : String(error);
}

/**
 * `Provider.probe` for an API that lists its models: one GET with the
 * provider's credentials proves the key (or cloud credentials) and the
 * endpoint, and sends no prompt. A 404 proves only the endpoint: some
 * OpenAI-compatible servers list no models.
 */
export async function probeModelList(spec: GetSpec, signal: AbortSignal): Promise<ProbeResult> {
    const where = requestUrl(spec).href;
    let answer: GetAnswer;
    try {
        answer = await getJson(spec, signal);
    } catch (error) {
        if (error instanceof CredentialError) return { ok: false, detail: error.message };
        if (signal.aborted) return { ok: false, detail: `GET ${where}: no answer in time` };
        return { ok: false, detail: `GET ${where} failed: ${failureOf(error)}` };
    }
    const { status } = answer;
    if (status >= 200 && status < 300) {
        const data = (answer.body as { data?: unknown } | undefined)?.data;
        const listed = Array.isArray(data) ? `, ${data.length} model(s) listed` : "";
        return { ok: true, detail: `GET ${where}: credentials accepted (HTTP ${status}${listed})` };
    }
    const message = errorMessageOf(answer);
    if (status === 401 || status === 403)
        return {
            ok: false,
            detail: `GET ${where}: credentials refused (HTTP ${status}): ${message}`,
        };
    if (status === 404 || status === 405)
        return {
            ok: true,
            detail: `GET ${where}: reachable, lists no models (HTTP ${status}), so the credentials are not checked`,
        };
    if (status === 429)
        return { ok: true, detail: `GET ${where}: reachable, rate limited (HTTP 429): ${message}` };
    return { ok: false, detail: `GET ${where}: HTTP ${status}: ${message}` };
}
