import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Conversation } from "../../src/agent/conversation";
import {
    WebSearchPolicy,
    type WebSearchSetting,
    decideWebSearch,
} from "../../src/agent/web-search-policy";
import type { ModelInfo } from "../../src/providers/catalogue";
import { createAnthropicProvider } from "../../src/providers/anthropic";
import { createOpenAIChatProvider } from "../../src/providers/openai-chat";
import { createOpenAIResponsesProvider } from "../../src/providers/openai-responses";
import { sourcesText, webSearchCostUsd } from "../../src/providers/server-tools";
import type {
    AssistantMessage,
    Message,
    Provider,
    WebSearchBlock,
} from "../../src/providers/types";
import { PermissionRules } from "../../src/tools/permissions/rules";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { FakeWebSearch } from "../kit/web-search-wire";
import { collect, doneOf, errorOf, request } from "./helpers";

type Json = Record<string, unknown>;

const ON: WebSearchSetting = { enabled: true };

function rulesOf(rules: Array<["allow" | "deny" | "ask", string]>): PermissionRules {
    const set = new PermissionRules(
        { projectRoot: "/repo", home: "/home/u" },
        new Set(["web_fetch", "WebFetch"])
    );
    for (const [kind, text] of rules) {
        const error = set.add(kind, text, "/home/u/.config/north/config.json");
        if (error) throw new Error(error);
    }
    return set;
}

describe("web search parameters from WebFetch rules", () => {
    it("is off unless the setting or flag turns it on", () => {
        expect(decideWebSearch("anthropic", undefined, undefined)).toEqual({ kind: "off" });
        expect(decideWebSearch("anthropic", { enabled: false }, undefined)).toEqual({
            kind: "off",
        });
    });

    it("offers it with the default max_uses, or the setting's", () => {
        expect(decideWebSearch("anthropic", ON, rulesOf([]))).toEqual({
            kind: "offered",
            params: { maxUses: 5 },
        });
        expect(
            decideWebSearch("openai-responses", { enabled: true, maxUses: 2 }, undefined)
        ).toEqual({ kind: "offered", params: { maxUses: 2 } });
    });

    it("turns deny and ask domain rules into Anthropic's blocked domains", () => {
        const rules = rulesOf([
            ["deny", "WebFetch(domain:evil.example)"],
            ["ask", "WebFetch(domain:*.tracker.example)"],
            ["allow", "WebFetch(domain:docs.example)"],
        ]);
        expect(decideWebSearch("anthropic", ON, rules)).toEqual({
            kind: "offered",
            params: { maxUses: 5, blockedDomains: ["evil.example", "tracker.example"] },
        });
    });

    it("does not offer OpenAI's search when a rule keeps a domain out (it cannot block)", () => {
        const decision = decideWebSearch(
            "openai-responses",
            ON,
            rulesOf([["deny", "WebFetch(domain:evil.example)"]])
        );
        expect(decision.kind).toBe("not_offered");
        expect(decision.kind === "not_offered" && decision.reason).toContain(
            '"WebFetch(domain:evil.example)"'
        );
    });

    it("searches only allowed domains when asked to, on either API", () => {
        const rules = rulesOf([
            ["allow", "WebFetch(domain:docs.example)"],
            ["allow", "WebFetch(domain:github.com)"],
            // Outside every allowed domain: kept out anyway.
            ["deny", "WebFetch(domain:evil.example)"],
        ]);
        const setting = { enabled: true, onlyAllowedDomains: true };
        for (const api of ["anthropic", "openai-responses"] as const) {
            expect(decideWebSearch(api, setting, rules)).toEqual({
                kind: "offered",
                params: { maxUses: 5, allowedDomains: ["docs.example", "github.com"] },
            });
        }
    });

    it("does not offer it when a denied domain lies inside an allowed one", () => {
        const rules = rulesOf([
            ["allow", "WebFetch(domain:example.com)"],
            ["deny", "WebFetch(domain:private.example.com)"],
        ]);
        const decision = decideWebSearch(
            "anthropic",
            { enabled: true, onlyAllowedDomains: true },
            rules
        );
        expect(decision).toMatchObject({ kind: "not_offered" });
    });

    it("does not offer it under a WebFetch deny-all, a WebFetch ask-all or a WebSearch deny", () => {
        for (const rule of [
            ["deny", "WebFetch"],
            ["ask", "WebFetch"],
            ["deny", "WebSearch"],
        ] as const) {
            const decision = decideWebSearch("anthropic", ON, rulesOf([[rule[0], rule[1]]]));
            expect(decision.kind, rule.join(" ")).toBe("not_offered");
        }
    });

    it("does not offer it when a deny rule names an address a domain filter cannot express", () => {
        const decision = decideWebSearch(
            "anthropic",
            ON,
            rulesOf([["deny", "WebFetch(domain:10.0.0.1)"]])
        );
        expect(decision).toMatchObject({ kind: "not_offered" });
    });

    it("is not offered by a provider without one, and each reason is told once", () => {
        const model = { id: "m", provider: "bedrock" } as ModelInfo;
        const policy = new WebSearchPolicy(ON, undefined, () => "bedrock");
        const first = policy.forRequest(model);
        expect(first.params).toBeUndefined();
        expect(first.notice).toMatch(/^Web search is not offered: .*bedrock/);
        expect(policy.forRequest(model)).toEqual({});
    });
});

