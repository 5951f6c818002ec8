/** Server-side web search blocks as the data front-ends receive (no UI here). */
import type { AssistantMessage, WebSearchBlock } from "../providers/types";
import type { CitedSource, EngineEvent } from "./events";

/** The event for a finished search: what was searched and found, without the provider's wire. */
export function searchEventOf(
    search: WebSearchBlock
): Extract<EngineEvent, { type: "web_search" }> {
    return {
        type: "web_search",
        search: {
            id: search.id,
            query: search.query,
            sources: search.sources.map((s) =>
                s.title ? { url: s.url, title: s.title } : { url: s.url }
            ),
            ...(search.error ? { error: search.error } : {}),
        },
    };
}

/** The sources a message's text cites, each URL once, in the order first cited. */
export function citationsOf(message: AssistantMessage): CitedSource[] {
    const seen = new Map<string, CitedSource>();
    for (const block of message.content) {
        if (block.type !== "text") continue;
        for (const citation of block.citations ?? []) {
            if (seen.has(citation.url)) continue;
            seen.set(
                citation.url,
                citation.title
                    ? { url: citation.url, title: citation.title }
                    : { url: citation.url }
            );
        }
    }
    return [...seen.values()];
}
