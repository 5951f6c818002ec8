/**
 * A request handler for the AWS libraries' own clients (STS, SSO, the
 * credential and token services they call), sending through North's one
 * transport so those requests honour HTTPS_PROXY / NO_PROXY as well.
 */

import type { IncomingMessage } from "node:http";
import { sendNodeRequest } from "../node-fetch";

/** The fields of a Smithy `HttpRequest` this handler reads. */
export interface SmithyRequest {
    method: string;
    protocol: string;
    hostname: string;
    port?: number;
    path: string;
    query?: Record<string, string | Array<string> | null>;
    headers: Record<string, string>;
    body?: unknown;
}

/** A Smithy `HttpResponse`: the body is the node stream, as the Node handler gives it. */
export interface SmithyResponse {
    statusCode: number;
    reason?: string;
    headers: Record<string, string>;
    body: IncomingMessage;
}

export interface SmithyHandler {
    readonly metadata: { handlerProtocol: string };
    handle(
        request: SmithyRequest,
        options?: { abortSignal?: AbortSignal }
    ): Promise<{ response: SmithyResponse }>;
    updateHttpClientConfig(key: never, value: never): void;
    httpHandlerConfigs(): Record<string, never>;
    destroy(): void;
}

export function createProxyRequestHandler(): SmithyHandler {
    return {
        metadata: { handlerProtocol: "http/1.1" },
        async handle(request, options) {
            const url = new URL(
                `${request.protocol}//${request.hostname}${request.port ? `:${request.port}` : ""}${request.path}`
            );
            for (const [name, value] of Object.entries(request.query ?? {})) {
                if (value === null) url.searchParams.append(name, "");
                else for (const v of [value].flat()) url.searchParams.append(name, v);
            }
            const headers: Record<string, string> = {};
            for (const [name, value] of Object.entries(request.headers)) {
                headers[name.toLowerCase()] = value;
            }
            const res = await sendNodeRequest(url, {
                method: request.method,
                headers,
                body: bodyBuffer(request.body),
                signal: options?.abortSignal,
            });
            const responseHeaders: Record<string, string> = {};
            for (const [name, value] of Object.entries(res.headers)) {
                if (value !== undefined) responseHeaders[name] = [value].flat().join(", ");
            }
            return {
                response: {
                    statusCode: res.statusCode ?? 500,
                    reason: res.statusMessage,
                    headers: responseHeaders,
                    body: res,
                },
            };
        },
        updateHttpClientConfig() {},
        httpHandlerConfigs: () => ({}),
        destroy() {},
    };
}

function bodyBuffer(body: unknown): Buffer | null {
    if (body === undefined || body === null) return null;
    if (typeof body === "string") return Buffer.from(body);
    if (body instanceof Uint8Array)
        return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    throw new TypeError("North's AWS request handler sends string or byte bodies only");
}
