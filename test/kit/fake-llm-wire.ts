/**
 * Wire encoders for the fake LLM server: scripted turns become the exact SSE
 * event sequences (and error bodies) of the Anthropic Messages, OpenAI
 * Responses and OpenAI Chat Completions APIs.
 */

export interface FakeToolCall {
    id?: string;
    name: string;
    /** Serialized with JSON.stringify unless `rawArguments` is given. */
    input?: unknown;
    /** Sent verbatim (split into chunks); may be malformed JSON. */
    rawArguments?: string;
}

export interface FakeUsage {
    /** Uncached input tokens. */
    input: number;
    output: number;
    cacheRead: number;
    cacheWrite: number;
}

export interface FakeReplyTurn {
    /** One string (split per word, or into `tokenChunks` deltas) or explicit chunks. */
    text?: string | string[];
    /** Anthropic thinking block; a reasoning item (signature = encrypted_content) on Responses; `reasoning_content` on Chat. */
    thinking?: { text: string; signature: string };
    toolCalls?: FakeToolCall[];
    /** Defaults to `tool_use` when there are tool calls, else `end_turn`. */
    /** `refusal`: Anthropic's stop reason; a content filter on the OpenAI wires. */
    stopReason?: "end_turn" | "tool_use" | "max_tokens" | "refusal";
    usage?: Partial<FakeUsage>;
    /** Split a string `text` into this many deltas instead of one per word. */
    tokenChunks?: number;
}

export interface FakeErrorTurn {
    error: {
        status: number;
        /** Body error type; defaults by status (e.g. 529 → overloaded_error). */
        type?: string;
        message?: string;
        /** OpenAI error `code` (e.g. "context_length_exceeded"). */
        code?: string;
        headers?: Record<string, string>;
        /** Answer 200, stream a little text, then send the error as an in-stream error event. */
        midStream?: boolean;
    };
}

export type FakeFaultTurn =
    /** Send some SSE events, then destroy the socket. */
    | { fault: "reset_mid_stream" }
    /** Start a tool call, send partial arguments, then end the response without the closing events. */
    | { fault: "cut_mid_tool_call" }
    /** Send headers, then nothing for `ms`, then end the response. */
    | { fault: "stall"; ms: number }
    /** A text answer that never ends: `text` deltas (default "endless ") until the client hangs up. */
    | { fault: "endless"; text?: string }
    /** One event that never ends: `data: xxxx…` without a blank line, until the client hangs up. */
    | { fault: "endless_event" };

export type FakeTurn = FakeReplyTurn | FakeErrorTurn | FakeFaultTurn;

export type Wire = "anthropic" | "responses" | "chat";

function sse(event: string | undefined, data: unknown): string {
    const json = JSON.stringify(data);
    return event ? `event: ${event}\ndata: ${json}\n\n` : `data: ${json}\n\n`;
}

// ---------------------------------------------------------------- replies

interface Plan {
    textChunks: string[];
    thinking?: { text: string; signature: string };
    toolCalls: Array<{ id: string; name: string; argChunks: string[]; args: string }>;
    stopReason: "end_turn" | "tool_use" | "max_tokens" | "refusal";
    usage: FakeUsage;
}

let idCounter = 0;
export const nextId = (prefix: string): string =>
    `${prefix}${(++idCounter).toString(36).padStart(6, "0")}`;

function plan(turn: FakeReplyTurn): Plan {
    const textChunks =
        turn.text === undefined
            ? []
            : Array.isArray(turn.text)
              ? turn.text
              : splitText(turn.text, turn.tokenChunks);
    const toolCalls = (turn.toolCalls ?? []).map((call) => {
        const args = call.rawArguments ?? JSON.stringify(call.input ?? {});
        return { id: call.id ?? nextId("call_"), name: call.name, args, argChunks: thirds(args) };
    });
    const stopReason = turn.stopReason ?? (toolCalls.length > 0 ? "tool_use" : "end_turn");
    const usage: FakeUsage = {
        input: turn.usage?.input ?? 10,
        output: turn.usage?.output ?? Math.max(1, textChunks.length + toolCalls.length),
        cacheRead: turn.usage?.cacheRead ?? 0,
        cacheWrite: turn.usage?.cacheWrite ?? 0,
    };
    return { textChunks, thinking: turn.thinking, toolCalls, stopReason, usage };
}

