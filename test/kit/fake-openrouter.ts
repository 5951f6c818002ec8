/**
 * A local OpenRouter: Chat Completions at `/api/v1/chat/completions` and the
 * model list at `/api/v1/models`. It checks what OpenRouter checks (a bearer
 * key, a `vendor/model` id it lists, tool messages answering an earlier
 * assistant tool call) and streams usage as OpenRouter does: always, with
 * `cost` (USD credits) and the cached and cache-written prompt tokens.
 * Errors take OpenRouter's shape: `{"error": {"code": <status>, "message"}}`.
 */

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";

import { encodeReply } from "./fake-llm-wire";
import type { FakeReplyTurn } from "./fake-llm-wire";
import { listenLocal, readBodyText, sendJson } from "./http-fake";

export interface OpenRouterModel {
    id: string;
    name: string;
    context_length: number;
    /** USD per token, as decimal strings. */
    pricing: {
        prompt: string;
        completion: string;
        input_cache_read?: string;
        input_cache_write?: string;
    };
    top_provider: { max_completion_tokens: number | null };
}

/** A reply and what OpenRouter bills for it. */
export type OpenRouterTurn = FakeReplyTurn & { cost?: number; cacheWrite?: number };

export interface FakeOpenRouter {
    /** http://127.0.0.1:PORT/api/v1 */
    baseUrl: string;
    requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders; body: unknown }>;
    enqueue(...turns: OpenRouterTurn[]): void;
    remaining(): number;
    close(): Promise<void>;
}

export async function startFakeOpenRouter(opts: {
    apiKey: string;
    models: OpenRouterModel[];
}): Promise<FakeOpenRouter> {
    const queue: OpenRouterTurn[] = [];
    const requests: FakeOpenRouter["requests"] = [];

    const server = await listenLocal((req, res) => {
        void handle(req, res).catch((error: unknown) => sendError(res, 500, String(error)));
    });

    async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
        const text = await readBodyText(req);
        const path = new URL(req.url ?? "/", "http://fake").pathname;
        const body = text ? (JSON.parse(text) as unknown) : undefined;
        requests.push({ method: req.method ?? "GET", path, headers: req.headers, body });
        if (req.headers.authorization !== `Bearer ${opts.apiKey}`) {
            sendError(res, 401, "No auth credentials found");
            return;
        }
        if (req.method === "GET" && path === "/api/v1/models") {
            sendJson(res, 200, { data: opts.models });
            return;
        }
        if (req.method !== "POST" || path !== "/api/v1/chat/completions") {
            sendError(res, 404, `Not Found: ${req.method} ${path}`);
            return;
        }
        const model = (body as { model?: unknown })?.model;
        if (typeof model !== "string" || !opts.models.some((m) => m.id === model)) {
            sendError(res, 400, `${String(model)} is not a valid model ID`);
            return;
        }
        const orphan = orphanToolMessage(body);
        if (orphan) {
            sendError(res, 400, `tool message ${orphan} does not answer a preceding tool call`);
            return;
        }
        const turn = queue.shift();
        if (!turn) {
            sendError(res, 500, "fake OpenRouter: no scripted turn left");
            return;
        }
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.end(
            encodeReply("chat", model, turn)
                .map((frame) => billed(frame, turn))
                .join("")
        );
    }

    const { port } = server;
    return {
        baseUrl: `http://127.0.0.1:${port}/api/v1`,
        requests,
        enqueue: (...turns) => void queue.push(...turns),
        remaining: () => queue.length,
        close: () => server.close(),
    };
}

/** The usage chunk as OpenRouter sends it: `cost`, and cache writes among the prompt tokens. */
function billed(frame: string, turn: OpenRouterTurn): string {
    if (!frame.startsWith("data: {")) return frame;
    const chunk = JSON.parse(frame.slice("data: ".length)) as {
        usage?: {
            prompt_tokens: number;
            total_tokens: number;
            prompt_tokens_details?: Record<string, number>;
            cost?: number;
        };
    };
    if (!chunk.usage) return frame;
    const written = turn.cacheWrite ?? 0;
    chunk.usage.prompt_tokens += written;
    chunk.usage.total_tokens += written;
    chunk.usage.prompt_tokens_details = {
        ...chunk.usage.prompt_tokens_details,
        cache_write_tokens: written,
    };
    chunk.usage.cost = turn.cost ?? 0;
    return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** A `tool` message whose id no earlier assistant `tool_calls` entry carries. */
function orphanToolMessage(body: unknown): string | undefined {
    const messages = (body as { messages?: unknown })?.messages;
    if (!Array.isArray(messages)) return undefined;
    const calls = new Set<string>();
    for (const message of messages as Array<Record<string, unknown>>) {
        if (message.role === "assistant" && Array.isArray(message.tool_calls)) {
            for (const call of message.tool_calls as Array<{ id?: string }>)
                if (call.id) calls.add(call.id);
        }
        if (message.role === "tool" && !calls.has(String(message.tool_call_id)))
            return String(message.tool_call_id);
    }
    return undefined;
}

function sendError(res: ServerResponse, status: number, message: string): void {
    if (res.headersSent) {
        res.destroy();
        return;
    }
    sendJson(res, status, { error: { code: status, message } });
}