describe("web search cost", () => {
    it("prices each search at the provider's published price and adds it to the response", () => {
        const usage = {
            inputTokens: 1_000_000,
            outputTokens: 0,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
            webSearchRequests: 3,
        };
        expect(webSearchCostUsd("anthropic", usage)).toBeCloseTo(0.03);
        expect(webSearchCostUsd("openai-responses", usage)).toBeCloseTo(0.03);
        const model = {
            id: "claude",
            provider: "anthropic",
            pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
        } as ModelInfo;
        const policy = new WebSearchPolicy(ON, undefined, () => "anthropic");
        const conversation = new Conversation({
            model,
            emit: () => undefined,
            searchCostUsd: (m, u) => policy.costUsd(m, u),
        });
        expect(conversation.addUsage(usage)).toBeCloseTo(3.03);
        conversation.addUsage({ ...usage, webSearchRequests: 1 });
        expect(conversation.totalUsage.webSearchRequests).toBe(4);
    });
});

describe("web search on the Anthropic wire", () => {
    let server: FakeLlmServer;
    let search: FakeWebSearch;
    let provider: Provider;

    beforeEach(async () => {
        search = new FakeWebSearch();
        server = await startFakeLlmServer({ checks: [search.check] });
        provider = createAnthropicProvider({
            api: "anthropic",
            baseUrl: server.anthropicBaseUrl,
            apiKey: "sk-ant-test",
        });
    });
    afterEach(async () => {
        await server.close();
    });

    const body = (i: number): Json => server.requests[i]?.body as Json;

    it("offers the tool with the rules' limits, streams the search and keeps it with citations", async () => {
        server.enqueue(
            search.turn({
                searches: [
                    {
                        query: "node 20 release date",
                        results: [
                            { url: "https://nodejs.org/en/blog/20", title: "Node.js 20" },
                            { url: "https://example.org/node", title: "Node notes" },
                        ],
                    },
                ],
                text: "Node 20 came out in April 2023.",
                cite: ["https://nodejs.org/en/blog/20"],
            })
        );
        const c = await collect(
            provider,
            request({ webSearch: { maxUses: 3, blockedDomains: ["evil.example"] } })
        );
        const done = doneOf(c);
        expect(body(0)["tools"]).toEqual([
            {
                type: "web_search_20250305",
                name: "web_search",
                max_uses: 3,
                blocked_domains: ["evil.example"],
            },
        ]);
        const events = c.events.filter((e) => e.type === "web_search");
        expect(events).toHaveLength(1);
        const [searchBlock, text] = done.message.content as [WebSearchBlock, Json];
        expect(searchBlock).toMatchObject({
            type: "web_search",
            api: "anthropic",
            query: "node 20 release date",
            sources: [
                {
                    url: "https://nodejs.org/en/blog/20",
                    title: "Node.js 20",
                    pageAge: "2 days ago",
                },
                { url: "https://example.org/node", title: "Node notes", pageAge: "2 days ago" },
            ],
        });
        expect(searchBlock.wire).toHaveLength(2);
        expect(text).toMatchObject({
            type: "text",
            text: "Node 20 came out in April 2023.",
            citations: [{ url: "https://nodejs.org/en/blog/20", title: "Node.js 20" }],
        });
        expect(done.usage.webSearchRequests).toBe(1);
    });

    it("sends the search blocks back unmodified on the next turn (the fake checks them)", async () => {
        server.enqueue(
            search.turn({
                searches: [{ query: "q", results: [{ url: "https://a.example/x", title: "A" }] }],
                text: "Found it.",
                cite: ["https://a.example/x"],
            }),
            { text: "Sure." }
        );
        const webSearch = { maxUses: 5 };
        const first = doneOf(await collect(provider, request({ webSearch })));
        const messages: Message[] = [
            { role: "user", content: "Hi" },
            first.message,
            { role: "user", content: "Thanks; more?" },
        ];
        const second = await collect(provider, request({ webSearch, messages }));
        expect(doneOf(second).message.content).toEqual([{ type: "text", text: "Sure." }]);
        const replayed = (body(1)["messages"] as Array<{ content: Json[] }>)[1]!.content;
        expect(replayed.map((b) => b.type)).toEqual([
            "server_tool_use",
            "web_search_tool_result",
            "text",
        ]);
        expect(replayed[0]).toMatchObject({ id: expect.any(String), input: { query: "q" } });
        expect(replayed[2]!["citations"]).toHaveLength(1);
    });

    it("is refused by the fake when a result comes back modified", async () => {
        server.enqueue(
            search.turn({
                searches: [{ query: "q", results: [{ url: "https://a.example/x", title: "A" }] }],
                text: "Found it.",
            })
        );
        const first = doneOf(await collect(provider, request({ webSearch: { maxUses: 5 } })));
        const tampered = structuredClone(first.message) as AssistantMessage;
        const block = tampered.content[0] as WebSearchBlock;
        ((block.wire[1] as Json)["content"] as Json[])[0]!["encrypted_content"] = "forged";
        const c = await collect(
            provider,
            request({
                webSearch: { maxUses: 5 },
                messages: [
                    { role: "user", content: "Hi" },
                    tampered,
                    { role: "user", content: "?" },
                ],
            })
        );
        expect(errorOf(c).error).toMatchObject({ kind: "bad_request", status: 400 });
    });

    it("sends searches as text, without citations, once the tool is no longer offered", async () => {
        server.enqueue(
            search.turn({
                searches: [{ query: "q", results: [{ url: "https://a.example/x", title: "A" }] }],
                text: "Found it.",
                cite: ["https://a.example/x"],
            }),
            { text: "Ok." }
        );
        const first = doneOf(await collect(provider, request({ webSearch: { maxUses: 5 } })));
        doneOf(
            await collect(
                provider,
                request({
                    messages: [
                        { role: "user", content: "Hi" },
                        first.message,
                        { role: "user", content: "?" },
                    ],
                })
            )
        );
        expect(body(1)["tools"]).toBeUndefined();
        expect((body(1)["messages"] as Array<{ content: unknown }>)[1]!.content).toEqual([
            {
                type: "text",
                text: '[Searched the web for "q"; results:\n- A: https://a.example/x]',
            },
            { type: "text", text: "Found it." },
        ]);
    });

    it("keeps a failed search with its error code", async () => {
        server.enqueue(
            search.turn({
                searches: [{ query: "q", results: [], error: "max_uses_exceeded" }],
                text: "I could not search.",
            })
        );
        const done = doneOf(await collect(provider, request({ webSearch: { maxUses: 1 } })));
        expect(done.message.content[0]).toMatchObject({
            type: "web_search",
            error: "max_uses_exceeded",
            sources: [],
        });
    });
});