/** Text in `chunks` equal pieces, or word by word (each word with its spaces). */
export function splitText(text: string, chunks: number | undefined): string[] {
    if (chunks && chunks > 0) {
        const size = Math.max(1, Math.ceil(text.length / chunks));
        const out: string[] = [];
        for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
        return out;
    }
    return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}

/** Splits tool arguments into (up to) three chunks so providers must accumulate. */
function thirds(text: string): string[] {
    if (text.length < 3) return [text];
    const size = Math.ceil(text.length / 3);
    return [text.slice(0, size), text.slice(size, 2 * size), text.slice(2 * size)].filter(Boolean);
}

export function encodeReply(wire: Wire, model: string, turn: FakeReplyTurn): string[] {
    const p = plan(turn);
    if (wire === "anthropic") return anthropicReply(model, p);
    if (wire === "responses") return responsesReply(model, p);
    return chatReply(model, p);
}

// --- Anthropic Messages

function anthropicStart(model: string, usage: FakeUsage): string {
    return sse("message_start", {
        type: "message_start",
        message: {
            id: nextId("msg_"),
            type: "message",
            role: "assistant",
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: {
                input_tokens: usage.input,
                cache_creation_input_tokens: usage.cacheWrite,
                cache_read_input_tokens: usage.cacheRead,
                output_tokens: 1,
            },
        },
    });
}

function anthropicReply(model: string, p: Plan): string[] {
    const out = [anthropicStart(model, p.usage), sse("ping", { type: "ping" })];
    let index = 0;
    const delta = (i: number, d: unknown): string =>
        sse("content_block_delta", { type: "content_block_delta", index: i, delta: d });
    const start = (i: number, block: unknown): string =>
        sse("content_block_start", { type: "content_block_start", index: i, content_block: block });
    const stop = (i: number): string =>
        sse("content_block_stop", { type: "content_block_stop", index: i });
    if (p.thinking) {
        out.push(start(index, { type: "thinking", thinking: "", signature: "" }));
        for (const chunk of splitText(p.thinking.text, undefined)) {
            out.push(delta(index, { type: "thinking_delta", thinking: chunk }));
        }
        out.push(delta(index, { type: "signature_delta", signature: p.thinking.signature }));
        out.push(stop(index++));
    }
    if (p.textChunks.length > 0) {
        out.push(start(index, { type: "text", text: "" }));
        for (const chunk of p.textChunks)
            out.push(delta(index, { type: "text_delta", text: chunk }));
        out.push(stop(index++));
    }
    for (const call of p.toolCalls) {
        out.push(start(index, { type: "tool_use", id: call.id, name: call.name, input: {} }));
        for (const chunk of call.argChunks) {
            out.push(delta(index, { type: "input_json_delta", partial_json: chunk }));
        }
        out.push(stop(index++));
    }
    out.push(
        sse("message_delta", {
            type: "message_delta",
            delta: { stop_reason: p.stopReason, stop_sequence: null },
            usage: { output_tokens: p.usage.output },
        }),
        sse("message_stop", { type: "message_stop" })
    );
    return out;
}

// --- OpenAI Responses

class ResponsesWriter {
    private seq = 0;
    readonly id = nextId("resp_");
    constructor(readonly model: string) {}

    event(type: string, fields: Record<string, unknown>): string {
        return sse(type, { type, sequence_number: this.seq++, ...fields });
    }

    response(status: string, output: unknown[], extra: Record<string, unknown> = {}): unknown {
        return {
            id: this.id,
            object: "response",
            created_at: Math.floor(Date.now() / 1000),
            status,
            model: this.model,
            output,
            parallel_tool_calls: true,
            tool_choice: "auto",
            tools: [],
            usage: null,
            error: null,
            incomplete_details: null,
            ...extra,
        };
    }
}

