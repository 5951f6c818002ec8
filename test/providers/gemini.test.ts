import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { FOREIGN_CALL_SIGNATURE } from "../../src/providers/gemini-wire";
import { createProvider } from "../../src/providers/index";
import type { Message, Provider, ToolCallBlock } from "../../src/providers/types";
import { FAKE_GEMINI_KEY, type FakeGemini, startFakeGemini } from "../kit/fake-gemini";
import { startTestProxy } from "../kit/test-proxy";
import { READ_TOOL, collect, doneOf, errorOf, request } from "./helpers";

let fake: FakeGemini;
let provider: Provider;

const FLASH_3 = "gemini-3-flash";
const PRO_25 = "gemini-2.5-pro";
const PNG_1PX =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

beforeAll(async () => {
    fake = await startFakeGemini();
    provider = await createProvider({ api: "gemini", baseUrl: fake.url, apiKey: FAKE_GEMINI_KEY });
});
afterAll(() => fake.close());
afterEach(() => {
    expect(fake.remaining()).toBe(0);
    fake.requests.length = 0;
});

interface SentBody {
    contents: Array<{ role: string; parts: unknown[] }>;
    systemInstruction?: unknown;
    tools?: unknown;
    generationConfig: { maxOutputTokens: number; thinkingConfig?: unknown };
}

const lastBody = () => fake.requests[fake.requests.length - 1]!.body as SentBody;

