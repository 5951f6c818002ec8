import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createOpenAIResponsesProvider } from "../../src/providers/openai-responses";
import type { Provider } from "../../src/providers/types";
import { startFakeLlmServer } from "../kit/fake-llm-server";
import type { FakeLlmServer } from "../kit/fake-llm-server";
import { READ_TOOL, collect, doneOf, errorOf, request } from "./helpers";

type Body = Record<string, unknown> & { input: Array<Record<string, unknown>> };

let server: FakeLlmServer;
let provider: Provider;

beforeEach(async () => {
    server = await startFakeLlmServer();
    provider = createOpenAIResponsesProvider({
        api: "openai-responses",
        baseUrl: server.openaiBaseUrl,
        apiKey: "sk-test",
    });
});

afterEach(async () => {
    await server.close();
});

const body = (i: number): Body => server.requests[i]?.body as Body;

describe("openai responses provider", () => {
    it("streams text and sends a stateless request", async () => {
        server.enqueue({ text: "Hello there, world" });
        const c = await collect(provider, request({ promptCacheKey: "session-42" }));
        const done = doneOf(c);
        expect(c.text).toBe("Hello there, world");
        // Deltas that arrive in one network chunk are coalesced into one event.
        expect(c.events.filter((e) => e.type === "text_delta").length).toBeGreaterThanOrEqual(1);
        expect(done.stopReason).toBe("end_turn");
        expect(done.message.content).toEqual([{ type: "text", text: "Hello there, world" }]);

        expect(server.requests[0]?.path).toBe("/v1/responses");
        expect(server.requests[0]?.headers["authorization"]).toBe("Bearer sk-test");
        expect(body(0)).toMatchObject({
            model: "test-model",
            stream: true,
            store: false,
            include: ["reasoning.encrypted_content"],
            instructions: "You are a test.",
            max_output_tokens: 1024,
            prompt_cache_key: "session-42",
            input: [{ role: "user", content: "Hi" }],
        });
    });

    it("streams a function call with multi-chunk arguments and replays it with its output", async () => {
        server.enqueue({
            toolCalls: [{ id: "call_abc", name: "read_file", input: { path: "src/a.ts" } }],
        });
        const c = await collect(provider, request({ tools: [READ_TOOL] }));
        const done = doneOf(c);
        expect(done.stopReason).toBe("tool_use");
        expect(c.events.filter((e) => e.type === "tool_call_delta").length).toBeGreaterThanOrEqual(
            1
        );
        expect(c.events.find((e) => e.type === "tool_call_start")).toEqual({
            type: "tool_call_start",
            id: "call_abc",
            name: "read_file",
        });
        const call = done.message.content[0];
        expect(call).toMatchObject({
            type: "tool_call",
            id: "call_abc",
            name: "read_file",
            input: { path: "src/a.ts" },
            rawInput: '{"path":"src/a.ts"}',
        });
        expect(body(0)["tools"]).toEqual([
            {
                type: "function",
                name: "read_file",
                description: "Read a file",
                parameters: READ_TOOL.inputSchema,
                strict: false,
            },
        ]);

        server.enqueue({ text: "It says hi." });
        await collect(
            provider,
            request({
                tools: [READ_TOOL],
                messages: [
                    { role: "user", content: "read it" },
                    {
                        role: "assistant",
                        content: [{ type: "text", text: "Reading." }, ...done.message.content],
                    },
                    {
                        role: "user",
                        content: [
                            {
                                type: "tool_result",
                                toolCallId: "call_abc",
                                content: "hi",
                                isError: false,
                            },
                        ],
                    },
                ],
            })
        );
        expect(body(1).input).toEqual([
            { role: "user", content: "read it" },
            {
                type: "message",
                role: "assistant",
                status: "completed",
                content: [{ type: "output_text", text: "Reading.", annotations: [] }],
            },
            {
                type: "function_call",
                call_id: "call_abc",
                name: "read_file",
                arguments: '{"path":"src/a.ts"}',
            },
            { type: "function_call_output", call_id: "call_abc", output: "hi" },
        ]);
    });

    it("flags malformed arguments without crashing", async () => {
        server.enqueue({ toolCalls: [{ name: "read_file", rawArguments: "{not json" }] });
        const done = doneOf(await collect(provider, request()));
        expect(done.message.content[0]).toMatchObject({
            type: "tool_call",
            input: {},
            rawInput: "{not json",
        });
        const call = done.message.content[0];
        expect(call?.type === "tool_call" && call.inputError).toMatch(/not valid JSON/);
    });

    it("streams reasoning summaries and replays the encrypted item", async () => {
        server.enqueue({
            thinking: { text: "Considering options.", signature: "enc-blob" },
            toolCalls: [{ id: "call_r", name: "read_file", input: { path: "x" } }],
        });
        const c = await collect(provider, request({ thinking: { budgetTokens: 8000 } }));
        const done = doneOf(c);
        expect(c.thinking).toBe("Considering options.");
        const reasoning = done.message.content[0];
        expect(reasoning).toMatchObject({
            type: "reasoning",
            summary: "Considering options.",
            encryptedContent: "enc-blob",
        });
        expect(body(0)["reasoning"]).toEqual({ effort: "medium", summary: "auto" });

        server.enqueue({ text: "ok" });
        await collect(
            provider,
            request({
                messages: [
                    { role: "user", content: "go" },
                    {
                        role: "assistant",
                        content: [
                            { type: "thinking", thinking: "anthropic only", signature: "s" },
                            ...done.message.content,
                        ],
                    },
                    {
                        role: "user",
                        content: [
                            {
                                type: "tool_result",
                                toolCallId: "call_r",
                                content: "x",
                                isError: false,
                            },
                        ],
                    },
                ],
            })
        );
        const input = body(1).input;
        expect(input[1]).toEqual({
            type: "reasoning",
            id: reasoning?.type === "reasoning" ? reasoning.id : "",
            summary: [{ type: "summary_text", text: "Considering options." }],
            encrypted_content: "enc-blob",
        });
        expect(input.map((item) => item["type"] ?? item["role"])).toEqual([
            "user",
            "reasoning",
            "function_call",
            "function_call_output",
        ]);
    });

    it("does not replay reasoning that led to no output (an answer cut while reasoning)", async () => {
        server.enqueue({
            thinking: { text: "Still thinking.", signature: "enc-cut" },
            stopReason: "max_tokens",
        });
        const cut = doneOf(await collect(provider, request({ thinking: { budgetTokens: 8000 } })));
        expect(cut.message.content.map((b) => b.type)).toEqual(["reasoning"]);

        // The API refuses a reasoning item without the item it led to.
        server.enqueue({ text: "Done." });
        const next = await collect(
            provider,
            request({
                thinking: { budgetTokens: 8000 },
                messages: [
                    { role: "user", content: "go" },
                    cut.message,
                    { role: "user", content: "go on" },
                ],
            })
        );
        expect(doneOf(next).stopReason).toBe("end_turn");
        expect(body(1).input.map((item) => item["type"] ?? item["role"])).toEqual(["user", "user"]);
    });

    it("maps usage: cached tokens are subtracted from input", async () => {
        server.enqueue({ text: "hi", usage: { input: 100, output: 7, cacheRead: 900 } });
        const done = doneOf(await collect(provider, request()));
        expect(done.usage).toEqual({
            inputTokens: 100,
            outputTokens: 7,
            cacheReadTokens: 900,
            cacheWriteTokens: 0,
        });
    });

    it("status incomplete with max_output_tokens → max_tokens", async () => {
        server.enqueue({ text: "cut", stopReason: "max_tokens" });
        expect(doneOf(await collect(provider, request())).stopReason).toBe("max_tokens");
    });

    it("401 → auth, not retryable, with the API's message", async () => {
        server.enqueue({ error: { status: 401, message: "Incorrect API key provided: sk-test." } });
        const e = errorOf(await collect(provider, request())).error;
        expect(e).toMatchObject({ kind: "auth", status: 401, retryable: false });
        expect(e.message).toBe("OpenAI API 401: Incorrect API key provided: sk-test.");
    });

    it("429 with retry-after → rate_limit with retryAfterMs", async () => {
        server.enqueue({
            error: { status: 429, message: "Rate limit reached", headers: { "retry-after": "2" } },
        });
        const e = errorOf(await collect(provider, request())).error;
        expect(e).toMatchObject({ kind: "rate_limit", retryable: true, retryAfterMs: 2000 });
    });

    it("retry-after-ms wins over retry-after", async () => {
        server.enqueue({
            error: {
                status: 429,
                headers: { "retry-after": "9", "retry-after-ms": "1500" },
            },
        });
        const e = errorOf(await collect(provider, request())).error;
        expect(e.retryAfterMs).toBe(1500);
    });

    it("500 → server, retryable", async () => {
        server.enqueue({ error: { status: 500, message: "The server had an error" } });
        const e = errorOf(await collect(provider, request())).error;
        expect(e).toMatchObject({ kind: "server", status: 500, retryable: true });
    });

    it("context_length_exceeded → context_length", async () => {
        server.enqueue({
            error: { status: 400, code: "context_length_exceeded", message: "Too long." },
        });
        const e = errorOf(await collect(provider, request())).error;
        expect(e).toMatchObject({ kind: "context_length", retryable: false });
    });

    it("an in-stream error event → classified error with partial text", async () => {
        server.enqueue({
            error: { status: 500, code: "server_error", message: "boom", midStream: true },
        });
        const ev = errorOf(await collect(provider, request()));
        expect(ev.error).toMatchObject({ kind: "server", retryable: true });
        expect(ev.error.message).toContain("boom");
        expect(ev.partial.content[0]).toMatchObject({ type: "text" });
    });

    it("connection reset mid-stream → retryable", async () => {
        server.enqueue({ fault: "reset_mid_stream" });
        const ev = errorOf(await collect(provider, request()));
        expect(["network", "incomplete_stream"]).toContain(ev.error.kind);
        expect(ev.error.retryable).toBe(true);
    });

    it("stream cut during a function call → incomplete_stream", async () => {
        server.enqueue({ fault: "cut_mid_tool_call" });
        const ev = errorOf(await collect(provider, request()));
        expect(ev.error).toMatchObject({ kind: "incomplete_stream", retryable: true });
        expect(ev.error.message).toContain("write_file");
    });

    it("abort during a stall → cancelled", async () => {
        server.enqueue({ fault: "stall", ms: 5000 });
        const controller = new AbortController();
        const sent = server.requests.length;
        const collecting = collect(provider, request(), controller.signal);
        // Aborted once the server holds the request; a stall that ran out would not say cancelled.
        await vi.waitFor(() => expect(server.requests.length).toBeGreaterThan(sent), {
            timeout: 10_000,
        });
        controller.abort();
        const ev = errorOf(await collecting);
        expect(ev.error).toMatchObject({ kind: "cancelled", retryable: false });
    });

    it("an already-aborted signal → cancelled without a request", async () => {
        const controller = new AbortController();
        controller.abort();
        const ev = errorOf(await collect(provider, request(), controller.signal));
        expect(ev.error.kind).toBe("cancelled");
        expect(server.requests).toHaveLength(0);
    });
});
