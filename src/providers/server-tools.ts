/**
 * Tools the provider runs inside its own response (server-side web search):
 * which APIs offer one, what each can filter by, what a search costs, and how
 * a search reads as text for an API that cannot take it back.
 */
import type { ProviderApi, Usage, WebSearchBlock } from "./types";

/** What one API's web search tool can be told (its domain filters). */
export interface WebSearchCapability {
    /** The tool takes a list of domains it may search only. */
    allowedDomains: boolean;
    /** The tool takes a list of domains it never searches. */
    blockedDomains: boolean;
    /** The request can cap the searches of one answer. */
    maxUses: boolean;
    /** USD per search, from the provider's published price. */
    pricePerSearchUsd: number;
    /** Where the price was read, and when. */
    priceSource: string;
}

/**
 * The APIs whose own endpoint offers a web search tool. Cloud hosts of the
 * same models (Bedrock, Vertex) have their own APIs here and are not listed:
 * their Messages API has no web search tool to offer.
 */
const WEB_SEARCH: Partial<Record<ProviderApi, WebSearchCapability>> = {
    // Anthropic `web_search_20250305`: allowed_domains or blocked_domains (never both), max_uses.
    anthropic: {
        allowedDomains: true,
        blockedDomains: true,
        maxUses: true,
        pricePerSearchUsd: 10 / 1000,
        priceSource:
            "https://docs.anthropic.com/en/docs/about-claude/pricing (web search: $10 per 1,000 searches; read 2026-11-28)",
    },
    // OpenAI `web_search`: filters.allowed_domains only, no blocked list; the limit is `max_tool_calls`.
    "openai-responses": {
        allowedDomains: true,
        blockedDomains: false,
        maxUses: true,
        pricePerSearchUsd: 10 / 1000,
        priceSource:
            "https://platform.openai.com/docs/pricing (built-in tools, web search: $10 per 1,000 calls; read 2026-11-28)",
    },
    // Gemini's Google Search grounding: no domain filters and no per-answer limit.
    gemini: {
        allowedDomains: false,
        blockedDomains: false,
        maxUses: false,
        // Gemini 3 bills each search query; 2.5 billed each grounded prompt ($35 per 1,000).
        pricePerSearchUsd: 14 / 1000,
        priceSource:
            "https://ai.google.dev/gemini-api/docs/pricing (grounding with Google Search, Gemini 3: $14 per 1,000 search queries; read 2026-11-28)",
    },
};

/** The web search tool `api` offers, or undefined when it has none. */
export function webSearchCapability(api: ProviderApi): WebSearchCapability | undefined {
    return WEB_SEARCH[api];
}

/** The searches' cost in USD for a response of `api` (0 with none). */
export function webSearchCostUsd(api: ProviderApi, usage: Usage): number {
    const searches = usage.webSearchRequests ?? 0;
    if (searches === 0) return 0;
    return searches * (WEB_SEARCH[api]?.pricePerSearchUsd ?? 0);
}

/**
 * A search as plain text, for an API that cannot take the provider's blocks
 * (the conversation moved to another provider): the model still knows what
 * was searched and found, though not the pages' text.
 */
export function webSearchAsText(search: WebSearchBlock): string {
    const head = `[Searched the web for "${search.query}"`;
    if (search.error) return `${head}: failed (${search.error})]`;
    if (search.sources.length === 0) return `${head}: no results]`;
    const lines = search.sources.map((s) => `- ${s.title ? `${s.title}: ` : ""}${s.url}`);
    return `${head}; results:\n${lines.join("\n")}]`;
}

/** A short line for the chat and print mode: "Searched the web: query (5 results)". */
export function webSearchSummary(
    search: Pick<WebSearchBlock, "query" | "sources" | "error">
): string {
    const what = `Searched the web: ${search.query || "(no query)"}`;
    if (search.error) return `${what} (failed: ${search.error})`;
    const n = search.sources.length;
    return `${what} (${n} result${n === 1 ? "" : "s"})`;
}

/** The sources an answer cites, one numbered line each: "Sources:\n 1. Title — url\n". */
export function sourcesText(citations: ReadonlyArray<{ url: string; title?: string }>): string {
    const lines = citations.map(
        (c, i) => `${String(i + 1).padStart(2)}. ${c.title ? `${c.title} — ` : ""}${c.url}`
    );
    return `Sources:\n${lines.join("\n")}\n`;
}
