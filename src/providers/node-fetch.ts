import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import type { ReadableStream as NodeWebStream } from "node:stream/web";
import { proxiedRequest, proxyFor } from "./proxy";
import type { ProviderEndpoint } from "./types";

/**
 * A `fetch` for the SDKs built on node:http. Node's own fetch parses HTTP with
 * a WebAssembly module whose background compilation holds up process exit by
 * tens of milliseconds on every print-mode run; plain node:http has no such
 * cost. Bodies the SDKs never send (streams, forms) go to the global fetch.
 * Requests honour HTTPS_PROXY, HTTP_PROXY and NO_PROXY (`proxy.ts`).
 */
const agents = {
    "http:": new http.Agent({ keepAlive: true }),
    "https:": new https.Agent({ keepAlive: true }),
};

function abortError(): Error {
    const error = new Error("This operation was aborted");
    error.name = "AbortError";
    return error;
}

function headerRecord(headers: RequestInit["headers"]): Record<string, string> {
    const out: Record<string, string> = {};
    if (!headers) return out;
    if (Array.isArray(headers)) {
        for (const [key, value] of headers) out[key!.toLowerCase()] = value!;
    } else if (headers instanceof Headers) {
        (headers as Headers).forEach((value, key) => (out[key.toLowerCase()] = value));
    } else {
        for (const [key, value] of Object.entries(headers as Record<string, string>)) {
            if (value !== undefined) out[key.toLowerCase()] = String(value);
        }
    }
    return out;
}

function bufferBody(body: RequestInit["body"]): Buffer | null | undefined {
    if (body === undefined || body === null) return null;
    if (typeof body === "string") return Buffer.from(body);
    if (body instanceof Uint8Array)
        return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    if (body instanceof ArrayBuffer) return Buffer.from(body);
    return undefined; // a stream or form: not ours to handle
}

interface LazyBody {
    stream: ReadableStream<Uint8Array>;
    res: IncomingMessage;
    /** Set once the web stream was read or the body was claimed: one reader only. */
    taken: boolean;
}

const nodeBodies = new WeakMap<Response, LazyBody>();

/**
 * A web stream over `res` that adapts it only when first read: the SDKs read
 * error bodies this way, while a streamed answer is read straight from `res`
 * (`claimNodeBody`), without web-stream adapters on the hot path.
 */
function lazyBody(res: IncomingMessage): LazyBody {
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    const body: LazyBody = {
        res,
        taken: false,
        stream: new ReadableStream<Uint8Array>(
            {
                async pull(controller) {
                    if (!reader) {
                        if (body.taken) throw new TypeError("the body was already read");
                        body.taken = true;
                        const web = Readable.toWeb(res) as NodeWebStream<Uint8Array>;
                        reader = (web as unknown as ReadableStream<Uint8Array>).getReader();
                    }
                    const { done, value } = await reader.read();
                    if (done) controller.close();
                    else controller.enqueue(value);
                },
                cancel(reason) {
                    if (reader) return reader.cancel(reason);
                    res.destroy();
                    return undefined;
                },
            },
            // Nothing is pulled before someone reads.
            { highWaterMark: 0 }
        ),
    };
    return body;
}

/**
 * The node:http response behind a `nodeFetch` Response whose body nobody has
 * read yet, for the caller to read directly; undefined for other responses.
 */
export function claimNodeBody(response: Response): IncomingMessage | undefined {
    const body = nodeBodies.get(response);
    if (!body || body.taken || response.bodyUsed) return undefined;
    body.taken = true;
    return body.res;
}

export interface NodeRequest {
    method: string;
    headers: Record<string, string>;
    body: Buffer | null;
    signal?: AbortSignal;
}

/**
 * Sends one request on node:http (through the proxy, if any) and resolves
 * with the response once its headers arrive. Rejects like `fetch`: an
 * AbortError, or `TypeError("fetch failed")` with the network error as cause.
 */
export function sendNodeRequest(url: URL, init: NodeRequest): Promise<IncomingMessage> {
    const { signal, body } = init;
    return new Promise<IncomingMessage>((resolve, reject) => {
        if (signal?.aborted) {
            reject(abortError());
            return;
        }
        const headers = init.headers;
        if (body) headers["content-length"] = String(body.length);
        const proxy = proxyFor(url, process.env);
        if (!proxy.ok) {
            reject(new TypeError("fetch failed", { cause: new Error(proxy.error) }));
            return;
        }
        const route = proxy.proxy
            ? proxiedRequest(url, proxy.proxy, headers)
            : {
                  transport: url.protocol === "https:" ? https : http,
                  url,
                  options: { headers, agent: agents[url.protocol as keyof typeof agents] },
              };
        const onAbort = (): void => {
            request.destroy(abortError());
        };
        const request = route.transport.request(
            route.url,
            { method: init.method, ...route.options },
            (res) => {
                signal?.removeEventListener("abort", onAbort);
                signal?.addEventListener("abort", () => res.destroy(abortError()), { once: true });
                resolve(res);
            }
        );
        signal?.addEventListener("abort", onAbort, { once: true });
        request.on("error", (error) => {
            signal?.removeEventListener("abort", onAbort);
            reject(
                error.name === "AbortError"
                    ? error
                    : new TypeError("fetch failed", { cause: error })
            );
        });
        request.end(body ?? undefined);
    });
}

export function nodeFetch(
    input: string | URL | Request,
    init: RequestInit = {}
): Promise<Response> {
    const body = bufferBody(init.body);
    const isRequest = typeof input === "object" && !(input instanceof URL);
    if (body === undefined || isRequest) return fetch(input, init);
    const url = new URL(String(input));
    if (!(url.protocol in agents)) return fetch(input, init);
    const method = init.method ?? "GET";
    const request = sendNodeRequest(url, {
        method,
        headers: headerRecord(init.headers),
        body,
        signal: init.signal ?? undefined,
    });
    return request.then((res) => {
        const responseHeaders = new Headers();
        const raw = res.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) responseHeaders.append(raw[i]!, raw[i + 1]!);
        const status = res.statusCode ?? 500;
        const noBody = status === 204 || status === 304 || method === "HEAD";
        if (noBody) res.resume();
        const lazy = noBody ? null : lazyBody(res);
        const response = new Response(lazy?.stream ?? null, {
            status,
            statusText: res.statusMessage ?? "",
            headers: responseHeaders,
        });
        if (lazy) nodeBodies.set(response, lazy);
        return response;
    });
}

/** The spec's request timeout, for every provider. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Client options shared by the Anthropic and OpenAI SDKs: this fetch, no SDK
 * retries (the engine retries, with the spec's policy), the 10-minute timeout.
 */
export function sdkClientOptions(endpoint: ProviderEndpoint, apiKey = endpoint.apiKey) {
    return {
        fetch: nodeFetch,
        apiKey,
        baseURL: endpoint.baseUrl,
        maxRetries: 0,
        timeout: endpoint.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
        defaultHeaders: endpoint.headers,
    };
}