describe("web search on the OpenAI Responses wire", () => {
    let server: FakeLlmServer;
    let search: FakeWebSearch;
    let provider: Provider;

    beforeEach(async () => {
        search = new FakeWebSearch();
        server = await startFakeLlmServer({ checks: [search.check] });
        provider = createOpenAIResponsesProvider({
            api: "openai-responses",
            baseUrl: server.openaiBaseUrl,
            apiKey: "sk-test",
        });
    });
    afterEach(async () => {
        await server.close();
    });

    const body = (i: number): Json => server.requests[i]?.body as Json;

    it("offers web_search with allowed domains, keeps the call and its citations, replays the item", async () => {
        server.enqueue(
            search.turn({
                searches: [
                    {
                        query: "vitest docs",
                        results: [{ url: "https://vitest.dev/", title: "Vitest" }],
                    },
                ],
                text: "See the Vitest docs.",
                cite: ["https://vitest.dev/"],
            }),
            { text: "Done." }
        );
        const webSearch = { maxUses: 4, allowedDomains: ["vitest.dev"] };
        const done = doneOf(await collect(provider, request({ webSearch })));
        expect(body(0)["tools"]).toEqual([
            { type: "web_search", filters: { allowed_domains: ["vitest.dev"] } },
        ]);
        expect(body(0)["max_tool_calls"]).toBe(4);
        expect(body(0)["include"]).toContain("web_search_call.action.sources");
        expect(done.message.content).toMatchObject([
            {
                type: "web_search",
                api: "openai-responses",
                query: "vitest docs",
                sources: [{ url: "https://vitest.dev/" }],
            },
            {
                type: "text",
                text: "See the Vitest docs.",
                citations: [{ url: "https://vitest.dev/", title: "Vitest" }],
            },
        ]);
        expect(done.usage.webSearchRequests).toBe(1);

        doneOf(
            await collect(
                provider,
                request({
                    webSearch,
                    messages: [
                        { role: "user", content: "Hi" },
                        done.message,
                        { role: "user", content: "?" },
                    ],
                })
            )
        );
        const input = body(1)["input"] as Json[];
        expect(input.map((i) => i.type ?? i.role)).toEqual([
            "user",
            "web_search_call",
            "message",
            "user",
        ]);
    });

    it("is refused by the fake when a blocked-domain filter is sent (the API has none)", async () => {
        const c = await collect(
            provider,
            request({ webSearch: { maxUses: 5, blockedDomains: ["evil.example"] } })
        );
        expect(errorOf(c).error).toMatchObject({ kind: "bad_request", status: 400 });
    });
});

