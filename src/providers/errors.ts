/**
 * Failure classification for every provider. Kinds come from the HTTP status,
 * the SDK error class and the error body's `type` / `code` fields, never from
 * message wording (one documented exception: `isAnthropicPromptTooLong`).
 *
 * This file imports no SDK: each provider passes its SDK's error classes in.
 */

import type { ProviderError, ProviderErrorKind } from "./types";

/** The SDK error classes `classifyError` tells apart with `instanceof`. */
export interface SdkErrorClasses {
    APIError: abstract new (...args: never[]) => ApiErrorLike;
    APIUserAbortError: abstract new (...args: never[]) => Error;
    APIConnectionError: abstract new (...args: never[]) => Error;
    APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
}

/** The fields both SDKs' `APIError` carry. */
export interface ApiErrorLike extends Error {
    readonly status: number | undefined;
    readonly headers: Headers | undefined;
    /** Anthropic: the whole body; OpenAI: the body's `error` object. */
    readonly error: unknown;
}

export interface ClassifyContext {
    /** Prefix for messages, e.g. "Anthropic API" or "OpenAI API". */
    label: string;
    sdk: SdkErrorClasses;
    signal?: AbortSignal;
}

const MAX_MESSAGE_CHARS = 300;

/** Node / undici error codes that mean the connection failed or dropped. */
const NETWORK_CODES = new Set([
    "ECONNRESET",
    "ECONNREFUSED",
    "ECONNABORTED",
    "EPIPE",
    "ENOTFOUND",
    "EAI_AGAIN",
    "ENETUNREACH",
    "ENETDOWN",
    "EHOSTUNREACH",
    "UND_ERR_SOCKET",
    "UND_ERR_CLOSED",
    "UND_ERR_ABORTED",
]);

const TIMEOUT_CODES = new Set([
    "ETIMEDOUT",
    "UND_ERR_CONNECT_TIMEOUT",
    "UND_ERR_HEADERS_TIMEOUT",
    "UND_ERR_BODY_TIMEOUT",
]);

/** Error-body `type` (Anthropic, OpenAI) to kind, for errors that arrive without a status (mid-stream). */
const KIND_BY_BODY_TYPE: Record<string, ProviderErrorKind> = {
    authentication_error: "auth",
    permission_error: "auth",
    invalid_request_error: "bad_request",
    not_found_error: "not_found",
    rate_limit_error: "rate_limit",
    overloaded_error: "overloaded",
    api_error: "server",
    server_error: "server",
    timeout_error: "server",
};

const RETRYABLE: Record<ProviderErrorKind, boolean> = {
    auth: false,
    bad_request: false,
    context_length: false,
    not_found: false,
    rate_limit: true,
    overloaded: true,
    server: true,
    network: true,
    timeout: true,
    incomplete_stream: true,
    // The same request would produce the same runaway answer.
    response_too_large: false,
    cancelled: false,
    unknown: false,
};

export function makeProviderError(
    kind: ProviderErrorKind,
    message: string,
    extra: { status?: number; retryAfterMs?: number } = {}
): ProviderError {
    const error: ProviderError = { kind, message: oneLine(message), retryable: RETRYABLE[kind] };
    if (extra.status !== undefined) error.status = extra.status;
    if (extra.retryAfterMs !== undefined) error.retryAfterMs = extra.retryAfterMs;
    return error;
}

export function cancelledError(label: string): ProviderError {
    return makeProviderError("cancelled", `${label} request cancelled`);
}

export function incompleteStreamError(label: string, detail: string): ProviderError {
    return makeProviderError("incomplete_stream", `${label} stream ended early: ${detail}`);
}

/** A response that passed North's cap of `limitChars` characters: the stream was closed. */
export function responseTooLargeError(limitChars: number, what: string): ProviderError {
    return makeProviderError(
        "response_too_large",
        `the response was cut off: ${what} passed North's limit of ${limitChars.toLocaleString("en-US")} characters (a runaway or endless answer); ask for smaller steps`
    );
}

/**
 * Credentials that are missing, expired or refused before any request was
 * sent (AWS, Google, Entra ID). The message says how to refresh them.
 */
export class CredentialError extends Error {
    override name = "CredentialError";
}

/** Turns anything a provider caught into a `ProviderError`. */
export function classifyError(err: unknown, ctx: ClassifyContext): ProviderError {
    const { label, sdk } = ctx;
    if (err instanceof CredentialError && !ctx.signal?.aborted) {
        return makeProviderError("auth", `${label}: ${err.message}`);
    }
    if (ctx.signal?.aborted || err instanceof sdk.APIUserAbortError || isAbortError(err)) {
        return cancelledError(label);
    }
    if (err instanceof sdk.APIConnectionTimeoutError) {
        return makeProviderError("timeout", `${label} request timed out`);
    }
    if (err instanceof sdk.APIConnectionError) {
        const kind = networkKind(err) ?? "network";
        return makeProviderError(kind, `${label} connection error: ${causeMessage(err)}`);
    }
    if (err instanceof sdk.APIError) {
        return classifyApiError(err, label);
    }
    const kind = networkKind(err);
    if (kind) {
        return makeProviderError(kind, `${label} connection error: ${causeMessage(err)}`);
    }
    const message = err instanceof Error ? err.message : String(err);
    return makeProviderError("unknown", `${label} error: ${message}`);
}

/**
 * Classifies an error reported inside a stream body (OpenAI Responses `error` /
 * `response.failed` events), which carry a code and message but no HTTP status.
 */
