import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { BUILTIN_PROVIDERS, calculateCost } from "../../src/providers/catalogue";
import { createProvider } from "../../src/providers/index";
import { buildCatalogue, resolveEndpoint } from "../../src/providers/models";
import type { Provider } from "../../src/providers/types";
import {
    type FakeOpenRouter,
    type OpenRouterModel,
    startFakeOpenRouter,
} from "../kit/fake-openrouter";
import { READ_TOOL, collect, doneOf, errorOf, request } from "./helpers";

const KEY = "sk-or-v1-test";
const MODELS: OpenRouterModel[] = [
    {
        id: "anthropic/claude-sonnet-4.5",
        name: "Anthropic: Claude Sonnet 4.5",
        context_length: 1_000_000,
        pricing: {
            prompt: "0.000003",
            completion: "0.000015",
            input_cache_read: "0.0000003",
            input_cache_write: "0.00000375",
        },
        top_provider: { max_completion_tokens: 64_000 },
    },
    {
        id: "openrouter/auto",
        name: "Auto Router",
        context_length: 2_000_000,
        // The router's price depends on the model it picks.
        pricing: { prompt: "-1", completion: "-1" },
        top_provider: { max_completion_tokens: null },
    },
];

describe("gateway presets", () => {
    it("each names its documented base URL and key variable and speaks Chat Completions", () => {
        const rows = Object.fromEntries(BUILTIN_PROVIDERS.map((p) => [p.id, p]));
        expect(rows.openrouter).toMatchObject({
            api: "openai-chat",
            baseUrl: "https://openrouter.ai/api/v1",
            apiKeyEnv: "OPENROUTER_API_KEY",
            headers: { "x-title": "North" },
        });
        expect(rows.vercel).toMatchObject({
            baseUrl: "https://ai-gateway.vercel.sh/v1",
            apiKeyEnv: "AI_GATEWAY_API_KEY",
        });
        expect(rows.groq).toMatchObject({
            baseUrl: "https://api.groq.com/openai/v1",
            apiKeyEnv: "GROQ_API_KEY",
        });
        expect(rows.deepseek).toMatchObject({
            baseUrl: "https://api.deepseek.com/v1",
            apiKeyEnv: "DEEPSEEK_API_KEY",
        });
        expect(rows.xai).toMatchObject({
            baseUrl: "https://api.x.ai/v1",
            apiKeyEnv: "XAI_API_KEY",
        });
    });

    it("a gateway without its key says which variable to export", () => {
        const catalogue = buildCatalogue();
        const resolved = resolveEndpoint(catalogue.providers.get("groq")!, {});
        expect(resolved).toMatchObject({ ok: false, problem: "key" });
        expect(!resolved.ok && resolved.error).toMatch(/GROQ_API_KEY/);
    });

    it("a stated cost is the cost; without one the catalogue price applies", () => {
        const pricing = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
        const usage = {
            inputTokens: 1000,
            outputTokens: 100,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
        };
        expect(calculateCost(pricing, usage)).toBeCloseTo(0.0045, 10);
        expect(calculateCost(pricing, { ...usage, costUsd: 0.0123 })).toBe(0.0123);
        expect(calculateCost(undefined, { ...usage, costUsd: 0 })).toBe(0);
        expect(calculateCost(undefined, usage)).toBeNull();
    });
});

