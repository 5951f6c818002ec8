/**
 * Server-side web search on the fake LLM server: scripted replies that carry
 * Anthropic's `server_tool_use` + `web_search_tool_result` blocks and
 * citations, or OpenAI's `web_search_call` items and `url_citation`
 * annotations; and the request rules the real APIs apply to them (the tool's
 * parameters, results replayed unmodified and paired with their call).
 */
import type { RequestCheck, ScriptedTurn } from "./fake-llm-server";
import type { Wire } from "./fake-llm-wire";

export interface FakeSearch {
    query: string;
    results: Array<{ url: string; title: string }>;
    /** Answer with a `web_search_tool_result_error` (Anthropic) / a failed call (OpenAI). */
    error?: string;
}

export interface FakeSearchReply {
    searches: FakeSearch[];
    text: string;
    /** URLs of the searches' results the text cites. */
    cite?: string[];
    /** Anthropic's `pause_turn`: a long server-side turn stopped, to go on when sent back. */
    paused?: boolean;
}

const ANTHROPIC_TOOL_TYPES = new Set([
    "web_search_20250305",
    "web_search_20260209",
    "web_search_20260318",
]);

function sse(event: string | undefined, data: unknown): string {
    const json = JSON.stringify(data);
    return event ? `event: ${event}\ndata: ${json}\n\n` : `data: ${json}\n\n`;
}

type Json = Record<string, unknown>;

/**
 * One fake provider's web search: what it issued (result blocks, encrypted
 * contents, call ids) so a replay can be checked against it.
 */
export class FakeWebSearch {
    private counter = 0;
    /** Each issued Anthropic result block by its tool use id, as JSON. */
    private readonly issuedResults = new Map<string, string>();
    /** Encrypted indexes of the issued citations. */
    private readonly issuedIndexes = new Set<string>();
    /** Each issued OpenAI web_search_call item by id, as JSON. */
    private readonly issuedCalls = new Map<string, string>();

    /** A scripted reply carrying `reply`'s searches and cited text on either wire. */
    turn(reply: FakeSearchReply): ScriptedTurn {
        return {
            text: reply.text,
            frames: (wire, model) =>
                wire === "anthropic"
                    ? this.anthropicFrames(model, reply)
                    : this.responsesFrames(model, reply),
        };
    }

    /** The real APIs' 400 rules for the web search tool and replayed search blocks. */
    readonly check: RequestCheck = (wire: Wire, body: unknown) => {
        if (typeof body !== "object" || body === null) return undefined;
        return wire === "anthropic"
            ? this.checkAnthropic(body as Json)
            : wire === "responses"
              ? this.checkResponses(body as Json)
              : undefined;
    };

    private id(prefix: string): string {
        return `${prefix}${(++this.counter).toString(36).padStart(6, "0")}`;
    }