describe("Gemini API: requests", () => {
    it("streams text to alt=sse with the key header, system instruction and usage (cached tokens apart)", async () => {
        fake.enqueue({
            text: "Hello there, friend.",
            usage: { input: 100, cacheRead: 40, output: 7 },
            gemini: { thoughtsTokens: 3 },
        });
        const c = await collect(provider, request({ apiModelId: FLASH_3 }));
        const done = doneOf(c);
        expect(c.text).toBe("Hello there, friend.");
        expect(done.stopReason).toBe("end_turn");
        expect(done.usage).toEqual({
            inputTokens: 100,
            cacheReadTokens: 40,
            outputTokens: 10,
            cacheWriteTokens: 0,
        });
        const req = fake.requests[0]!;
        expect(req.path).toBe(`/v1beta/models/${FLASH_3}:streamGenerateContent`);
        expect(req.query.get("alt")).toBe("sse");
        expect(req.headers["x-goog-api-key"]).toBe(FAKE_GEMINI_KEY);
        expect(lastBody().systemInstruction).toEqual({ parts: [{ text: "You are a test." }] });
        expect(lastBody().contents).toEqual([{ role: "user", parts: [{ text: "Hi" }] }]);
        // The signature on the last (empty) part is kept, on a block of its own, for the next turn.
        expect(done.message.content).toEqual([
            { type: "text", text: "Hello there, friend." },
            { type: "text", text: "", thoughtSignature: expect.any(String) },
        ]);
    });

    it("asks Gemini 3 for a thinking level and 2.5 for a budget, and streams thought parts as thinking", async () => {
        fake.enqueue(
            { thinking: { text: "Pondering.", signature: "" }, text: "Done." },
            { text: "Ok." }
        );
        const c = await collect(
            provider,
            request({ apiModelId: FLASH_3, thinking: { budgetTokens: 16_000 } })
        );
        expect(c.thinking).toBe("Pondering.");
        expect(c.text).toBe("Done.");
        expect(lastBody().generationConfig).toEqual({
            maxOutputTokens: 1024 + 16_000,
            thinkingConfig: { includeThoughts: true, thinkingLevel: "high" },
        });
        const thinking = doneOf(c).message.content[0]!;
        expect(thinking).toMatchObject({ type: "thinking", thinking: "Pondering.", signature: "" });
        await collect(
            provider,
            request({
                apiModelId: PRO_25,
                thinking: { budgetTokens: 2048 },
                maxOutputTokens: 65_536,
            })
        );
        expect(lastBody().generationConfig).toEqual({
            maxOutputTokens: 65_536,
            thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 },
        });
    });

    it("declares tools with their JSON Schema as parametersJsonSchema", async () => {
        fake.enqueue({ text: "ok" });
        const tool = {
            ...READ_TOOL,
            inputSchema: {
                $schema: "http://json-schema.org/draft-07/schema#",
                ...READ_TOOL.inputSchema,
                additionalProperties: false,
            },
        };
        await collect(provider, request({ apiModelId: FLASH_3, tools: [tool] }));
        expect(lastBody().tools).toEqual([
            {
                functionDeclarations: [
                    {
                        name: "read_file",
                        description: "Read a file",
                        parametersJsonSchema: {
                            ...READ_TOOL.inputSchema,
                            additionalProperties: false,
                        },
                    },
                ],
            },
        ]);
    });

    it("runs a parallel tool loop on Gemini 3: calls whole, results by name and id, signatures replayed", async () => {
        fake.enqueue({
            text: "Reading both.",
            toolCalls: [
                { name: "read_file", input: { path: "a.txt" } },
                { name: "read_file", input: { path: "b.txt" } },
            ],
        });
        const first = await collect(provider, request({ apiModelId: FLASH_3, tools: [READ_TOOL] }));
        const done = doneOf(first);
        expect(done.stopReason).toBe("tool_use");
        const calls = done.message.content.filter(
            (b): b is ToolCallBlock => b.type === "tool_call"
        );
        expect(calls.map((c) => c.input)).toEqual([{ path: "a.txt" }, { path: "b.txt" }]);
        expect(new Set(calls.map((c) => c.id)).size).toBe(2);
        expect(calls[0]!.thoughtSignature).toBeTruthy();
        expect(calls[1]!.thoughtSignature).toBeUndefined();
        const kinds = first.events.map((e) => e.type).filter((t) => t.startsWith("tool_call"));
        expect(kinds).toEqual([
            "tool_call_start",
            "tool_call_delta",
            "tool_call_end",
            "tool_call_start",
            "tool_call_delta",
            "tool_call_end",
        ]);

        fake.enqueue({ text: "A and B." });
        const messages: Message[] = [
            { role: "user", content: "Read a and b" },
            done.message,
            {
                role: "user",
                content: [
                    { type: "tool_result", toolCallId: calls[0]!.id, content: "A", isError: false },
                    {
                        type: "tool_result",
                        toolCallId: calls[1]!.id,
                        content: "no such file",
                        isError: true,
                    },
                ],
            },
        ];
        const second = await collect(
            provider,
            request({ apiModelId: FLASH_3, tools: [READ_TOOL], messages })
        );
        expect(second.text).toBe("A and B.");
        const contents = lastBody().contents;
        expect(contents[1]!.parts[1]).toEqual({
            functionCall: { id: calls[0]!.id, name: "read_file", args: { path: "a.txt" } },
            thoughtSignature: calls[0]!.thoughtSignature,
        });
        expect(contents[2]!.parts).toEqual([
            {
                functionResponse: {
                    id: calls[0]!.id,
                    name: "read_file",
                    response: { output: "A" },
                },
            },
            {
                functionResponse: {
                    id: calls[1]!.id,
                    name: "read_file",
                    response: { error: "no such file" },
                },
            },
        ]);
    });

    it("keeps the API's own function call ids", async () => {
        fake.enqueue({
            toolCalls: [{ id: "fc_api_1", name: "read_file", input: { path: "x" } }],
            gemini: { callIds: true },
        });
        const c = await collect(provider, request({ apiModelId: FLASH_3, tools: [READ_TOOL] }));
        expect(doneOf(c).message.content.find((b) => b.type === "tool_call")).toMatchObject({
            id: "fc_api_1",
        });
    });

    it("gives a Gemini 3 call from elsewhere Google's stand-in signature, and leaves 2.x alone", async () => {
        const messages: Message[] = [
            { role: "user", content: "Read a" },
            {
                role: "assistant",
                content: [
                    {
                        type: "tool_call",
                        id: "c1",
                        name: "read_file",
                        input: { path: "a" },
                        rawInput: "{}",
                    },
                    {
                        type: "tool_call",
                        id: "c2",
                        name: "read_file",
                        input: { path: "b" },
                        rawInput: "{}",
                    },
                ],
            },
            {
                role: "user",
                content: [
                    { type: "tool_result", toolCallId: "c1", content: "A", isError: false },
                    { type: "tool_result", toolCallId: "c2", content: "B", isError: false },
                ],
            },
        ];
        fake.enqueue({ text: "ok" }, { text: "ok" });
        doneOf(
            await collect(provider, request({ apiModelId: FLASH_3, tools: [READ_TOOL], messages }))
        );
        const parts = lastBody().contents[1]!.parts as Array<{ thoughtSignature?: string }>;
        expect(parts.map((p) => p.thoughtSignature)).toEqual([FOREIGN_CALL_SIGNATURE, undefined]);
        doneOf(
            await collect(provider, request({ apiModelId: PRO_25, tools: [READ_TOOL], messages }))
        );
        const old = lastBody().contents[1]!.parts as Array<{ thoughtSignature?: string }>;
        expect(old.map((p) => p.thoughtSignature)).toEqual([undefined, undefined]);
    });

    it("sends images inline and a GIF (which Gemini cannot read) as a note", async () => {
        fake.enqueue({ text: "A red dot." });
        const image = {
            type: "image" as const,
            mediaType: "image/png" as const,
            data: PNG_1PX,
            name: "dot.png",
            bytes: 68,
        };
        const gif = { ...image, mediaType: "image/gif" as const, name: "spin.gif" };
        const messages: Message[] = [
            { role: "user", content: [{ type: "text", text: "What is this?" }, image, gif] },
        ];
        await collect(provider, request({ apiModelId: FLASH_3, messages }));
        expect(lastBody().contents[0]!.parts).toEqual([
            { text: "What is this?" },
            { inlineData: { mimeType: "image/png", data: PNG_1PX } },
            { text: "[Image spin.gif not sent: Gemini does not read image/gif]" },
        ]);
    });
});

