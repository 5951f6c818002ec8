import type { IncomingMessage } from "node:http";
import { DEFAULT_REQUEST_TIMEOUT_MS, sendNodeRequest } from "./node-fetch";
import type { ProviderEndpoint } from "./types";

/**
 * Every provider's one transport: a streaming POST on node:http. It honours
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY (`proxy.ts`); Node itself adds
 * NODE_EXTRA_CA_CERTS to the certificates https trusts. The SDKs' own
 * variables for extra headers and request logging apply here too
 * (`customHeadersFromEnv`, `logEnv`). Failures are the SDK's error classes,
 * so they classify the same (`errors.ts`).
 */

/** How the SDK reports each failure, as its own error classes. */
export interface PostErrors {
    aborted(): Error;
    timedOut(): Error;
    connection(cause: Error): Error;
    status(
        status: number,
        body: object | undefined,
        message: string | undefined,
        headers: Headers
    ): Error;
}

export interface StreamingPostSpec {
    endpoint: ProviderEndpoint;
    /** The API's public base URL, used when the endpoint names none. */
    defaultBaseUrl: string;
    /** Path under the base URL, e.g. "/v1/messages". */
    path: string;
    /** Query parameters (Azure's `api-version`). */
    query?: Record<string, string>;
    /** This API's headers (auth, version); the endpoint's own headers override them. */
    headers: Record<string, string>;
    /** The variable that turns on request logging, as the API's SDK reads it (e.g. ANTHROPIC_LOG). */
    logEnv: string;
    /** Loads the SDK's errors; called only when a request fails. */
    errors: () => Promise<PostErrors>;
}

/**
 * Headers from a variable such as ANTHROPIC_CUSTOM_HEADERS: one `Name: value`
 * per line, read as the SDKs read it.
 */
export function customHeadersFromEnv(value: string | undefined): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const line of value?.split("\n") ?? []) {
        const colon = line.indexOf(":");
        if (colon >= 0)
            headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    return headers;
}

export function requestTimeoutMs(endpoint: ProviderEndpoint): number {
    return endpoint.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
}

/** A provider's streaming POST: `(body, signal)` resolves with the 2xx response, its body unread. */
export function streamingPoster<Body>(
    spec: StreamingPostSpec
): (body: Body, signal: AbortSignal) => Promise<IncomingMessage> {
    return (body, signal) => postStreaming(spec, body, signal);
}

/**
 * Sends the request and resolves with the 2xx response, its body unread.
 * The timeout covers the wait for the response headers, as in the SDKs.
 */
async function postStreaming(
    spec: StreamingPostSpec,
    body: unknown,
    signal: AbortSignal
): Promise<IncomingMessage> {
    const { endpoint, errors } = spec;
    const base = endpoint.baseUrl || spec.defaultBaseUrl;
    const url = new URL(
        base + (base.endsWith("/") && spec.path.startsWith("/") ? spec.path.slice(1) : spec.path)
    );
    for (const [name, value] of Object.entries(spec.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = { ...spec.headers };
    for (const [name, value] of Object.entries(endpoint.headers ?? {}))
        headers[name.toLowerCase()] = value;
    headers["content-type"] = "application/json";
    const log = requestLog(spec.logEnv, url);
    const payload = Buffer.from(JSON.stringify(body));
    // A credential failure is not a connection failure: it reaches classifyError as is.
    await endpoint.signer?.sign({ method: "POST", url, headers, body: payload }, signal);

    const timeout = new AbortController();
    const onAbort = (): void => timeout.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(onAbort, requestTimeoutMs(endpoint));
    let res: IncomingMessage;
    try {
        res = await sendNodeRequest(url, {
            method: "POST",
            headers,
            body: payload,
            signal: timeout.signal,
        });
    } catch (error) {
        clearTimeout(timer);
        // Decided before the SDK loads, so the wait cannot change the outcome.
        const failure = signal.aborted ? "aborted" : timeout.signal.aborted ? "timedOut" : "other";
        log?.(failure === "other" ? `failed: ${(error as Error).cause ?? error}` : failure);
        const sdk = await errors();
        if (failure === "aborted") throw sdk.aborted();
        if (failure === "timedOut") throw sdk.timedOut();
        throw sdk.connection(error instanceof Error ? error : new Error(String(error)));
    } finally {
        clearTimeout(timer);
    }
    // From here on the response follows the caller's signal only.
    signal.removeEventListener("abort", onAbort);
    if (signal.aborted) {
        res.destroy();
        throw (await errors()).aborted();
    }
    signal.addEventListener("abort", () => res.destroy(), { once: true });
    const status = res.statusCode ?? 500;
    log?.(`${status}`);
    if (status >= 200 && status < 300) return res;
    throw await statusError(res, status, errors);
}

/**
 * With the log variable at "info" or "debug" (the SDKs' levels that log
 * requests), one stderr line per request outcome; undefined otherwise.
 */
function requestLog(logEnv: string, url: URL): ((outcome: string) => void) | undefined {
    const level = process.env[logEnv]?.trim().toLowerCase();
    if (level !== "info" && level !== "debug") return undefined;
    const started = performance.now();
    return (outcome) =>
        process.stderr.write(
            `${logEnv}: POST ${url.href} ${outcome} after ${Math.round(performance.now() - started)} ms\n`
        );
}

/** The SDK's error for a non-2xx answer, built from its body as the SDK does. */
async function statusError(
    res: IncomingMessage,
    status: number,
    errors: () => Promise<PostErrors>
): Promise<Error> {
    const chunks: Buffer[] = [];
    try {
        for await (const chunk of res as AsyncIterable<Buffer>) chunks.push(chunk);
    } catch {
        // A body cut short still leaves the status to report.
    }
    const text = Buffer.concat(chunks).toString("utf8");
    let body: object | undefined;
    try {
        const parsed: unknown = JSON.parse(text);
        if (parsed !== null && typeof parsed === "object") body = parsed;
    } catch {
        body = undefined;
    }
    const headers = new Headers();
    const raw = res.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
    return (await errors()).status(status, body, body ? undefined : text, headers);
}