describe("OpenRouter through the Chat Completions provider", () => {
    let router: FakeOpenRouter;
    let provider: Provider;

    beforeEach(async () => {
        vi.stubEnv("OPENAI_CUSTOM_HEADERS", undefined);
        router = await startFakeOpenRouter({ apiKey: KEY, models: MODELS });
        const catalogue = buildCatalogue({ openrouter: { baseUrl: router.baseUrl } });
        const resolved = resolveEndpoint(catalogue.providers.get("openrouter")!, {
            OPENROUTER_API_KEY: KEY,
        });
        if (!resolved.ok) throw new Error(resolved.error);
        provider = await createProvider(resolved.endpoint);
    });
    afterEach(async () => {
        vi.unstubAllEnvs();
        expect(router.remaining()).toBe(0);
        await router.close();
    });

    it("reads OpenRouter's cost and cache fields into the usage", async () => {
        router.enqueue({
            text: "routed",
            usage: { input: 400, output: 50, cacheRead: 1000 },
            cacheWrite: 200,
            cost: 0.004321,
        });
        const done = doneOf(
            await collect(provider, request({ apiModelId: "anthropic/claude-sonnet-4.5" }))
        );
        expect(done.usage).toEqual({
            inputTokens: 400,
            outputTokens: 50,
            cacheReadTokens: 1000,
            cacheWriteTokens: 200,
            costUsd: 0.004321,
        });
        const sent = router.requests[0]!;
        expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
        expect(sent.headers["x-title"]).toBe("North");
    });

    it("a tool loop answers the call it names", async () => {
        router.enqueue({
            toolCalls: [{ name: "read_file", input: { path: "a.txt" } }],
            cost: 0.001,
        });
        const first = doneOf(
            await collect(
                provider,
                request({ apiModelId: "anthropic/claude-sonnet-4.5", tools: [READ_TOOL] })
            )
        );
        const call = first.message.content.find((b) => b.type === "tool_call")!;
        router.enqueue({ text: "done", cost: 0.002 });
        const second = doneOf(
            await collect(
                provider,
                request({
                    apiModelId: "anthropic/claude-sonnet-4.5",
                    tools: [READ_TOOL],
                    messages: [
                        { role: "user", content: "read it" },
                        first.message,
                        {
                            role: "user",
                            content: [
                                {
                                    type: "tool_result",
                                    toolCallId: call.type === "tool_call" ? call.id : "",
                                    content: "text",
                                    isError: false,
                                },
                            ],
                        },
                    ],
                })
            )
        );
        expect(second.usage.costUsd).toBe(0.002);
    });

    it("an unknown model id is a clear bad request", async () => {
        const failed = errorOf(await collect(provider, request({ apiModelId: "nobody/nothing" })));
        expect(failed.error).toMatchObject({ kind: "bad_request", status: 400 });
        expect(failed.error.message).toMatch(/not a valid model ID/);
    });

    it("lists models with limits and per-1M prices; an unpriced router stays unpriced", async () => {
        const listed = await provider.listModels!(new AbortController().signal);
        expect(listed).toEqual([
            {
                id: "anthropic/claude-sonnet-4.5",
                display: "Anthropic: Claude Sonnet 4.5",
                contextLimitTokens: 1_000_000,
                maxOutputTokens: 64_000,
                pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
            },
            { id: "openrouter/auto", display: "Auto Router", contextLimitTokens: 2_000_000 },
        ]);
    });

    it("probe proves the key with GET /models; a wrong key fails with the service's words", async () => {
        const ok = await provider.probe!(new AbortController().signal);
        expect(ok.ok).toBe(true);
        expect(router.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/v1/models"]);
        const catalogue = buildCatalogue({ openrouter: { baseUrl: router.baseUrl } });
        const wrong = resolveEndpoint(catalogue.providers.get("openrouter")!, {
            OPENROUTER_API_KEY: "sk-or-wrong",
        });
        if (!wrong.ok) throw new Error(wrong.error);
        const refused = await (
            await createProvider(wrong.endpoint)
        ).probe!(new AbortController().signal);
        expect(refused.ok).toBe(false);
        expect(refused.detail).toMatch(
            /credentials refused \(HTTP 401\): No auth credentials found/
        );
    });

    it("a server that is not there fails the probe with the address", async () => {
        const catalogue = buildCatalogue({ local: { baseUrl: "http://127.0.0.1:9/v1" } });
        const resolved = resolveEndpoint(catalogue.providers.get("local")!, {});
        if (!resolved.ok) throw new Error(resolved.error);
        const result = await (
            await createProvider(resolved.endpoint)
        ).probe!(new AbortController().signal);
        expect(result.ok).toBe(false);
        expect(result.detail).toMatch(/GET http:\/\/127.0.0.1:9\/v1\/models failed: ECONNREFUSED/);
    });
});