export function classifyStreamErrorBody(
    label: string,
    body: { code?: string | null; type?: string | null; message?: string | null }
): ProviderError {
    const message = `${label} error: ${body.message || body.code || "stream failed"}`;
    return makeProviderError(kindFromBody(undefined, body.type, body.code, body.message), message);
}

function classifyApiError(err: ApiErrorLike, label: string): ProviderError {
    const body = errorObject(err.error);
    const status = err.status;
    const providerMessage = body.message ?? stripStatus(err.message, status);
    const prefix = status === undefined ? `${label} error` : `${label} ${status}`;
    const message = `${prefix}: ${providerMessage || "no message"}`;
    const kind =
        kindFromStatus(status, body) ?? kindFromBody(status, body.type, body.code, body.message);
    const retryAfterMs = parseRetryAfter(err.headers);
    return makeProviderError(kind, message, { status, retryAfterMs });
}

function kindFromStatus(
    status: number | undefined,
    body: ErrorObject
): ProviderErrorKind | undefined {
    if (status === undefined) return undefined;
    if (status === 401 || status === 403) return "auth";
    if (status === 400 || status === 413) {
        return isContextLength(body.type, body.code, body.message)
            ? "context_length"
            : "bad_request";
    }
    if (status === 404) return "not_found";
    if (status === 429) return "rate_limit";
    if (status === 529 || body.type === "overloaded_error") return "overloaded";
    if (status >= 500) return "server";
    if (status === 408) return "timeout";
    return undefined;
}

function kindFromBody(
    status: number | undefined,
    type: string | null | undefined,
    code: string | null | undefined,
    message: string | null | undefined
): ProviderErrorKind {
    if (isContextLength(type, code, message)) return "context_length";
    if (code === "rate_limit_exceeded") return "rate_limit";
    if (code === "server_error") return "server";
    const byType = type ? KIND_BY_BODY_TYPE[type] : undefined;
    if (byType) return byType;
    if (status !== undefined && status >= 400 && status < 500) return "bad_request";
    return "unknown";
}

function isContextLength(
    type: string | null | undefined,
    code: string | null | undefined,
    message: string | null | undefined
): boolean {
    if (code === "context_length_exceeded" || code === "prompt_too_long") return true;
    return type === "invalid_request_error" && isAnthropicPromptTooLong(message);
}

/**
 * Anthropic reports an over-long prompt as a plain `invalid_request_error`
 * whose only distinguishing feature is the message ("prompt is too long: N
 * tokens > M maximum"). This is the one place we read error wording; keep it
 * narrow and drop it once the API sends a stable `error_code`.
 */
function isAnthropicPromptTooLong(message: string | null | undefined): boolean {
    return typeof message === "string" && /prompt is too long/i.test(message);
}

interface ErrorObject {
    type?: string;
    code?: string;
    message?: string;
}

/** Reads `{type, code, message}` from an Anthropic body, an OpenAI error object, or a bare string. */
function errorObject(raw: unknown): ErrorObject {
    if (typeof raw === "string") return { message: raw };
    if (!isRecord(raw)) return {};
    const inner = raw["error"];
    if (typeof inner === "string") return { message: inner };
    const source = isRecord(inner) ? inner : raw;
    const details = source["details"];
    const detailCode = isRecord(details) ? stringField(details, "error_code") : undefined;
    return {
        type: stringField(source, "type"),
        code: stringField(source, "code") ?? detailCode,
        message: stringField(source, "message"),
    };
}

/** Milliseconds from `retry-after-ms`, or `retry-after` as seconds or an HTTP date. */
export function parseRetryAfter(
    headers: Headers | undefined,
    now: number = Date.now()
): number | undefined {
    if (!headers) return undefined;
    const ms = headers.get("retry-after-ms");
    if (ms !== null && ms.trim() !== "") {
        const value = Number(ms);
        if (Number.isFinite(value) && value >= 0) return Math.round(value);
    }
    const after = headers.get("retry-after");
    if (after === null || after.trim() === "") return undefined;
    const seconds = Number(after);
    if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
    const date = Date.parse(after);
    if (Number.isNaN(date)) return undefined;
    return Math.max(0, date - now);
}

function networkKind(err: unknown): "network" | "timeout" | undefined {
    for (let e: unknown = err, depth = 0; isRecord(e) && depth < 6; e = e["cause"], depth++) {
        const code = e["code"];
        if (typeof code === "string") {
            if (TIMEOUT_CODES.has(code)) return "timeout";
            if (NETWORK_CODES.has(code)) return "network";
        }
    }
    return undefined;
}

/** The innermost message of an error's `cause` chain ("other side closed", "ECONNREFUSED ..."). */
function causeMessage(err: unknown): string {
    let message = err instanceof Error ? err.message : String(err);
    for (let e: unknown = err, depth = 0; isRecord(e) && depth < 6; e = e["cause"], depth++) {
        const m = e["message"];
        if (typeof m === "string" && m) message = m;
    }
    return message;
}

function isAbortError(err: unknown): boolean {
    return isRecord(err) && err["name"] === "AbortError";
}

/** SDK messages start with the status ("401 {...}"); drop it, we print our own. */
function stripStatus(message: string, status: number | undefined): string {
    if (status !== undefined && message.startsWith(`${status} `)) {
        return message.slice(String(status).length + 1);
    }
    return message;
}

function oneLine(message: string): string {
    const flat = message.replace(/\s+/g, " ").trim();
    return flat.length > MAX_MESSAGE_CHARS ? `${flat.slice(0, MAX_MESSAGE_CHARS - 1)}…` : flat;
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null;
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
    const value = record[key];
    return typeof value === "string" ? value : undefined;
}
