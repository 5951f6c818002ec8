/**
 * A fake of Gemini's own API on 127.0.0.1: `POST /v1beta/models/{model}:
 * streamGenerateContent?alt=sse` answers scripted turns as the API's SSE
 * chunks, `GET /v1beta/models` lists models page by page. It checks what the
 * API checks — the key (`x-goog-api-key`), `alt=sse`, the body rules in
 * fake-gemini-rules.ts, thought signatures issued here — and answers errors
 * in Google's shape `{error: {code, message, status, details}}`.
 */

import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { type FakeErrorTurn, type FakeReplyTurn, type FakeTurn, splitText } from "./fake-llm-wire";
import { MAX_REQUEST_BYTES, geminiBodyProblem } from "./fake-gemini-rules";
import { listenLocal, readBody, sendJsonUtf8, parseJsonOrText } from "./http-fake";

export const FAKE_GEMINI_KEY = "fake-gemini-key";

/** Gemini's own ends of a reply, on top of the shared scripted turn. */
export interface GeminiReplyExtras {
    /** Sent as the last chunk's finishReason instead of the one `stopReason` implies. */
    finishReason?: string;
    finishMessage?: string;
    /** Thought tokens in `usageMetadata` (counted as output). */
    thoughtsTokens?: number;
    /** Give each function call an `id`, as some models do. */
    callIds?: boolean;
    /** Answer with `promptFeedback.blockReason` and no candidates. */
    promptBlocked?: string;
    /** Google Search grounding, sent as the last chunk's `groundingMetadata` (needs the `googleSearch` tool). */
    grounding?: FakeGrounding;
}

export interface FakeGrounding {
    /** `webSearchQueries`: what the model searched for (each one is billed). */
    queries: string[];
    /** `groundingChunks[].web`: the pages found (the API gives redirect URIs and the site as title). */
    pages: Array<{ uri: string; title: string }>;
    /** `groundingSupports`: passages of the answer's text and the pages (indices) behind each. */
    supports?: Array<{ text: string; pages: number[] }>;
}

export type GeminiFakeTurn = FakeTurn & { gemini?: GeminiReplyExtras };

export interface GeminiRecordedRequest {
    method: string;
    path: string;
    query: URLSearchParams;
    headers: IncomingHttpHeaders;
    body: unknown;
}

export interface FakeGemini {
    /** http://127.0.0.1:PORT — what GOOGLE_GEMINI_BASE_URL points at. */
    url: string;
    requests: GeminiRecordedRequest[];
    /** The models `GET /v1beta/models` lists (name without `models/`). */
    models: Array<{
        id: string;
        inputTokenLimit: number;
        outputTokenLimit: number;
        methods?: string[];
    }>;
    enqueue(...turns: GeminiFakeTurn[]): void;
    remaining(): number;
    close(): Promise<void>;
}

/** Google's status names of the HTTP statuses (the `status` of its error body). */
export const GOOGLE_STATUS_NAMES: Readonly<Record<number, string>> = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
};

const STREAM_PATH = /^\/v1beta\/models\/([^/:]+):streamGenerateContent$/;

