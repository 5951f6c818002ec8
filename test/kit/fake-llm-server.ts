/**
 * A scripted LLM server speaking the Anthropic Messages, OpenAI Responses and
 * OpenAI Chat Completions streaming wire formats, so providers can be tested
 * through the real SDKs without any network.
 *
 * Each POST to one of the three endpoints consumes the next scripted turn.
 * A turn with `when` is only served to a request whose raw body it accepts,
 * and before turns without one (requests in parallel, such as subagents').
 *
 * Every request is first held to its wire's 400 rules (wire-rules.ts) and
 * refused in the real error shape when it breaks one.
 */

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";

import {
    cutMidToolCall,
    encodeReply,
    endlessReply,
    errorBody,
    midStreamError,
    nextId,
    partialReply,
} from "./fake-llm-wire";
import type { FakeErrorTurn, FakeTurn, Wire } from "./fake-llm-wire";
import { wireProblemMessage, wireProblems } from "./wire-rules";

export type {
    FakeErrorTurn,
    FakeFaultTurn,
    FakeReplyTurn,
    FakeToolCall,
    FakeTurn,
    FakeUsage,
} from "./fake-llm-wire";
import { listenLocal, readBodyText, sendJson, parseJsonOrText } from "./http-fake";

export interface RecordedRequest {
    method: string;
    path: string;
    headers: IncomingHttpHeaders;
    /** Parsed JSON body (the raw text when it is not JSON). */
    body: unknown;
    /** Size of the raw body in bytes. */
    bodyBytes: number;
}

export interface FakeLlmServer {
    /** http://127.0.0.1:PORT */
    url: string;
    anthropicBaseUrl: string;
    /** url + "/v1" */
    openaiBaseUrl: string;
    requests: RecordedRequest[];
    enqueue(...turns: ScriptedTurn[]): void;
    remaining(): number;
    close(): Promise<void>;
}

/**
 * A turn, optionally served only to requests whose raw JSON body `when`
 * accepts. `frames` replaces a reply's encoding with these SSE frames (a
 * wire feature the encoders do not script, such as server-side tool blocks).
 */
export type ScriptedTurn = FakeTurn & {
    when?: (body: string) => boolean;
    frames?: (wire: Wire, model: string) => string[];
};

/**
 * A request rule of a real API beyond the built-in ones: the message of its
 * 400 `invalid_request_error`, or undefined when the body passes.
 */
export type RequestCheck = (wire: Wire, body: unknown) => string | undefined;

/** The turn a request gets: the first whose `when` accepts it, else the first without `when`. */
function takeTurn(queue: ScriptedTurn[], body: string): ScriptedTurn | undefined {
    let index = queue.findIndex((t) => t.when?.(body) === true);
    if (index === -1) index = queue.findIndex((t) => t.when === undefined);
    return index === -1 ? undefined : queue.splice(index, 1)[0];
}

const ROUTES: Record<string, Wire> = {
    "/v1/messages": "anthropic",
    "/v1/responses": "responses",
    "/v1/chat/completions": "chat",
};

const BATCH_BYTES = 64 * 1024;

export interface FakeLlmServerOptions {
    turns?: ScriptedTurn[];
    /** The ids GET /v1/models lists (Anthropic's shape with `anthropic-version`, else OpenAI's). */
    models?: string[];
    /** When set, GET /v1/models refuses any other key with 401, as the real APIs do. */
    keys?: string[];
    /** Extra request rules a test adds (answered with a 400 when one fails). */
    checks?: RequestCheck[];
}

