/**
 * An `HttpClient` for `@azure/identity`'s pipeline that sends through North's
 * transport (`node-fetch.ts`), so token requests honour HTTPS_PROXY /
 * HTTP_PROXY / NO_PROXY and NODE_EXTRA_CA_CERTS like every model request.
 */

import type {
    HttpClient,
    HttpHeaders,
    PipelineRequest,
    PipelineResponse,
    RawHttpHeaders,
} from "@azure/core-rest-pipeline";

type Fetch = (url: string, init: RequestInit) => Promise<Response>;

export function northHttpClient(fetchImpl: Fetch): HttpClient {
    return {
        async sendRequest(request: PipelineRequest): Promise<PipelineResponse> {
            const signals: AbortSignal[] = [];
            if (request.abortSignal) signals.push(request.abortSignal as AbortSignal);
            if (request.timeout > 0) signals.push(AbortSignal.timeout(request.timeout));
            const response = await fetchImpl(request.url, {
                method: request.method,
                headers: request.headers.toJSON(),
                body: requestBody(request),
                signal: signals.length > 0 ? AbortSignal.any(signals) : undefined,
            });
            const headers = headerMap();
            response.headers.forEach((value, name) => headers.set(name, value));
            return {
                request,
                status: response.status,
                headers,
                bodyAsText: await response.text(),
            };
        },
    };
}

/** Token requests carry a form as text or a form map; nothing larger. */
function requestBody(request: PipelineRequest): string | undefined {
    if (typeof request.body === "string") return request.body;
    if (request.formData) {
        const form = new URLSearchParams();
        for (const [name, value] of Object.entries(request.formData)) {
            for (const item of Array.isArray(value) ? value : [value]) {
                if (typeof item === "string") form.append(name, item);
            }
        }
        return form.toString();
    }
    if (request.body === undefined || request.body === null) return undefined;
    throw new Error(
        `Entra ID: a token request body of type ${typeof request.body} is not supported`
    );
}

/** Case-insensitive headers, the shape the pipeline reads responses with. */
function headerMap(): HttpHeaders {
    const values = new Map<string, { name: string; value: string }>();
    return {
        get: (name) => values.get(name.toLowerCase())?.value,
        has: (name) => values.has(name.toLowerCase()),
        set: (name, value) => void values.set(name.toLowerCase(), { name, value: String(value) }),
        delete: (name) => void values.delete(name.toLowerCase()),
        toJSON: (options) => {
            const out: RawHttpHeaders = {};
            for (const [key, entry] of values)
                out[options?.preserveCase ? entry.name : key] = entry.value;
            return out;
        },
        *[Symbol.iterator]() {
            for (const [key, entry] of values) yield [key, entry.value] as [string, string];
        },
    };
}