function responsesReply(model: string, p: Plan): string[] {
    const w = new ResponsesWriter(model);
    const out = [
        w.event("response.created", { response: w.response("in_progress", []) }),
        w.event("response.in_progress", { response: w.response("in_progress", []) }),
    ];
    const items: unknown[] = [];
    let outputIndex = 0;
    if (p.thinking) {
        const id = nextId("rs_");
        const oi = outputIndex++;
        out.push(
            w.event("response.output_item.added", {
                output_index: oi,
                item: { id, type: "reasoning", summary: [] },
            })
        );
        const part = { type: "summary_text", text: "" };
        out.push(
            w.event("response.reasoning_summary_part.added", {
                item_id: id,
                output_index: oi,
                summary_index: 0,
                part,
            })
        );
        for (const chunk of splitText(p.thinking.text, undefined)) {
            out.push(
                w.event("response.reasoning_summary_text.delta", {
                    item_id: id,
                    output_index: oi,
                    summary_index: 0,
                    delta: chunk,
                })
            );
        }
        const text = p.thinking.text;
        out.push(
            w.event("response.reasoning_summary_text.done", {
                item_id: id,
                output_index: oi,
                summary_index: 0,
                text,
            })
        );
        out.push(
            w.event("response.reasoning_summary_part.done", {
                item_id: id,
                output_index: oi,
                summary_index: 0,
                part: { type: "summary_text", text },
            })
        );
        const item = {
            id,
            type: "reasoning",
            summary: [{ type: "summary_text", text }],
            encrypted_content: p.thinking.signature,
        };
        items.push(item);
        out.push(w.event("response.output_item.done", { output_index: oi, item }));
    }
    if (p.textChunks.length > 0) {
        const id = nextId("msg_");
        const oi = outputIndex++;
        const base = { id, type: "message", role: "assistant" };
        out.push(
            w.event("response.output_item.added", {
                output_index: oi,
                item: { ...base, status: "in_progress", content: [] },
            })
        );
        const emptyPart = { type: "output_text", text: "", annotations: [] };
        out.push(
            w.event("response.content_part.added", {
                item_id: id,
                output_index: oi,
                content_index: 0,
                part: emptyPart,
            })
        );
        for (const chunk of p.textChunks) {
            out.push(
                w.event("response.output_text.delta", {
                    item_id: id,
                    output_index: oi,
                    content_index: 0,
                    delta: chunk,
                    logprobs: [],
                })
            );
        }
        const text = p.textChunks.join("");
        const part = { type: "output_text", text, annotations: [] };
        out.push(
            w.event("response.output_text.done", {
                item_id: id,
                output_index: oi,
                content_index: 0,
                text,
                logprobs: [],
            })
        );
        out.push(
            w.event("response.content_part.done", {
                item_id: id,
                output_index: oi,
                content_index: 0,
                part,
            })
        );
        const item = { ...base, status: "completed", content: [part] };
        items.push(item);
        out.push(w.event("response.output_item.done", { output_index: oi, item }));
    }
    for (const call of p.toolCalls) {
        const id = nextId("fc_");
        const oi = outputIndex++;
        const base = { id, type: "function_call", call_id: call.id, name: call.name };
        out.push(
            w.event("response.output_item.added", {
                output_index: oi,
                item: { ...base, status: "in_progress", arguments: "" },
            })
        );
        for (const chunk of call.argChunks) {
            out.push(
                w.event("response.function_call_arguments.delta", {
                    item_id: id,
                    output_index: oi,
                    delta: chunk,
                })
            );
        }
        out.push(
            w.event("response.function_call_arguments.done", {
                item_id: id,
                output_index: oi,
                arguments: call.args,
            })
        );
        const item = { ...base, status: "completed", arguments: call.args };
        items.push(item);
        out.push(w.event("response.output_item.done", { output_index: oi, item }));
    }
    const u = p.usage;
    const details: Record<string, number> = { cached_tokens: u.cacheRead };
    if (u.cacheWrite) details["cache_write_tokens"] = u.cacheWrite;
    const usage = {
        input_tokens: u.input + u.cacheRead + u.cacheWrite,
        input_tokens_details: details,
        output_tokens: u.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: u.input + u.cacheRead + u.cacheWrite + u.output,
    };
    if (p.stopReason === "max_tokens" || p.stopReason === "refusal") {
        const response = w.response("incomplete", items, {
            usage,
            incomplete_details: {
                reason: p.stopReason === "refusal" ? "content_filter" : "max_output_tokens",
            },
        });
        out.push(w.event("response.incomplete", { response }));
    } else {
        out.push(
            w.event("response.completed", { response: w.response("completed", items, { usage }) })
        );
    }
    return out;
}

