import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";
import { FakeWebSearch } from "../kit/web-search-wire";

// `north -p` with the provider's web search, end to end through bin/north.js and the fake APIs.

let server: FakeLlmServer;
let search: FakeWebSearch;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
    search = new FakeWebSearch();
    server = await startFakeLlmServer({ checks: [search.check] });
    repo = mkdtempSync(join(tmpdir(), "north-repo-"));
    const isolated = isolatedHome();
    home = isolated.home;
    env = {
        ...isolated.env,
        ANTHROPIC_API_KEY: "test-key-123",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: server.openaiBaseUrl,
    };
});
afterEach(async () => {
    expect(server.remaining()).toBe(0);
    await server.close();
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

function userConfig(config: unknown): void {
    mkdirSync(join(home, "config"), { recursive: true });
    writeFileSync(join(home, "config", "config.json"), JSON.stringify(config));
}

const lines = (text: string) =>
    text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("north -p with the provider's web search", () => {
    it("offers it with the user's WebFetch rules and streams searches, citations and their cost", async () => {
        userConfig({
            webSearch: { enabled: true, maxUses: 2 },
            permissions: { deny: ["WebFetch(domain:evil.example)"] },
        });
        server.enqueue(
            search.turn({
                searches: [
                    {
                        query: "latest node lts",
                        results: [
                            { url: "https://nodejs.org/en/about/releases", title: "Releases" },
                        ],
                    },
                ],
                text: "Node 24 is the active LTS.",
                cite: ["https://nodejs.org/en/about/releases"],
            })
        );
        const run = await runNorth(
            ["-p", "which node is lts?", "--path", repo, "--output-format", "stream-json"],
            { env }
        );
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        const tools = (server.requests[0]!.body as { tools: Array<Record<string, unknown>> }).tools;
        expect(tools.filter((t) => t.name === "web_search")).toEqual([
            {
                type: "web_search_20250305",
                name: "web_search",
                max_uses: 2,
                blocked_domains: ["evil.example"],
            },
        ]);
        const out = lines(run.stdout);
        expect(out.find((l) => l.type === "web_search")).toMatchObject({
            query: "latest node lts",
            sources: [{ url: "https://nodejs.org/en/about/releases", title: "Releases" }],
        });
        expect(out.find((l) => l.type === "citations")).toEqual({
            type: "citations",
            citations: [{ url: "https://nodejs.org/en/about/releases", title: "Releases" }],
        });
        const result = out.at(-1)!;
        expect(result).toMatchObject({
            type: "result",
            result: "Node 24 is the active LTS.",
            usage: { web_search_requests: 1 },
        });
        // Tokens at the model's price plus one search at $10 per 1,000.
        expect(result.total_cost_usd as number).toBeGreaterThan(0.01);
    });

    it("goes on with a turn the provider paused, sending it back as it is", async () => {
        server.enqueue(
            search.turn({
                searches: [
                    { query: "first", results: [{ url: "https://a.example/", title: "A" }] },
                ],
                text: "Searching more.",
                paused: true,
            }),
            search.turn({
                searches: [
                    { query: "second", results: [{ url: "https://b.example/", title: "B" }] },
                ],
                text: "Both agree.",
                cite: ["https://b.example/"],
            })
        );
        const run = await runNorth(["-p", "compare", "--path", repo, "--web-search"], { env });
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("Searching more.\n\nBoth agree.\n");
        const second = server.requests[1]!.body as {
            messages: Array<{ role: string; content: Array<{ type: string }> }>;
        };
        // The paused answer is the last message, its search blocks as the API sent them.
        const last = second.messages.at(-1)!;
        expect(last.role).toBe("assistant");
        expect(last.content.map((b) => b.type)).toEqual([
            "server_tool_use",
            "web_search_tool_result",
            "text",
        ]);
    });

    it("is not turned on by an untrusted project's settings", async () => {
        mkdirSync(join(repo, ".north"));
        writeFileSync(
            join(repo, ".north", "settings.json"),
            JSON.stringify({ webSearch: { enabled: true } })
        );
        server.enqueue({ text: "No search." });
        const run = await runNorth(["-p", "hi", "--path", repo], { env });
        expect(run.code).toBe(0);
        const body = server.requests[0]!.body as { tools?: Array<{ name?: string }> };
        expect((body.tools ?? []).some((t) => t.name === "web_search")).toBe(false);

        // Trusted (`--trust`), the same file turns it on.
        server.enqueue({ text: "Searching allowed." });
        const trusted = await runNorth(["-p", "hi", "--path", repo, "--trust"], { env });
        expect(trusted.code).toBe(0);
        const second = server.requests[1]!.body as { tools?: Array<{ name?: string }> };
        expect((second.tools ?? []).some((t) => t.name === "web_search")).toBe(true);
    });

    it("says once why it is not offered where a deny rule cannot be expressed (OpenAI)", async () => {
        userConfig({ permissions: { deny: ["WebFetch(domain:evil.example)"] } });
        server.enqueue({ text: "Answer without searching." });
        const run = await runNorth(
            ["-p", "hi", "--path", repo, "--web-search", "--model", "openai:gpt-5"],
            { env }
        );
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("Answer without searching.\n");
        expect(run.stderr).toMatch(
            /^north: warning: Web search is not offered: the rule "WebFetch\(domain:evil\.example\)" keeps a domain out, and this provider's web search cannot block domains/
        );
        const body = server.requests[0]!.body as { tools?: Array<{ type: string }> };
        expect((body.tools ?? []).some((t) => t.type === "web_search")).toBe(false);
    });
});
