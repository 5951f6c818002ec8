import { describe, expect, it } from "vitest";
import { WebSearchPolicy, decideWebSearch } from "../../src/agent/web-search-policy";
import type { ModelInfo } from "../../src/providers/catalogue";
import { GeminiStreamState, buildGeminiRequest } from "../../src/providers/gemini-wire";
import type { AssistantMessage, StreamEvent, WebSearchBlock } from "../../src/providers/types";
import { PermissionRules } from "../../src/tools/permissions/rules";
import { request } from "./helpers";

// Gemini's Google Search grounding: the request's tool, the grounding metadata read into a
// search and citations, and what goes back, on the wire's own request builder and stream state
// (test/cli/web-search-gemini-print.test.ts runs it end to end against the fake Gemini API).

describe("Google Search grounding on the Gemini wire", () => {
    it("adds the googleSearch tool next to the function declarations", () => {
        const body = buildGeminiRequest(
            request({
                webSearch: { maxUses: 5 },
                tools: [
                    { name: "read_file", description: "Read", inputSchema: { type: "object" } },
                ],
            })
        );
        expect(body.tools).toEqual([
            {
                functionDeclarations: [
                    {
                        name: "read_file",
                        description: "Read",
                        parametersJsonSchema: { type: "object" },
                    },
                ],
            },
            { googleSearch: {} },
        ]);
        expect(buildGeminiRequest(request()).tools).toBeUndefined();
    });

    it("reads the grounding metadata as one search before the answer, with its citations and count", () => {
        const state = new GeminiStreamState("Gemini API");
        const out: StreamEvent[] = [];
        state.handle(
            { candidates: [{ content: { role: "model", parts: [{ text: "Node 24 " }] } }] },
            out
        );
        state.handle(
            {
                candidates: [
                    {
                        content: { role: "model", parts: [{ text: "is the LTS." }] },
                        finishReason: "STOP",
                        groundingMetadata: {
                            webSearchQueries: ["node lts", "node release schedule"],
                            groundingChunks: [
                                { web: { uri: "https://nodejs.org/", title: "nodejs.org" } },
                                {
                                    web: {
                                        uri: "https://github.com/nodejs/release",
                                        title: "github.com",
                                    },
                                },
                            ],
                            groundingSupports: [
                                { groundingChunkIndices: [1] },
                                { groundingChunkIndices: [0, 1] },
                            ],
                        },
                    },
                ],
                usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5 },
            },
            out
        );
        const [search, text] = state.blocks as [
            WebSearchBlock,
            AssistantMessage["content"][number],
        ];
        expect(search).toMatchObject({
            type: "web_search",
            api: "gemini",
            query: "node lts; node release schedule",
            sources: [
                { url: "https://nodejs.org/", title: "nodejs.org" },
                { url: "https://github.com/nodejs/release", title: "github.com" },
            ],
        });
        expect(text).toMatchObject({
            type: "text",
            text: "Node 24 is the LTS.",
            citations: [
                { url: "https://nodejs.org/" },
                { url: "https://github.com/nodejs/release" },
            ],
        });
        expect(out.filter((e) => e.type === "web_search")).toHaveLength(1);
        // Gemini 3 bills each query.
        expect(state.usage.webSearchRequests).toBe(2);
        expect(state.stopReason()).toBe("end_turn");
    });

    it("sends its own grounding back as nothing but the text, another API's search as text", () => {
        const search = (api: "gemini" | "anthropic"): WebSearchBlock => ({
            type: "web_search",
            api,
            id: "s1",
            query: "q",
            sources: [{ url: "https://a.example/" }],
            wire: [],
        });
        for (const api of ["gemini", "anthropic"] as const) {
            const body = buildGeminiRequest(
                request({
                    messages: [
                        { role: "user", content: "Hi" },
                        {
                            role: "assistant",
                            content: [search(api), { type: "text", text: "Found." }],
                        },
                        { role: "user", content: "?" },
                    ],
                })
            );
            const parts = body.contents[1]!.parts.map((p) => p.text);
            expect(parts).toEqual(
                api === "gemini"
                    ? ["Found."]
                    : ['[Searched the web for "q"; results:\n- https://a.example/]', "Found."]
            );
        }
    });
});

describe("Gemini's web search and the rules", () => {
    const rules = new PermissionRules({ projectRoot: "/r", home: "/h" }, new Set(["web_fetch"]));
    rules.add("deny", "WebFetch(domain:evil.example)", "test");

    it("is not offered when a domain rule would need a filter Google Search does not take", () => {
        expect(decideWebSearch("gemini", { enabled: true }, rules)).toMatchObject({
            kind: "not_offered",
        });
        expect(
            decideWebSearch("gemini", { enabled: true, onlyAllowedDomains: true }, undefined)
        ).toMatchObject({ kind: "not_offered" });
    });

    it("is offered without rules, saying once that maxUses cannot apply", () => {
        const policy = new WebSearchPolicy({ enabled: true }, undefined, () => "gemini");
        const model = { id: "gemini-3-flash", provider: "gemini" } as ModelInfo;
        const first = policy.forRequest(model);
        expect(first.params).toEqual({ maxUses: 5 });
        expect(first.notice).toMatch(/cannot be limited per answer/);
        expect(policy.forRequest(model)).toEqual({ params: { maxUses: 5 } });
    });
});