    private anthropicFrames(model: string, reply: FakeSearchReply): string[] {
        const usage = {
            input_tokens: 10,
            output_tokens: 1,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
            server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
        };
        const out = [
            sse("message_start", {
                type: "message_start",
                message: {
                    id: this.id("msg_"),
                    type: "message",
                    role: "assistant",
                    model,
                    content: [],
                    stop_reason: null,
                    stop_sequence: null,
                    usage,
                },
            }),
        ];
        let index = 0;
        const citable = new Map<string, { url: string; title: string; encrypted_index: string }>();
        for (const search of reply.searches) {
            const id = this.id("srvtoolu_");
            const input = JSON.stringify({ query: search.query });
            const half = Math.ceil(input.length / 2);
            out.push(
                sse("content_block_start", {
                    type: "content_block_start",
                    index,
                    content_block: {
                        type: "server_tool_use",
                        id,
                        name: "web_search",
                        input: {},
                        caller: { type: "direct" },
                    },
                })
            );
            for (const part of [input.slice(0, half), input.slice(half)]) {
                out.push(
                    sse("content_block_delta", {
                        type: "content_block_delta",
                        index,
                        delta: { type: "input_json_delta", partial_json: part },
                    })
                );
            }
            out.push(sse("content_block_stop", { type: "content_block_stop", index }));
            index++;
            const content = search.error
                ? { type: "web_search_tool_result_error", error_code: search.error }
                : search.results.map((r) => ({
                      type: "web_search_result",
                      url: r.url,
                      title: r.title,
                      encrypted_content: `enc-${this.id("")}-${r.url}`,
                      page_age: "2 days ago",
                  }));
            const result = {
                type: "web_search_tool_result",
                tool_use_id: id,
                content,
                caller: { type: "direct" },
            };
            this.issuedResults.set(id, JSON.stringify(result));
            for (const r of search.error ? [] : search.results) {
                citable.set(r.url, { ...r, encrypted_index: `idx-${this.id("")}` });
            }
            out.push(
                sse("content_block_start", {
                    type: "content_block_start",
                    index,
                    content_block: result,
                })
            );
            out.push(sse("content_block_stop", { type: "content_block_stop", index }));
            index++;
        }
        out.push(
            sse("content_block_start", {
                type: "content_block_start",
                index,
                content_block: { type: "text", text: "", citations: [] },
            })
        );
        for (const url of reply.cite ?? []) {
            const source = citable.get(url);
            if (!source) throw new Error(`fake web search: ${url} is no result to cite`);
            this.issuedIndexes.add(source.encrypted_index);
            out.push(
                sse("content_block_delta", {
                    type: "content_block_delta",
                    index,
                    delta: {
                        type: "citations_delta",
                        citation: {
                            type: "web_search_result_location",
                            url: source.url,
                            title: source.title,
                            cited_text: `From ${source.title}.`,
                            encrypted_index: source.encrypted_index,
                        },
                    },
                })
            );
        }
        out.push(
            sse("content_block_delta", {
                type: "content_block_delta",
                index,
                delta: { type: "text_delta", text: reply.text },
            })
        );
        out.push(sse("content_block_stop", { type: "content_block_stop", index }));
        out.push(
            sse("message_delta", {
                type: "message_delta",
                delta: {
                    stop_reason: reply.paused ? "pause_turn" : "end_turn",
                    stop_sequence: null,
                },
                usage: {
                    output_tokens: 20,
                    server_tool_use: {
                        web_search_requests: reply.searches.length,
                        web_fetch_requests: 0,
                    },
                },
            })
        );
        out.push(sse("message_stop", { type: "message_stop" }));
        return out;
    }