// --- OpenAI Chat Completions

function chatReply(model: string, p: Plan): string[] {
    const id = nextId("chatcmpl-");
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: unknown, finish: string | null = null): string =>
        sse(undefined, {
            id,
            object: "chat.completion.chunk",
            created,
            model,
            choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        });
    const out = [chunk({ role: "assistant", content: "" })];
    if (p.thinking) {
        for (const piece of splitText(p.thinking.text, undefined)) {
            out.push(chunk({ reasoning_content: piece }));
        }
    }
    for (const piece of p.textChunks) out.push(chunk({ content: piece }));
    p.toolCalls.forEach((call, index) => {
        out.push(
            chunk({
                tool_calls: [
                    {
                        index,
                        id: call.id,
                        type: "function",
                        function: { name: call.name, arguments: "" },
                    },
                ],
            })
        );
        for (const piece of call.argChunks) {
            out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
        }
    });
    const finish =
        p.stopReason === "tool_use"
            ? "tool_calls"
            : p.stopReason === "max_tokens"
              ? "length"
              : p.stopReason === "refusal"
                ? "content_filter"
                : "stop";
    out.push(chunk({}, finish));
    const u = p.usage;
    out.push(
        sse(undefined, {
            id,
            object: "chat.completion.chunk",
            created,
            model,
            choices: [],
            usage: {
                prompt_tokens: u.input + u.cacheRead,
                completion_tokens: u.output,
                total_tokens: u.input + u.cacheRead + u.output,
                prompt_tokens_details: { cached_tokens: u.cacheRead },
            },
        })
    );
    out.push("data: [DONE]\n\n");
    return out;
}

// ---------------------------------------------------------------- faults and errors

/** The opening events of a text answer, and a maker of its text delta events. */
export function endlessReply(
    wire: Wire,
    model: string
): { start: string[]; delta: (text: string) => string } {
    if (wire === "anthropic") {
        const usage = { input: 10, output: 1, cacheRead: 0, cacheWrite: 0 };
        return {
            start: [
                anthropicStart(model, usage),
                sse("content_block_start", {
                    type: "content_block_start",
                    index: 0,
                    content_block: { type: "text", text: "" },
                }),
            ],
            delta: (text) =>
                sse("content_block_delta", {
                    type: "content_block_delta",
                    index: 0,
                    delta: { type: "text_delta", text },
                }),
        };
    }
    if (wire === "responses") {
        const w = new ResponsesWriter(model);
        const id = nextId("msg_");
        const item = { id, type: "message", role: "assistant", status: "in_progress", content: [] };
        const part = { type: "output_text", text: "", annotations: [] };
        const at = { item_id: id, output_index: 0, content_index: 0 };
        return {
            start: [
                w.event("response.created", { response: w.response("in_progress", []) }),
                w.event("response.output_item.added", { output_index: 0, item }),
                w.event("response.content_part.added", { ...at, part }),
            ],
            delta: (text) =>
                w.event("response.output_text.delta", { ...at, delta: text, logprobs: [] }),
        };
    }
    const base = { id: nextId("chatcmpl-"), object: "chat.completion.chunk", created: 0, model };
    const chunk = (delta: unknown): string =>
        sse(undefined, { ...base, choices: [{ index: 0, delta, finish_reason: null }] });
    return {
        start: [chunk({ role: "assistant", content: "" })],
        delta: (content) => chunk({ content }),
    };
}

