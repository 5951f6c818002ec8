import type { IncomingMessage } from "node:http";
import { DEFAULT_REQUEST_TIMEOUT_MS, sendNodeRequest } from "./node-fetch";
import type { ProviderEndpoint } from "./types";

/**
 * Streaming POSTs sent straight on node:http with the headers the SDK would
 * send. The SDKs build every request with `new Headers()`, and the first use
 * of `Headers` loads Node's bundled undici (~40 ms of CPU on every print run).
 * Failures are still the SDK's error classes, so they classify the same; the
 * SDK is loaded only then (`errors`), and only a non-2xx answer touches
 * `Headers` (to build the SDK's status error).
 */

/** How the SDK reports each failure, as its own error classes. */
export interface DirectPostErrors {
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

export interface DirectPost {
    endpoint: ProviderEndpoint;
    /** The SDK's default base URL, used when the endpoint names none. */
    defaultBaseUrl: string;
    /** Path under the base URL, e.g. "/v1/messages". */
    path: string;
    /** The SDK's own headers for this API (auth, version), before the endpoint's. */
    headers: Record<string, string>;
    body: unknown;
    signal: AbortSignal;
    /** Loads the SDK's errors; called only when the request fails. */
    errors: () => Promise<DirectPostErrors>;
}

/**
 * The `x-stainless-*` headers both SDKs send from Node (the OpenAI SDK sends
 * no timeout header unless a request sets its own timeout).
 */
export function stainlessHeaders(
    packageVersion: string,
    timeoutMs: number | undefined
): Record<string, string> {
    return {
        accept: "application/json",
        "x-stainless-retry-count": "0",
        ...(timeoutMs === undefined
            ? {}
            : { "x-stainless-timeout": String(Math.trunc(timeoutMs / 1000)) }),
        "x-stainless-lang": "js",
        "x-stainless-package-version": packageVersion,
        "x-stainless-os": platformName(process.platform),
        "x-stainless-arch": archName(process.arch),
        "x-stainless-runtime": "node",
        "x-stainless-runtime-version": process.version,
    };
}

/**
 * True when none of `envNames` is set: those variables change what the SDK
 * sends (extra headers, other credentials, request logging), so requests
 * then go through the SDK itself.
 */
export function directPostApplies(envNames: readonly string[]): boolean {
    return envNames.every((name) => !process.env[name]?.trim());
}

export function requestTimeoutMs(endpoint: ProviderEndpoint): number {
    return endpoint.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
}

/** What one provider's direct sender states: the rest is the same for every SDK. */
export interface DirectSenderSpec<Body> {
    endpoint: ProviderEndpoint;
    /** Sent as a bearer token; empty leaves credentials to the SDK (profiles, tokens). */
    apiKey: string;
    /** Variables that change what the SDK sends: with one set, requests go through the SDK. */
    sdkEnv: readonly string[];
    /** For the user agent, e.g. "Anthropic" sends "Anthropic/JS <version>". */
    sdkName: string;
    sdkVersion: string;
    /** The SDK sends `x-stainless-timeout` on every request (the OpenAI SDK does not). */
    sendsTimeout: boolean;
    defaultBaseUrl: string;
    path: string;
    /** Headers of this API the SDK adds (e.g. `anthropic-version`). */
    apiHeaders?: Record<string, string>;
    /** Loads the SDK's errors; called only when a direct request fails. */
    errors: () => Promise<DirectPostErrors>;
    /** Sends the request through the SDK (loaded then) and resolves with the raw 2xx response. */
    viaSdk: (body: Body, signal: AbortSignal) => Promise<Response>;
}

/**
 * A provider's streaming POST: straight on node:http when the configuration
 * is the plain case (`directPostApplies`), through the SDK otherwise.
 */
export function directSender<Body>(
    spec: DirectSenderSpec<Body>
): (body: Body, signal: AbortSignal) => Promise<Response | IncomingMessage> {
    const { endpoint, apiKey, sdkVersion } = spec;
    const direct = apiKey !== "" && directPostApplies(spec.sdkEnv);
    return (body, signal) =>
        direct
            ? postDirect({
                  endpoint,
                  defaultBaseUrl: spec.defaultBaseUrl,
                  path: spec.path,
                  headers: {
                      ...stainlessHeaders(
                          sdkVersion,
                          spec.sendsTimeout ? requestTimeoutMs(endpoint) : undefined
                      ),
                      "user-agent": `${spec.sdkName}/JS ${sdkVersion}`,
                      ...spec.apiHeaders,
                      authorization: `Bearer ${apiKey}`,
                  },
                  body,
                  signal,
                  errors: spec.errors,
              })
            : spec.viaSdk(body, signal);
}

/**
 * Sends the request and resolves with the 2xx response, its body unread.
 * The timeout covers the wait for the response headers, as in the SDKs.
 */
export async function postDirect(post: DirectPost): Promise<IncomingMessage> {
    const { endpoint, signal, errors } = post;
    const base = endpoint.baseUrl || post.defaultBaseUrl;
    const url = new URL(
        base + (base.endsWith("/") && post.path.startsWith("/") ? post.path.slice(1) : post.path)
    );
    const headers: Record<string, string> = { ...post.headers };
    for (const [name, value] of Object.entries(endpoint.headers ?? {}))
        headers[name.toLowerCase()] = value;
    headers["content-type"] = "application/json";

    const timeout = new AbortController();
    const onAbort = (): void => timeout.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(onAbort, requestTimeoutMs(endpoint));
    let res: IncomingMessage;
    try {
        res = await sendNodeRequest(url, {
            method: "POST",
            headers,
            body: Buffer.from(JSON.stringify(post.body)),
            signal: timeout.signal,
        });
    } catch (error) {
        clearTimeout(timer);
        // Decided before the SDK loads, so the wait cannot change the outcome.
        const failure = signal.aborted ? "aborted" : timeout.signal.aborted ? "timedOut" : "other";
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
    if (status >= 200 && status < 300) return res;
    throw await statusError(res, status, errors);
}

/** The SDK's error for a non-2xx answer, built from its body as the SDK does. */
async function statusError(
    res: IncomingMessage,
    status: number,
    errors: () => Promise<DirectPostErrors>
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

function platformName(platform: string): string {
    const names: Record<string, string> = {
        android: "Android",
        darwin: "MacOS",
        win32: "Windows",
        freebsd: "FreeBSD",
        openbsd: "OpenBSD",
        linux: "Linux",
    };
    const lower = platform.toLowerCase();
    if (lower.includes("ios")) return "iOS";
    return names[lower] ?? (lower ? `Other:${lower}` : "Unknown");
}

function archName(arch: string): string {
    if (arch === "x32" || arch === "arm" || arch === "arm64" || arch === "x64") return arch;
    if (arch === "x86_64") return "x64";
    if (arch === "aarch64") return "arm64";
    return arch ? `other:${arch}` : "unknown";
}