export async function startFakeLlmServer(opts: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
    const queue: ScriptedTurn[] = [...(opts.turns ?? [])];
    const requests: RecordedRequest[] = [];
    const timers = new Set<NodeJS.Timeout>();

    const server = await listenLocal((req, res) => {
        void handle(req, res).catch((err: unknown) => {
            if (!res.headersSent) {
                sendJson(res, 500, { error: { message: `fake server crashed: ${String(err)}` } });
            } else {
                res.destroy();
            }
        });
    });

    async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
        const text = await readBodyText(req);
        const path = (req.url ?? "/").split("?")[0] ?? "/";
        requests.push({
            method: req.method ?? "GET",
            path,
            headers: req.headers,
            body: parseJsonOrText(text),
            bodyBytes: Buffer.byteLength(text),
        });
        if (req.method === "GET" && path === "/v1/models") {
            answerModels(req.headers, res, opts);
            return;
        }
        const wire = req.method === "POST" ? ROUTES[path] : undefined;
        if (!wire) {
            sendJson(res, 404, {
                error: { message: `fake server: no route ${req.method} ${path}` },
            });
            return;
        }
        const refused = authProblem(wire, req.headers);
        if (refused) {
            sendError(res, wire, { status: 401, type: "authentication_error", message: refused });
            return;
        }
        // The real API refuses a malformed conversation before it reaches the model.
        const problems = wireProblems(wire, parseJsonOrText(text));
        if (problems.length > 0) {
            const message = wireProblemMessage(problems);
            sendError(res, wire, { status: 400, type: "invalid_request_error", message });
            return;
        }
        for (const check of opts.checks ?? []) {
            const invalid = check(wire, parseJsonOrText(text));
            if (invalid !== undefined) {
                const type = "invalid_request_error";
                sendError(res, wire, { status: 400, type, message: invalid });
                return;
            }
        }
        const turn = takeTurn(queue, text);
        if (!turn) {
            sendError(res, wire, { status: 500, message: "fake server: no scripted turn left" });
            return;
        }
        const model = modelOf(parseJsonOrText(text));
        if ("error" in turn) {
            if (turn.error.midStream) {
                startSse(res);
                await writeBatched(res, midStreamError(wire, model, turn.error));
                res.end();
            } else {
                sendError(res, wire, turn.error);
            }
            return;
        }
        if ("fault" in turn) {
            startSse(res);
            if (turn.fault === "stall") {
                res.flushHeaders();
                await new Promise<void>((resolve) => {
                    const timer = setTimeout(() => {
                        timers.delete(timer);
                        resolve();
                    }, turn.ms);
                    timers.add(timer);
                    res.on("close", () => {
                        clearTimeout(timer);
                        timers.delete(timer);
                        resolve();
                    });
                });
                if (!res.destroyed) res.end();
            } else if (turn.fault === "endless") {
                const { start, delta } = endlessReply(wire, model);
                const text = turn.text ?? "endless ";
                await writeForever(res, start.join(""), () =>
                    Array.from({ length: 256 }, () => delta(text)).join("")
                );
            } else if (turn.fault === "endless_event") {
                const filler = "x".repeat(BATCH_BYTES);
                await writeForever(res, "data: ", () => filler);
            } else if (turn.fault === "reset_mid_stream") {
                await writeBatched(res, partialReply(wire, model));
                res.socket?.destroy();
            } else {
                await writeBatched(res, cutMidToolCall(wire, model));
                res.end();
            }
            return;
        }
        startSse(res);
        await writeBatched(res, turn.frames?.(wire, model) ?? encodeReply(wire, model, turn));
        res.end();
    }

    const { url } = server;

    return {
        url,
        anthropicBaseUrl: url,
        openaiBaseUrl: `${url}/v1`,
        requests,
        enqueue: (...turns) => void queue.push(...turns),
        remaining: () => queue.length,
        close: () => {
            for (const timer of timers) clearTimeout(timer);
            return server.close();
        },
    };
}

// ---------------------------------------------------------------- plumbing

/** What the real API says to a request without its credentials, or undefined. */
function authProblem(wire: Wire, headers: IncomingHttpHeaders): string | undefined {
    if (wire !== "anthropic") return undefined; // local OpenAI-compatible servers take no key
    if (!headers["x-api-key"] && !headers.authorization) return "x-api-key header is required";
    if (!headers["anthropic-version"]) return "anthropic-version header is required";
    return undefined;
}

const DEFAULT_LISTED_MODELS = ["claude-sonnet-4-20250514", "gpt-5.1"];