export async function startFakeGemini(
    opts: { key?: string; pageSize?: number } = {}
): Promise<FakeGemini> {
    const key = opts.key ?? FAKE_GEMINI_KEY;
    const queue: GeminiFakeTurn[] = [];
    const requests: GeminiRecordedRequest[] = [];
    const issuedSignatures = new Set<string>();
    const timers = new Set<NodeJS.Timeout>();
    const fake: FakeGemini = {
        url: "",
        requests,
        models: [
            { id: "gemini-3-flash", inputTokenLimit: 1_048_576, outputTokenLimit: 65_536 },
            { id: "gemini-2.5-pro", inputTokenLimit: 1_048_576, outputTokenLimit: 65_536 },
            {
                id: "text-embedding-004",
                inputTokenLimit: 2_048,
                outputTokenLimit: 1,
                methods: ["embedContent"],
            },
        ],
        enqueue: (...turns) => queue.push(...turns),
        remaining: () => queue.length,
        close: () => {
            for (const timer of timers) clearTimeout(timer);
            return server.close();
        },
    };

    const server = await listenLocal((req, res) => {
        void handle(req, res).catch((error: unknown) => {
            if (res.headersSent) res.destroy();
            else sendError(res, 500, `fake Gemini crashed: ${String(error)}`);
        });
    });

    async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
        const raw = await readBody(req);
        const url = new URL(req.url ?? "/", "http://127.0.0.1");
        const body = parseJsonOrText(raw.toString("utf8"));
        requests.push({
            method: req.method ?? "GET",
            path: url.pathname,
            query: url.searchParams,
            headers: req.headers,
            body,
        });
        const given = req.headers["x-goog-api-key"] ?? url.searchParams.get("key") ?? undefined;
        if (given === undefined) {
            sendError(
                res,
                403,
                "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."
            );
            return;
        }
        if (given !== key) {
            sendError(res, 400, "API key not valid. Please pass a valid API key.", [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    reason: "API_KEY_INVALID",
                    domain: "googleapis.com",
                },
            ]);
            return;
        }
        if (req.method === "GET" && url.pathname === "/v1beta/models") {
            listModels(url, res);
            return;
        }
        const match = STREAM_PATH.exec(url.pathname);
        if (req.method !== "POST" || !match) {
            sendError(res, 404, `fake Gemini: no route ${req.method} ${url.pathname}`);
            return;
        }
        const model = decodeURIComponent(match[1]!);
        if (url.searchParams.get("alt") !== "sse") {
            sendError(
                res,
                400,
                "fake Gemini: streamGenerateContent without alt=sse answers a JSON array, which North does not read"
            );
            return;
        }
        if (raw.length > MAX_REQUEST_BYTES) {
            sendError(
                res,
                400,
                `Request payload size exceeds the limit: ${MAX_REQUEST_BYTES} bytes.`
            );
            return;
        }
        const problem = geminiBodyProblem(body, { model, issuedSignatures });
        if (problem) {
            sendError(res, 400, problem);
            return;
        }
        // A rough count (4 characters a token) against the model's listed limit.
        const limit = fake.models.find((m) => m.id === model)?.inputTokenLimit;
        const tokens = Math.ceil(raw.length / 4);
        if (limit !== undefined && tokens > limit) {
            sendError(
                res,
                400,
                `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${limit}).`
            );
            return;
        }
        const turn = queue.shift();
        if (!turn) {
            sendError(res, 500, "fake Gemini: no scripted turn left");
            return;
        }
        if (turn.gemini?.grounding && !offersGoogleSearch(body)) {
            sendError(
                res,
                500,
                "fake Gemini: a grounded turn, but the request has no googleSearch tool"
            );
            return;
        }
        await answer(turn, model, res);
    }

    async function answer(turn: GeminiFakeTurn, model: string, res: ServerResponse): Promise<void> {
        if ("error" in turn) {
            if (!turn.error.midStream) {
                sendError(
                    res,
                    turn.error.status,
                    turn.error.message ?? "scripted error",
                    errorDetails(turn.error),
                    turn.error.headers
                );
                return;
            }
            startSse(res);
            res.write(sse(chunk(model, [{ text: "partial " }])));
            res.end(
                sse({
                    error: errorObject(
                        turn.error.status,
                        turn.error.message ?? "scripted error",
                        errorDetails(turn.error)
                    ),
                })
            );
            return;
        }
        if ("fault" in turn) {
            startSse(res);
            await fault(turn, model, res);
            return;
        }
        startSse(res);
        await writeBatched(res, encodeGeminiReply(model, turn, issuedSignatures));
        res.end();
    }

    async function fault(
        turn: Extract<FakeTurn, { fault: string }>,
        model: string,
        res: ServerResponse
    ): Promise<void> {
        switch (turn.fault) {
            case "reset_mid_stream":
                res.write(sse(chunk(model, [{ text: "Hello " }])), () => res.destroy());
                return;
            case "cut_mid_tool_call":
                // Calls come whole on this wire: the cut is a stream that ends without a finishReason.
                res.end(sse(chunk(model, [{ text: "Let me look" }])));
                return;
            case "stall":
                res.flushHeaders();
                await new Promise<void>((resolve) => {
                    const timer = setTimeout(resolve, turn.ms);
                    timers.add(timer);
                });
                res.end();
                return;
            case "endless":
                while (!res.destroyed && !res.writableEnded) {
                    const ok = res.write(sse(chunk(model, [{ text: turn.text ?? "endless " }])));
                    if (!ok) await drained(res);
                }
                return;
            case "endless_event":
                res.write("data: ");
                while (!res.destroyed && !res.writableEnded) {
                    const ok = res.write("x".repeat(64 * 1024));
                    if (!ok) await drained(res);
                }
                return;
        }
    }

    function listModels(url: URL, res: ServerResponse): void {
        const size = Math.min(
            Number(url.searchParams.get("pageSize") ?? 50) || 50,
            opts.pageSize ?? 1000
        );
        const start = Number(url.searchParams.get("pageToken") || 0);
        const page = fake.models.slice(start, start + size).map((m) => ({
            name: `models/${m.id}`,
            displayName: m.id,
            inputTokenLimit: m.inputTokenLimit,
            outputTokenLimit: m.outputTokenLimit,
            supportedGenerationMethods: m.methods ?? ["generateContent", "countTokens"],
            thinking: true,
        }));
        const next = start + size < fake.models.length ? String(start + size) : undefined;
        sendJsonUtf8(res, 200, { models: page, ...(next ? { nextPageToken: next } : {}) });
    }

    fake.url = `http://127.0.0.1:${server.port}`;
    return fake;
}

