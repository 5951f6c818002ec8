import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAnthropicProvider } from "../../src/providers/anthropic";
import type { AssistantMessage, Provider } from "../../src/providers/types";
import { startFakeLlmServer } from "../kit/fake-llm-server";
import type { FakeLlmServer } from "../kit/fake-llm-server";
import { READ_TOOL, collect, doneOf, errorOf, request } from "./helpers";

type Body = Record<string, unknown> & { messages: Array<{ role: string; content: unknown }> };

let server: FakeLlmServer;
let provider: Provider;

beforeEach(async () => {
    server = await startFakeLlmServer();
    provider = createAnthropicProvider({
        api: "anthropic",
        baseUrl: server.anthropicBaseUrl,
        apiKey: "sk-ant-test",
        headers: { "x-north-test": "1" },
    });
});

afterEach(async () => {
    await server.close();
});

const body = (i: number): Body => server.requests[i]?.body as Body;

describe("anthropic provider", () => {
    it("streams text and sends a well-formed request", async () => {
        server.enqueue({ text: "Hello there, world" });
        const c = await collect(provider, request());
        const done = doneOf(c);
        expect(c.text).toBe("Hello there, world");
        // Deltas that arrive in one network chunk are coalesced into one event.
        expect(c.events.filter((e) => e.type === "text_delta").length).toBeGreaterThanOrEqual(1);
        expect(done.stopReason).toBe("end_turn");
        expect(done.message.content).toEqual([{ type: "text", text: "Hello there, world" }]);

        const req = server.requests[0];
        expect(req?.path).toBe("/v1/messages");
        // This SDK version sends the API key as a bearer token.
        expect(req?.headers["authorization"]).toBe("Bearer sk-ant-test");
        expect(req?.headers["x-north-test"]).toBe("1");
        expect(body(0)).toMatchObject({
            model: "test-model",
            max_tokens: 1024,
            stream: true,
            system: [{ type: "text", text: "You are a test." }],
        });
        expect(body(0)["thinking"]).toBeUndefined();
    });

    it("streams a tool call with multi-chunk JSON arguments", async () => {
        server.enqueue({
            text: "Reading.",
            toolCalls: [{ id: "toolu_1", name: "read_file", input: { path: "src/a.ts" } }],
        });
        const c = await collect(provider, request({ tools: [READ_TOOL] }));
        const done = doneOf(c);
        expect(done.stopReason).toBe("tool_use");
        expect(c.events.filter((e) => e.type === "tool_call_delta").length).toBeGreaterThanOrEqual(
            1
        );
        const start = c.events.find((e) => e.type === "tool_call_start");
        expect(start).toEqual({ type: "tool_call_start", id: "toolu_1", name: "read_file" });
        const end = c.events.find((e) => e.type === "tool_call_end");
        expect(end?.type === "tool_call_end" && end.call.input).toEqual({ path: "src/a.ts" });
        expect(done.message.content.map((b) => b.type)).toEqual(["text", "tool_call"]);
        expect(body(0)["tools"]).toEqual([
            {
                name: "read_file",
                description: "Read a file",
                input_schema: READ_TOOL.inputSchema,
            },
        ]);
    });

    it("flags malformed tool JSON without crashing, and replays it as {}", async () => {
        server.enqueue({
            toolCalls: [{ id: "toolu_bad", name: "read_file", rawArguments: '{"path": "a.ts"' }],
        });
        const done = doneOf(await collect(provider, request({ tools: [READ_TOOL] })));
        const call = done.message.content[0];
        expect(call?.type).toBe("tool_call");
        if (call?.type !== "tool_call") return;
        expect(call.input).toEqual({});
        expect(call.rawInput).toBe('{"path": "a.ts"');
        expect(call.inputError).toMatch(/not valid JSON/);

        server.enqueue({ text: "ok" });
        await collect(
            provider,
            request({
                messages: [
                    { role: "user", content: "go" },
                    done.message,
                    {
                        role: "user",
                        content: [
                            {
                                type: "tool_result",
                                toolCallId: "toolu_bad",
                                content: call.inputError ?? "",
                                isError: true,
                            },
                        ],
                    },
                ],
            })
        );
        const replay = body(1).messages;
        expect(replay[1]?.content).toEqual([
            { type: "tool_use", id: "toolu_bad", name: "read_file", input: {} },
        ]);
        expect(replay[2]?.content).toMatchObject([
            { type: "tool_result", tool_use_id: "toolu_bad", is_error: true },
        ]);
    });

    it("treats empty tool arguments as {}", async () => {
        server.enqueue({ toolCalls: [{ name: "list", rawArguments: "" }] });
        const done = doneOf(await collect(provider, request()));
        expect(done.message.content[0]).toMatchObject({ type: "tool_call", input: {} });
        expect(done.message.content[0]).not.toHaveProperty("inputError");
    });

    it("maps usage including cache read and write", async () => {
        server.enqueue({
            text: "hi",
            usage: { input: 12, output: 34, cacheRead: 1000, cacheWrite: 200 },
        });
        const done = doneOf(await collect(provider, request()));
        expect(done.usage).toEqual({
            inputTokens: 12,
            outputTokens: 34,
            cacheReadTokens: 1000,
            cacheWriteTokens: 200,
        });
    });

    it("maps max_tokens stop reason", async () => {
        server.enqueue({ text: "cut", stopReason: "max_tokens" });
        expect(doneOf(await collect(provider, request())).stopReason).toBe("max_tokens");
    });

    it("streams thinking, keeps the signature and sends the block back unmodified", async () => {
        server.enqueue({
            thinking: { text: "Let me think about it.", signature: "sig-abc==" },
            toolCalls: [{ id: "toolu_t", name: "read_file", input: { path: "x" } }],
        });
        const c = await collect(
            provider,
            request({ tools: [READ_TOOL], thinking: { budgetTokens: 2048 } })
        );
        const done = doneOf(c);
        expect(c.thinking).toBe("Let me think about it.");
        expect(done.message.content[0]).toEqual({
            type: "thinking",
            thinking: "Let me think about it.",
            signature: "sig-abc==",
        });
        const first = body(0);
        expect(first["thinking"]).toEqual({ type: "enabled", budget_tokens: 2048 });
        expect(first["max_tokens"]).toBeGreaterThan(2048);

        const withRedacted: AssistantMessage = {
            role: "assistant",
            content: [
                ...done.message.content.slice(0, 1),
                { type: "redacted_thinking", data: "opaque" },
                { type: "reasoning", id: "rs_1", summary: "openai only" },
                ...done.message.content.slice(1),
            ],
        };
        server.enqueue({ text: "done" });
        await collect(
            provider,
            request({
                tools: [READ_TOOL],
                thinking: { budgetTokens: 2048 },
                messages: [
                    { role: "user", content: "go" },
                    withRedacted,
                    {
                        role: "user",
                        content: [
                            {
                                type: "tool_result",
                                toolCallId: "toolu_t",
                                content: "x!",
                                isError: false,
                            },
                        ],
                    },
                ],
            })
        );
        expect(body(1).messages[1]).toEqual({
            role: "assistant",
            content: [
                { type: "thinking", thinking: "Let me think about it.", signature: "sig-abc==" },
                { type: "redacted_thinking", data: "opaque" },
                { type: "tool_use", id: "toolu_t", name: "read_file", input: { path: "x" } },
            ],
        });
        expect(body(1).messages[2]?.content).toMatchObject([
            { type: "tool_result", tool_use_id: "toolu_t", content: "x!", is_error: false },
        ]);
    });

    it("replays tool calls another API named with ids the Messages API refuses, paired", async () => {
        // Some OpenAI-compatible servers name calls like "functions.read_file:0".
        server.enqueue({ text: "ok" });
        const c = await collect(
            provider,
            request({
                tools: [READ_TOOL],
                messages: [
                    { role: "user", content: "read it" },
                    {
                        role: "assistant",
                        content: [
                            {
                                type: "tool_call",
                                id: "functions.read_file:0",
                                name: "read_file",
                                input: { path: "a" },
                                rawInput: '{"path":"a"}',
                            },
                        ],
                    },
                    {
                        role: "user",
                        content: [
                            {
                                type: "tool_result",
                                toolCallId: "functions.read_file:0",
                                content: "A",
                                isError: false,
                            },
                        ],
                    },
                ],
            })
        );
        expect(doneOf(c).stopReason).toBe("end_turn");
        const sent = JSON.stringify(body(0).messages);
        expect(sent).toContain('"id":"functions_read_file_0"');
        expect(sent).toContain('"tool_use_id":"functions_read_file_0"');
    });

    it("keeps max_tokens above the thinking budget", async () => {
        server.enqueue({ text: "ok" });
        await collect(
            provider,
            request({ maxOutputTokens: 4000, thinking: { budgetTokens: 8000 } })
        );
        expect(body(0)["max_tokens"]).toBeGreaterThan(8000);
    });

    it("401 → auth, not retryable, with the API's message", async () => {
        server.enqueue({ error: { status: 401, message: "invalid x-api-key" } });
        const e = errorOf(await collect(provider, request())).error;
        expect(e).toMatchObject({ kind: "auth", status: 401, retryable: false });
        expect(e.message).toBe("Anthropic API 401: invalid x-api-key");
    });

    it("429 with retry-after → rate_limit with retryAfterMs", async () => {
        server.enqueue({
            error: { status: 429, message: "slow down", headers: { "retry-after": "2" } },
        });
        const e = errorOf(await collect(provider, request())).error;
        expect(e).toMatchObject({ kind: "rate_limit", retryable: true, retryAfterMs: 2000 });
    });

    it("500 → server, retryable", async () => {
        server.enqueue({ error: { status: 500, message: "Internal server error" } });
        const e = errorOf(await collect(provider, request())).error;
        expect(e).toMatchObject({ kind: "server", status: 500, retryable: true });
    });

    it("529 → overloaded, retryable", async () => {
        server.enqueue({ error: { status: 529, message: "Overloaded" } });
        const e = errorOf(await collect(provider, request())).error;
        expect(e).toMatchObject({ kind: "overloaded", retryable: true });
        expect(e.message).toContain("Overloaded");
    });

    it("overloaded_error sent mid-stream → overloaded, with the partial text", async () => {
        server.enqueue({ error: { status: 529, message: "Overloaded", midStream: true } });
        const ev = errorOf(await collect(provider, request()));
        expect(ev.error).toMatchObject({ kind: "overloaded", retryable: true });
        expect(ev.partial.content[0]).toMatchObject({ type: "text" });
    });

    it("prompt too long → context_length, not retryable", async () => {
        server.enqueue({
            error: { status: 400, message: "prompt is too long: 210000 tokens > 200000 maximum" },
        });
        const e = errorOf(await collect(provider, request())).error;
        expect(e).toMatchObject({ kind: "context_length", retryable: false });
    });

    it("other 400 → bad_request", async () => {
        server.enqueue({ error: { status: 400, message: "messages: field required" } });
        const e = errorOf(await collect(provider, request())).error;
        expect(e).toMatchObject({ kind: "bad_request", retryable: false });
    });

    it("connection reset mid-stream → retryable network error with partial text", async () => {
        server.enqueue({ fault: "reset_mid_stream" });
        const ev = errorOf(await collect(provider, request()));
        expect(["network", "incomplete_stream"]).toContain(ev.error.kind);
        expect(ev.error.retryable).toBe(true);
    });

    it("stream cut during a tool call → incomplete_stream, retryable", async () => {
        server.enqueue({ fault: "cut_mid_tool_call" });
        const c = await collect(provider, request());
        const ev = errorOf(c);
        expect(ev.error).toMatchObject({ kind: "incomplete_stream", retryable: true });
        expect(c.events.some((e) => e.type === "tool_call_start")).toBe(true);
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

    it("a request with nothing scripted fails loudly", async () => {
        const e = errorOf(await collect(provider, request())).error;
        expect(e.message).toContain("fake server: no scripted turn left");
    });
});