describe("web search on another provider", () => {
    it("reaches Chat Completions as text", async () => {
        const server = await startFakeLlmServer();
        try {
            const provider = createOpenAIChatProvider({
                api: "openai-chat",
                baseUrl: server.openaiBaseUrl,
                apiKey: "sk-test",
            });
            server.enqueue({ text: "Ok." });
            const searched: AssistantMessage = {
                role: "assistant",
                content: [
                    {
                        type: "web_search",
                        api: "anthropic",
                        id: "srvtoolu_1",
                        query: "q",
                        sources: [{ url: "https://a.example/x", title: "A" }],
                        wire: [],
                    },
                    { type: "text", text: "Found it." },
                ],
            };
            doneOf(
                await collect(
                    provider,
                    request({
                        messages: [
                            { role: "user", content: "Hi" },
                            searched,
                            { role: "user", content: "?" },
                        ],
                    })
                )
            );
            const messages = (server.requests[0]?.body as { messages: Json[] }).messages;
            expect(messages[2]).toMatchObject({
                role: "assistant",
                content:
                    '[Searched the web for "q"; results:\n- A: https://a.example/x]\n\nFound it.',
            });
        } finally {
            await server.close();
        }
    });

    it("lists sources as numbered lines", () => {
        expect(
            sourcesText([{ url: "https://a.example", title: "A" }, { url: "https://b.example" }])
        ).toBe("Sources:\n 1. A — https://a.example\n 2. https://b.example\n");
    });
});