interface Part {
    text?: string;
    thought?: boolean;
    thoughtSignature?: string;
    functionCall?: { id?: string; name: string; args: unknown };
}

/** The SSE events of one scripted reply, as Gemini streams them. */
export function encodeGeminiReply(
    model: string,
    turn: GeminiFakeTurn & FakeReplyTurn,
    issued: Set<string>
): string[] {
    const extras = turn.gemini ?? {};
    const sign = (): string => {
        const signature = randomBytes(24).toString("base64");
        issued.add(signature);
        return signature;
    };
    const usage = usageOf(turn, extras);
    if (extras.promptBlocked) {
        return [
            sse({
                promptFeedback: { blockReason: extras.promptBlocked },
                usageMetadata: usage,
                modelVersion: model,
            }),
        ];
    }
    const events: string[] = [];
    if (turn.thinking)
        events.push(sse(chunk(model, [{ text: turn.thinking.text, thought: true }])));
    const texts =
        turn.text === undefined
            ? []
            : Array.isArray(turn.text)
              ? turn.text
              : splitText(turn.text, turn.tokenChunks);
    const [textHead, textTail] = textEventAround(model);
    for (const text of texts) events.push(textHead + JSON.stringify(text) + textTail);
    const calls: Part[] = (turn.toolCalls ?? []).map((call, i) => ({
        functionCall: {
            ...(extras.callIds
                ? { id: call.id ?? `fc_${i}_${randomBytes(4).toString("hex")}` }
                : {}),
            name: call.name,
            args:
                call.rawArguments !== undefined
                    ? JSON.parse(call.rawArguments)
                    : (call.input ?? {}),
        },
    }));
    // Parallel calls: the signature is on the first call only; no call: on a last, empty text part.
    const last: Part[] = calls.length > 0 ? calls : [{ text: "" }];
    last[0]!.thoughtSignature = sign();
    const stop = turn.stopReason ?? (calls.length > 0 ? "tool_use" : "end_turn");
    const finishReason =
        extras.finishReason ??
        (stop === "max_tokens" ? "MAX_TOKENS" : stop === "refusal" ? "SAFETY" : "STOP");
    const end = chunk(model, last, finishReason, usage);
    if (extras.finishMessage) end.candidates[0]!.finishMessage = extras.finishMessage;
    if (extras.grounding) {
        end.candidates[0]!.groundingMetadata = groundingMetadata(texts.join(""), extras.grounding);
    }
    events.push(sse(end));
    return events;
}

function usageOf(turn: FakeReplyTurn, extras: GeminiReplyExtras) {
    const input = turn.usage?.input ?? 10;
    const cached = turn.usage?.cacheRead ?? 0;
    const output = turn.usage?.output ?? 5;
    const thoughts = extras.thoughtsTokens ?? 0;
    return {
        promptTokenCount: input + cached,
        candidatesTokenCount: output,
        totalTokenCount: input + cached + output + thoughts,
        ...(cached ? { cachedContentTokenCount: cached } : {}),
        ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
    };
}