const CUT_TOOL = { id: "call_cut", name: "write_file", partial: '{"path": "src/ma' };

export function cutMidToolCall(wire: Wire, model: string): string[] {
    if (wire === "anthropic") {
        return [
            anthropicStart(model, { input: 10, output: 1, cacheRead: 0, cacheWrite: 0 }),
            sse("content_block_start", {
                type: "content_block_start",
                index: 0,
                content_block: {
                    type: "tool_use",
                    id: CUT_TOOL.id,
                    name: CUT_TOOL.name,
                    input: {},
                },
            }),
            sse("content_block_delta", {
                type: "content_block_delta",
                index: 0,
                delta: { type: "input_json_delta", partial_json: CUT_TOOL.partial },
            }),
        ];
    }
    if (wire === "responses") {
        const w = new ResponsesWriter(model);
        const item = {
            id: "fc_cut",
            type: "function_call",
            status: "in_progress",
            call_id: CUT_TOOL.id,
            name: CUT_TOOL.name,
            arguments: "",
        };
        return [
            w.event("response.created", { response: w.response("in_progress", []) }),
            w.event("response.output_item.added", { output_index: 0, item }),
            w.event("response.function_call_arguments.delta", {
                item_id: "fc_cut",
                output_index: 0,
                delta: CUT_TOOL.partial,
            }),
        ];
    }
    const base = { id: "chatcmpl-cut", object: "chat.completion.chunk", created: 0, model };
    const choice = (delta: unknown): unknown => ({
        ...base,
        choices: [{ index: 0, delta, finish_reason: null }],
    });
    return [
        sse(undefined, choice({ role: "assistant", content: "" })),
        sse(
            undefined,
            choice({
                tool_calls: [
                    {
                        index: 0,
                        id: CUT_TOOL.id,
                        type: "function",
                        function: { name: CUT_TOOL.name, arguments: "" },
                    },
                ],
            })
        ),
        sse(
            undefined,
            choice({ tool_calls: [{ index: 0, function: { arguments: CUT_TOOL.partial } }] })
        ),
    ];
}

const ANTHROPIC_TYPE_BY_STATUS: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
};

const OPENAI_TYPE_BY_STATUS: Record<number, { type: string; code: string | null }> = {
    400: { type: "invalid_request_error", code: null },
    401: { type: "invalid_request_error", code: "invalid_api_key" },
    403: { type: "invalid_request_error", code: "unsupported_country_region_territory" },
    404: { type: "invalid_request_error", code: "model_not_found" },
    429: { type: "requests", code: "rate_limit_exceeded" },
    500: { type: "server_error", code: null },
};

export function errorBody(wire: Wire, error: FakeErrorTurn["error"]): unknown {
    const message = error.message ?? `fake error ${error.status}`;
    if (wire === "anthropic") {
        const type = error.type ?? ANTHROPIC_TYPE_BY_STATUS[error.status] ?? "api_error";
        return { type: "error", error: { type, message } };
    }
    const defaults = OPENAI_TYPE_BY_STATUS[error.status] ?? { type: "server_error", code: null };
    return {
        error: {
            message,
            type: error.type ?? defaults.type,
            param: null,
            code: error.code ?? defaults.code,
        },
    };
}

export function partialReply(wire: Wire, model: string): string[] {
    const events = encodeReply(wire, model, { text: "partial answer before the failure" });
    const keep = wire === "anthropic" ? 4 : wire === "responses" ? 5 : 3;
    return events.slice(0, keep);
}

export function midStreamError(wire: Wire, model: string, error: FakeErrorTurn["error"]): string[] {
    const prefix = partialReply(wire, model);
    const body = errorBody(wire, error) as {
        error: { message: string; type: string; code?: string | null };
    };
    if (wire === "anthropic") return [...prefix, sse("error", body)];
    if (wire === "responses") {
        return [
            ...prefix,
            sse("error", {
                type: "error",
                code: body.error.code ?? body.error.type,
                message: body.error.message,
                param: null,
                sequence_number: 99,
            }),
        ];
    }
    return [...prefix, sse(undefined, body)];
}
