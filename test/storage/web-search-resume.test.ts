import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AssistantMessage, Message } from "../../src/providers/types";
import { createConversationStore } from "../../src/storage/conversations";
import { historyActions } from "../../src/ui/transcript/history";

// A conversation with a provider's web search survives the log: resumed, its blocks go back to
// the provider as they came, and the chat draws the search and the sources again.

const dirs: string[] = [];
afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const searched: AssistantMessage = {
    role: "assistant",
    content: [
        {
            type: "web_search",
            api: "anthropic",
            id: "srvtoolu_1",
            query: "node lts",
            sources: [{ url: "https://nodejs.org/", title: "Node.js", pageAge: "1 day ago" }],
            wire: [
                {
                    type: "server_tool_use",
                    id: "srvtoolu_1",
                    name: "web_search",
                    input: { query: "node lts" },
                },
                {
                    type: "web_search_tool_result",
                    tool_use_id: "srvtoolu_1",
                    content: [
                        {
                            type: "web_search_result",
                            url: "https://nodejs.org/",
                            title: "Node.js",
                            encrypted_content: "ENC/1+=",
                            page_age: "1 day ago",
                        },
                    ],
                },
            ],
        },
        {
            type: "text",
            text: "Node 24.",
            citations: [
                {
                    url: "https://nodejs.org/",
                    title: "Node.js",
                    api: "anthropic",
                    wire: {
                        type: "web_search_result_location",
                        url: "https://nodejs.org/",
                        title: "Node.js",
                        cited_text: "Node 24 is LTS.",
                        encrypted_index: "IDX==",
                    },
                },
            ],
        },
    ],
};

describe("web search in a saved conversation", () => {
    it("keeps the search blocks and citations byte for byte, and redraws them on resume", () => {
        const dir = join(mkdtempSync(join(tmpdir(), "north-conv-")), "conversations");
        dirs.push(dir);
        const store = createConversationStore(dir);
        const log = store.start({ repoRoot: "/repo", model: "sonnet" });
        log.append({
            type: "entry_added",
            entry: { id: "u1", role: "user", content: "which lts?" },
        });
        log.append({ type: "entry_added", entry: { id: "a1", ...searched } });
        log.close();

        const loaded = store.load(log.id);
        if (!loaded.ok) throw new Error(loaded.error);
        const entry = loaded.conversation.entries.find((e) => e.id === "a1");
        expect(entry?.content).toEqual(searched.content);

        const messages: Message[] = [{ role: "user", content: "which lts?" }, searched];
        const events = historyActions(messages).flatMap((a) =>
            a.type === "engine" ? [a.event] : []
        );
        expect(events.find((e) => e.type === "web_search")).toEqual({
            type: "web_search",
            search: {
                id: "srvtoolu_1",
                query: "node lts",
                sources: [{ url: "https://nodejs.org/", title: "Node.js" }],
            },
        });
        expect(events.find((e) => e.type === "citations")).toEqual({
            type: "citations",
            citations: [{ url: "https://nodejs.org/", title: "Node.js" }],
        });
    });
});