describe("Gemini API: endings and errors", () => {
    it("maps MAX_TOKENS, and a SAFETY stop to a refusal that says why", async () => {
        fake.enqueue(
            { text: "Long", stopReason: "max_tokens" },
            { text: "Part", gemini: { finishReason: "SAFETY" } }
        );
        expect(doneOf(await collect(provider, request({ apiModelId: FLASH_3 }))).stopReason).toBe(
            "max_tokens"
        );
        const c = await collect(provider, request({ apiModelId: FLASH_3 }));
        expect(doneOf(c).stopReason).toBe("refusal");
        expect(c.text).toBe(
            "Part\n\n[Gemini API stopped: the answer was blocked by the safety filters (SAFETY)]"
        );
    });

    it("reports a blocked prompt as a refusal", async () => {
        fake.enqueue({ gemini: { promptBlocked: "PROHIBITED_CONTENT" } });
        const c = await collect(provider, request({ apiModelId: FLASH_3 }));
        expect(doneOf(c).stopReason).toBe("refusal");
        expect(c.text).toContain("the prompt was blocked (PROHIBITED_CONTENT)");
    });

    it("retries a MALFORMED_FUNCTION_CALL as an incomplete stream", async () => {
        fake.enqueue({
            text: "x",
            gemini: { finishReason: "MALFORMED_FUNCTION_CALL", finishMessage: "bad call" },
        });
        const error = errorOf(await collect(provider, request({ apiModelId: FLASH_3 })));
        expect(error.error).toMatchObject({ kind: "incomplete_stream", retryable: true });
        expect(error.error.message).toContain("MALFORMED_FUNCTION_CALL");
    });

    it("reads a 429 RESOURCE_EXHAUSTED with RetryInfo as a rate limit to retry after its delay", async () => {
        fake.enqueue({ error: { status: 429, message: "Quota exceeded" } });
        const error = errorOf(await collect(provider, request({ apiModelId: FLASH_3 })));
        expect(error.error).toEqual({
            kind: "rate_limit",
            status: 429,
            retryable: true,
            retryAfterMs: 2000,
            message: "Gemini API 429: Quota exceeded",
        });
    });

    it("retries 500 and 503, not 403 or 404", async () => {
        fake.enqueue(
            { error: { status: 503, message: "The model is overloaded." } },
            { error: { status: 500, message: "Internal error" } },
            { error: { status: 403, message: "Permission denied" } },
            { error: { status: 404, message: "models/gemini-0 is not found" } }
        );
        const kinds = [];
        for (let i = 0; i < 4; i++)
            kinds.push(errorOf(await collect(provider, request({ apiModelId: FLASH_3 }))).error);
        expect(kinds.map((e) => [e.kind, e.retryable])).toEqual([
            ["server", true],
            ["server", true],
            ["auth", false],
            ["not_found", false],
        ]);
    });

    it("reads a refused key (400 API_KEY_INVALID) as an auth failure", async () => {
        const wrong = await createProvider({ api: "gemini", baseUrl: fake.url, apiKey: "wrong" });
        const error = errorOf(await collect(wrong, request({ apiModelId: FLASH_3 })));
        expect(error.error).toMatchObject({ kind: "auth", status: 400, retryable: false });
        expect(error.error.message).toBe(
            "Gemini API 400: API key not valid. Please pass a valid API key."
        );
    });

    it("reads a prompt over the model's input limit as context_length, so North summarises", async () => {
        const small = fake.models.find((m) => m.id === PRO_25)!;
        const before = small.inputTokenLimit;
        small.inputTokenLimit = 100;
        try {
            const long = request({
                apiModelId: PRO_25,
                messages: [{ role: "user", content: "x".repeat(2000) }],
            });
            const error = errorOf(await collect(provider, long));
            expect(error.error).toMatchObject({
                kind: "context_length",
                status: 400,
                retryable: false,
            });
            expect(error.error.message).toMatch(
                /^Gemini API 400: The input token count \(\d+\) exceeds/
            );
        } finally {
            small.inputTokenLimit = before;
        }
    });

    it("classifies an error sent inside the stream by its Google status", async () => {
        fake.enqueue({ error: { status: 503, message: "Backend went away", midStream: true } });
        const c = await collect(provider, request({ apiModelId: FLASH_3 }));
        const error = errorOf(c);
        expect(error.error).toMatchObject({
            kind: "overloaded",
            retryable: true,
            message: "Gemini API error: Backend went away",
        });
        expect(error.partial.content).toEqual([{ type: "text", text: "partial " }]);
    });

    it("ends a stream without a finishReason as incomplete, and a reset as a network error", async () => {
        fake.enqueue({ fault: "cut_mid_tool_call" }, { fault: "reset_mid_stream" });
        const cut = errorOf(await collect(provider, request({ apiModelId: FLASH_3 })));
        expect(cut.error).toMatchObject({ kind: "incomplete_stream", retryable: true });
        expect(cut.error.message).toBe(
            "Gemini API stream ended early: connection closed before a finishReason"
        );
        const reset = errorOf(await collect(provider, request({ apiModelId: FLASH_3 })));
        expect(reset.error.retryable).toBe(true);
    });
});