/**
 * GET /v1/models: Anthropic's list (it needs a key and `anthropic-version`)
 * or OpenAI's (a bearer key), refusing a key not in `opts.keys`.
 */
function answerModels(
    headers: IncomingHttpHeaders,
    res: ServerResponse,
    opts: FakeLlmServerOptions
): void {
    const anthropic = headers["anthropic-version"] !== undefined;
    const wire: Wire = anthropic ? "anthropic" : "responses";
    const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1];
    const key = anthropic ? ((headers["x-api-key"] as string | undefined) ?? bearer) : bearer;
    if (anthropic && key === undefined) {
        sendError(res, wire, { status: 401, message: "x-api-key header is required" });
        return;
    }
    if (opts.keys && (key === undefined || !opts.keys.includes(key))) {
        sendError(res, wire, {
            status: 401,
            ...(anthropic
                ? { message: "invalid x-api-key" }
                : { message: "Incorrect API key provided.", code: "invalid_api_key" }),
        });
        return;
    }
    const ids = opts.models ?? DEFAULT_LISTED_MODELS;
    if (anthropic) {
        sendJson(res, 200, {
            data: ids.map((id) => ({
                type: "model",
                id,
                display_name: id,
                created_at: "2026-01-01T00:00:00Z",
            })),
            has_more: false,
            first_id: ids[0] ?? null,
            last_id: ids.at(-1) ?? null,
        });
        return;
    }
    sendJson(res, 200, {
        object: "list",
        data: ids.map((id) => ({ id, object: "model", created: 1767225600, owned_by: "fake" })),
    });
}

function modelOf(body: unknown): string {
    if (typeof body === "object" && body !== null && "model" in body) {
        const model = (body as { model: unknown }).model;
        if (typeof model === "string") return model;
    }
    return "fake-model";
}

function startSse(res: ServerResponse): void {
    res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
    });
}

/** Writes SSE frames in large batches, honouring backpressure. */
async function writeBatched(res: ServerResponse, frames: string[]): Promise<void> {
    let batch = "";
    for (const frame of frames) {
        batch += frame;
        if (batch.length >= BATCH_BYTES) {
            await write(res, batch);
            batch = "";
        }
    }
    if (batch) await write(res, batch);
}

/** Resolves once the chunk is handed to the socket (or the response died). */
function write(res: ServerResponse, chunk: string): Promise<void> {
    if (res.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
        res.write(chunk, () => resolve());
    });
}

/** Writes `first`, then `next()` chunks (honouring backpressure) until the client hangs up. */
async function writeForever(res: ServerResponse, first: string, next: () => string): Promise<void> {
    let closed = res.destroyed;
    const hangUp = new Promise<void>((resolve) =>
        res.once("close", () => {
            closed = true;
            resolve();
        })
    );
    let chunk = first;
    while (!closed) {
        await Promise.race([
            hangUp,
            new Promise<void>((resolve) => res.write(chunk, () => resolve())),
        ]);
        chunk = next();
    }
}

function sendError(res: ServerResponse, wire: Wire, error: FakeErrorTurn["error"]): void {
    const headers: Record<string, string> = { ...error.headers };
    if (wire === "anthropic") headers["request-id"] ??= nextId("req_");
    else headers["x-request-id"] ??= nextId("req_");
    sendJson(res, error.status, errorBody(wire, error), headers);
}

/** The opening events of a text reply: the stream has started and some text went out. */

/** The tool results an Anthropic request sends back to the model, as text, in call order. */
export function anthropicToolResultTexts(request: RecordedRequest): string[] {
    const body = request.body as { messages: Array<{ content: unknown }> };
    const out: string[] = [];
    for (const message of body.messages) {
        if (!Array.isArray(message.content)) continue;
        for (const block of message.content as Array<Record<string, unknown>>) {
            if (block.type !== "tool_result") continue;
            const content = block.content;
            out.push(typeof content === "string" ? content : JSON.stringify(content));
        }
    }
    return out;
}