    private responsesFrames(model: string, reply: FakeSearchReply): string[] {
        const responseId = this.id("resp_");
        let sequence = 0;
        const event = (type: string, data: Json): string =>
            sse(undefined, { type, sequence_number: sequence++, ...data });
        const response = (status: string, output: unknown[], usage: unknown): Json => ({
            id: responseId,
            object: "response",
            created_at: 1,
            status,
            model,
            output,
            usage,
            incomplete_details: null,
            error: null,
        });
        const out = [event("response.created", { response: response("in_progress", [], null) })];
        const output: unknown[] = [];
        let oi = 0;
        for (const search of reply.searches) {
            const id = this.id("ws_");
            out.push(
                event("response.output_item.added", {
                    output_index: oi,
                    item: { id, type: "web_search_call", status: "in_progress" },
                })
            );
            out.push(
                event("response.web_search_call.searching", { output_index: oi, item_id: id })
            );
            const item = {
                id,
                type: "web_search_call",
                status: search.error ? "failed" : "completed",
                action: {
                    type: "search",
                    query: search.query,
                    sources: search.results.map((r) => ({ type: "url", url: r.url })),
                },
            };
            this.issuedCalls.set(id, JSON.stringify(item));
            output.push(item);
            out.push(event("response.output_item.done", { output_index: oi, item }));
            oi++;
        }
        const msgId = this.id("msg_");
        const titles = new Map(
            reply.searches.flatMap((s) => s.results.map((r) => [r.url, r.title]))
        );
        const annotations = (reply.cite ?? []).map((url) => ({
            type: "url_citation",
            url,
            title: titles.get(url) ?? url,
            start_index: 0,
            end_index: reply.text.length,
        }));
        out.push(
            event("response.output_item.added", {
                output_index: oi,
                item: {
                    id: msgId,
                    type: "message",
                    role: "assistant",
                    status: "in_progress",
                    content: [],
                },
            })
        );
        out.push(
            event("response.output_text.delta", {
                item_id: msgId,
                output_index: oi,
                content_index: 0,
                delta: reply.text,
                logprobs: [],
            })
        );
        const message = {
            id: msgId,
            type: "message",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: reply.text, annotations }],
        };
        output.push(message);
        out.push(event("response.output_item.done", { output_index: oi, item: message }));
        const usage = {
            input_tokens: 10,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 20,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 30,
        };
        out.push(event("response.completed", { response: response("completed", output, usage) }));
        return out;
    }

    private checkAnthropic(body: Json): string | undefined {
        for (const tool of (body.tools as Json[] | undefined) ?? []) {
            if (typeof tool.type !== "string" || !tool.type.startsWith("web_search")) continue;
            if (!ANTHROPIC_TOOL_TYPES.has(tool.type))
                return `tools: unknown tool type ${tool.type}`;
            if (tool.name !== "web_search")
                return "tools: the web search tool must be named web_search";
            if (tool.allowed_domains && tool.blocked_domains) {
                return "tools: allowed_domains and blocked_domains cannot be used together";
            }
            const max = tool.max_uses;
            if (max !== undefined && (!Number.isInteger(max) || (max as number) < 1)) {
                return "tools: max_uses must be a positive integer";
            }
            for (const domain of [
                ...((tool.allowed_domains as string[]) ?? []),
                ...((tool.blocked_domains as string[]) ?? []),
            ]) {
                if (/[/:]/.test(domain)) return `tools: "${domain}" is not a domain`;
            }
        }
        const messages = (body.messages as Array<{ role: string; content: unknown }>) ?? [];
        for (const message of messages) {
            if (!Array.isArray(message.content)) continue;
            const blocks = message.content as Json[];
            for (let i = 0; i < blocks.length; i++) {
                const block = blocks[i]!;
                if (block.type === "server_tool_use") {
                    const next = blocks[i + 1];
                    if (next?.type !== "web_search_tool_result" || next.tool_use_id !== block.id) {
                        return `messages: server_tool_use ${String(block.id)} must be followed by its web_search_tool_result`;
                    }
                }
                if (block.type === "web_search_tool_result") {
                    const issued = this.issuedResults.get(String(block.tool_use_id));
                    if (issued === undefined || issued !== JSON.stringify(block)) {
                        return `messages: web_search_tool_result ${String(block.tool_use_id)} was modified or never issued`;
                    }
                }
                for (const citation of (block.citations as Json[] | undefined) ?? []) {
                    if (!this.issuedIndexes.has(String(citation.encrypted_index))) {
                        return "messages: a citation's encrypted_index is invalid";
                    }
                }
            }
        }
        return undefined;
    }

    private checkResponses(body: Json): string | undefined {
        for (const tool of (body.tools as Json[] | undefined) ?? []) {
            if (tool.type !== "web_search") continue;
            const filters = tool.filters as Json | undefined;
            for (const key of Object.keys(filters ?? {})) {
                if (key !== "allowed_domains")
                    return `Unknown parameter: 'tools[].filters.${key}'.`;
            }
        }
        for (const item of (body.input as Json[] | undefined) ?? []) {
            if (item.type !== "web_search_call") continue;
            if (this.issuedCalls.get(String(item.id)) !== JSON.stringify(item)) {
                return `Invalid input item: web_search_call ${String(item.id)} was modified or never issued`;
            }
        }
        return undefined;
    }
}
