import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createOpenAIChatProvider } from "../../src/providers/openai-chat";
import type { Provider } from "../../src/providers/types";
import { startFakeLlmServer } from "../kit/fake-llm-server";
import type { FakeLlmServer } from "../kit/fake-llm-server";
import { READ_TOOL, collect, doneOf, errorOf, request } from "./helpers";

type Body = Record<string, unknown> & { messages: Array<Record<string, unknown>> };

let server: FakeLlmServer;
let provider: Provider;

beforeEach(async () => {
    server = await startFakeLlmServer();
    provider = createOpenAIChatProvider({
        api: "openai-chat",
        baseUrl: server.openaiBaseUrl,
        apiKey: "not-needed",
    });
});

afterEach(async () => {
    await server.close();
});

const body = (i: number): Body => server.requests[i]?.body as Body;

describe("openai chat provider", () => {
    it("streams text and sends a well-formed request", async () => {
        server.enqueue({ text: "Hello there, world" });
        const c = await collect(provider, request());
        const done = doneOf(c);
        expect(c.text).toBe("Hello there, world");
        // Deltas that arrive in one network chunk are coalesced into one event.
        expect(c.events.filter((e) => e.type === "text_delta").length).toBeGreaterThanOrEqual(1);
        expect(done.stopReason).toBe("end_turn");
        expect(done.message.content).toEqual([{ type: "text", text: "Hello there, world" }]);

        expect(server.requests[0]?.path).toBe("/v1/chat/completions");
        expect(body(0)).toMatchObject({
            model: "test-model",
            stream: true,
            stream_options: { include_usage: true },
            max_tokens: 1024,
            messages: [
                { role: "system", content: "You are a test." },
                { role: "user", content: "Hi" },
            ],
        });
    });

    it("accumulates streamed tool calls by index and sends results back as tool messages", async () => {
        server.enqueue({
            text: "Reading both.",
            toolCalls: [
                { id: "call_1", name: "read_file", input: { path: "a.ts" } },
                { id: "call_2", name: "read_file", input: { path: "b.ts" } },
            ],
        });
        const c = await collect(provider, request({ tools: [READ_TOOL] }));
        const done = doneOf(c);
        expect(done.stopReason).toBe("tool_use");
        expect(c.events.filter((e) => e.type === "tool_call_start")).toHaveLength(2);
        expect(c.events.filter((e) => e.type === "tool_call_delta").length).toBeGreaterThanOrEqual(
            1
        );
        expect(done.message.content).toMatchObject([
            { type: "text", text: "Reading both." },
            { type: "tool_call", id: "call_1", input: { path: "a.ts" } },
            { type: "tool_call", id: "call_2", input: { path: "b.ts" } },
        ]);
        expect(body(0)["tools"]).toEqual([
            {
                type: "function",
                function: {
                    name: "read_file",
                    description: "Read a file",
                    parameters: READ_TOOL.inputSchema,
                },
            },
        ]);

        server.enqueue({ text: "Done." });
        await collect(
            provider,
            request({
                tools: [READ_TOOL],
                messages: [
                    { role: "user", content: "read" },
                    done.message,
                    {
                        role: "user",
                        content: [
                            {
                                type: "tool_result",
                                toolCallId: "call_1",
                                content: "A",
                                isError: false,
                            },
                            {
                                type: "tool_result",
                                toolCallId: "call_2",
                                content: "B",
                                isError: true,
                            },
                            { type: "text", text: "Also, hurry." },
                        ],
                    },
                ],
            })
        );
        expect(body(1).messages.slice(1)).toEqual([
            { role: "user", content: "read" },
            {
                role: "assistant",
                content: "Reading both.",
                tool_calls: [
                    {
                        id: "call_1",
                        type: "function",
                        function: { name: "read_file", arguments: '{"path":"a.ts"}' },
                    },
                    {
                        id: "call_2",
                        type: "function",
                        function: { name: "read_file", arguments: '{"path":"b.ts"}' },
                    },
                ],
            },
            { role: "tool", tool_call_id: "call_1", content: "A" },
            { role: "tool", tool_call_id: "call_2", content: "B" },
            { role: "user", content: "Also, hurry." },
        ]);
    });

    it("treats tool calls as tool_use even when the server says stop", async () => {
        server.enqueue({
            toolCalls: [{ id: "call_s", name: "read_file", input: { path: "a" } }],
            stopReason: "end_turn",
        });
        const done = doneOf(await collect(provider, request()));
        expect(done.stopReason).toBe("tool_use");
    });

    it("flags malformed arguments and replays them as valid JSON", async () => {
        server.enqueue({
            toolCalls: [{ id: "call_m", name: "read_file", rawArguments: '{"path":' }],
        });
        const done = doneOf(await collect(provider, request()));
        const call = done.message.content[0];
        expect(call).toMatchObject({ type: "tool_call", input: {}, rawInput: '{"path":' });
        expect(call?.type === "tool_call" && call.inputError).toMatch(/not valid JSON/);

        server.enqueue({ text: "ok" });
        await collect(
            provider,
            request({ messages: [{ role: "user", content: "x" }, done.message] })
        );
        const replayed = body(1).messages[2] as { tool_calls: Array<{ function: unknown }> };
        expect(replayed.tool_calls[0]?.function).toEqual({ name: "read_file", arguments: "{}" });
    });

    it("maps reasoning_content deltas to thinking", async () => {
        server.enqueue({ thinking: { text: "Hmm, let me see.", signature: "" }, text: "Yes." });
        const c = await collect(provider, request());
        expect(c.thinking).toBe("Hmm, let me see.");
        expect(c.text).toBe("Yes.");
    });

    it("maps usage: cached prompt tokens are subtracted", async () => {
        server.enqueue({ text: "hi", usage: { input: 40, output: 5, cacheRead: 60 } });
        const done = doneOf(await collect(provider, request()));
        expect(done.usage).toEqual({
            inputTokens: 40,
            outputTokens: 5,
            cacheReadTokens: 60,
            cacheWriteTokens: 0,
        });
    });

    it("finish_reason length → max_tokens", async () => {
        server.enqueue({ text: "cut", stopReason: "max_tokens" });
        expect(doneOf(await collect(provider, request())).stopReason).toBe("max_tokens");
    });

    it("401 → auth, not retryable, with the server's message", async () => {
        server.enqueue({ error: { status: 401, message: "Invalid API key" } });
        const e = errorOf(await collect(provider, request())).error;
        expect(e).toMatchObject({ kind: "auth", status: 401, retryable: false });
        expect(e.message).toContain("401: Invalid API key");
    });

    it("429 with retry-after → rate_limit with retryAfterMs", async () => {
        server.enqueue({ error: { status: 429, headers: { "retry-after": "2" } } });
        const e = errorOf(await collect(provider, request())).error;
        expect(e).toMatchObject({ kind: "rate_limit", retryable: true, retryAfterMs: 2000 });
    });

    it("500 → server, retryable", async () => {
        server.enqueue({ error: { status: 500, message: "model crashed" } });
        const e = errorOf(await collect(provider, request())).error;
        expect(e).toMatchObject({ kind: "server", retryable: true });
        expect(e.message).toContain("model crashed");
    });

    it("404 → not_found", async () => {
        server.enqueue({ error: { status: 404, message: "model 'llama9' not found" } });
        const e = errorOf(await collect(provider, request())).error;
        expect(e).toMatchObject({ kind: "not_found", retryable: false });
    });

    it("connection reset mid-stream → retryable", async () => {
        server.enqueue({ fault: "reset_mid_stream" });
        const ev = errorOf(await collect(provider, request()));
        expect(["network", "incomplete_stream"]).toContain(ev.error.kind);
        expect(ev.error.retryable).toBe(true);
    });

    it("stream cut during a tool call → incomplete_stream", async () => {
        server.enqueue({ fault: "cut_mid_tool_call" });
        const ev = errorOf(await collect(provider, request()));
        expect(ev.error).toMatchObject({ kind: "incomplete_stream", retryable: true });
        expect(ev.partial.content).toEqual([]);
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

    it("a refused connection → network, retryable", async () => {
        const url = server.openaiBaseUrl;
        await server.close();
        const dead = createOpenAIChatProvider({ api: "openai-chat", baseUrl: url, apiKey: "" });
        const e = errorOf(await collect(dead, request())).error;
        expect(e).toMatchObject({ kind: "network", retryable: true });
        server = await startFakeLlmServer();
    });
});