describe("Gemini API: models", () => {
    it("lists the models that generate content over every page", async () => {
        const paged = await startFakeGemini({ pageSize: 1 });
        try {
            const p = await createProvider({
                api: "gemini",
                baseUrl: paged.url,
                apiKey: FAKE_GEMINI_KEY,
            });
            const models = await p.listModels!(new AbortController().signal);
            expect(models).toEqual([
                {
                    id: "gemini-3-flash",
                    display: "gemini-3-flash",
                    contextLimitTokens: 1_048_576,
                    maxOutputTokens: 65_536,
                },
                {
                    id: "gemini-2.5-pro",
                    display: "gemini-2.5-pro",
                    contextLimitTokens: 1_048_576,
                    maxOutputTokens: 65_536,
                },
            ]);
            expect(paged.requests.map((r) => r.query.get("pageToken"))).toEqual([null, "1", "2"]);
        } finally {
            await paged.close();
        }
    });

    it("probes with the list call: a good key passes, a bad one says why", async () => {
        expect(await provider.probe!(new AbortController().signal)).toEqual({
            ok: true,
            detail: `API key accepted by ${fake.url}`,
        });
        const wrong = await createProvider({ api: "gemini", baseUrl: fake.url, apiKey: "wrong" });
        expect(await wrong.probe!(new AbortController().signal)).toEqual({
            ok: false,
            detail: "Gemini API 400: API key not valid. Please pass a valid API key.",
        });
        expect(fake.requests.every((r) => r.method === "GET")).toBe(true);
    });

    it("lists models through HTTP_PROXY like every other request", async () => {
        const proxy = await startTestProxy();
        vi.stubEnv("HTTP_PROXY", proxy.url);
        vi.stubEnv("NO_PROXY", "");
        try {
            const models = await provider.listModels!(new AbortController().signal);
            expect(models.map((m) => m.id)).toEqual(["gemini-3-flash", "gemini-2.5-pro"]);
            expect(proxy.seen).toEqual([`GET ${fake.url}/v1beta/models?pageSize=1000`]);
        } finally {
            vi.unstubAllEnvs();
            await proxy.close();
        }
    });
});

describe("Gemini API: cancelling", () => {
    it("ends with cancelled when the signal aborts mid-stream", async () => {
        fake.enqueue({ fault: "endless" });
        const controller = new AbortController();
        const events = [];
        for await (const event of provider.stream(
            request({ apiModelId: FLASH_3 }),
            controller.signal
        )) {
            events.push(event);
            if (event.type === "text_delta") controller.abort();
        }
        expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "cancelled" } });
    });
});
