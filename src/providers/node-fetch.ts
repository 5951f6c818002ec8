import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import { proxiedRequest, proxyFor } from "./proxy";

/**
 * Requests on node:http through HTTPS_PROXY / HTTP_PROXY / NO_PROXY
 * (`proxy.ts`): `sendNodeRequest` for the providers (`streaming-post.ts`),
 * `nodeFetch`, a `fetch` over it, for MCP's HTTP servers. Node's own fetch
 * ignores the proxy variables.
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
        const body = noBody ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
        return new Response(body, {
            status,
            statusText: res.statusMessage ?? "",
            headers: responseHeaders,
        });
    });
}

/** The spec's request timeout, for every provider. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10 * 60 * 1000;