function chunk(model: string, parts: Part[], finishReason?: string, usageMetadata?: object) {
    const candidate: {
        content: { role: string; parts: Part[] };
        index: number;
        finishReason?: string;
        finishMessage?: string;
        groundingMetadata?: object;
    } = {
        content: { role: "model", parts },
        index: 0,
    };
    if (finishReason) candidate.finishReason = finishReason;
    return {
        candidates: [candidate],
        ...(usageMetadata ? { usageMetadata } : {}),
        modelVersion: model,
        responseId: "fake-response",
    };
}

/**
 * `groundingMetadata` as the API sends it: each support's segment names its
 * passage by UTF-8 byte offsets into the answer (a zero start is left out, as
 * proto3 JSON leaves out defaults).
 */
function groundingMetadata(answer: string, grounding: FakeGrounding): object {
    const supports = (grounding.supports ?? []).map((support) => {
        const at = answer.indexOf(support.text);
        if (at < 0) throw new Error(`fake Gemini: "${support.text}" is not in the answer`);
        const startIndex = Buffer.byteLength(answer.slice(0, at));
        return {
            segment: {
                ...(startIndex > 0 ? { startIndex } : {}),
                endIndex: startIndex + Buffer.byteLength(support.text),
                text: support.text,
            },
            groundingChunkIndices: support.pages,
        };
    });
    return {
        searchEntryPoint: { renderedContent: '<div class="container">Google Search</div>' },
        groundingChunks: grounding.pages.map((page) => ({ web: page })),
        groundingSupports: supports,
        webSearchQueries: grounding.queries,
    };
}

function offersGoogleSearch(body: unknown): boolean {
    const tools = (body as { tools?: unknown }).tools;
    return (
        Array.isArray(tools) && tools.some((t) => (t as Record<string, unknown>)?.["googleSearch"])
    );
}

function errorDetails(error: FakeErrorTurn["error"]): object[] {
    const retryAfter = error.headers?.["retry-after"];
    if (error.status === 429 && retryAfter === undefined) {
        return [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "2s" }];
    }
    return [];
}

function errorObject(status: number, message: string, details: object[] = []) {
    return {
        code: status,
        message,
        status: GOOGLE_STATUS_NAMES[status] ?? "UNKNOWN",
        ...(details.length ? { details } : {}),
    };
}

function sendError(
    res: ServerResponse,
    status: number,
    message: string,
    details: object[] = [],
    headers: Record<string, string> = {}
): void {
    sendJsonUtf8(res, status, { error: errorObject(status, message, details) }, headers);
}

/** As the other fakes: frames in writes of about 64 KB, as they would leave a real server. */
const BATCH_BYTES = 64 * 1024;

async function writeBatched(res: ServerResponse, frames: string[]): Promise<void> {
    let batch = "";
    for (const frame of frames) {
        batch += frame;
        if (batch.length < BATCH_BYTES) continue;
        if (!res.write(batch)) await drained(res);
        batch = "";
    }
    if (batch) res.write(batch);
}

/** Waits until the client reads again or hangs up; leaves no listener behind. */
function drained(res: ServerResponse): Promise<void> {
    return new Promise<void>((resolve) => {
        const done = (): void => {
            res.off("drain", done).off("close", done);
            resolve();
        };
        res.on("drain", done).on("close", done);
    });
}

function startSse(res: ServerResponse): void {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
}

/**
 * The text chunk's event around its JSON-encoded text: byte for byte
 * `sse(chunk(model, [{ text }]))`, built once per reply (a 20k-token answer
 * is 20k events, and the fake must not be the slow side of a bench).
 */
function textEventAround(model: string): [string, string] {
    const marker = "\u0000text\u0000";
    const event = sse(chunk(model, [{ text: marker }]));
    const at = event.indexOf(JSON.stringify(marker));
    return [event.slice(0, at), event.slice(at + JSON.stringify(marker).length)];
}

function sse(data: unknown): string {
    // The API ends each event with CRLF pairs.
    return `data: ${JSON.stringify(data)}\r\n\r\n`;
}
