/**
 * The provider's web search in the chat: the search line with its result
 * count, and the answer's sources listed under it. Needs `npm run build` first.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startFakeLlmServer } from "../../kit/fake-llm-server";
import { type NorthPtySession, startNorthSession } from "../../kit/pty";
import { FakeWebSearch } from "../../kit/web-search-wire";

const TIMEOUT = 40_000;

let session: NorthPtySession | undefined;
let closeServer: (() => Promise<void>) | undefined;
afterEach(async () => {
    await session?.dispose();
    await closeServer?.();
    session = undefined;
    closeServer = undefined;
});

describe("web search in the chat", () => {
    it(
        "shows the search with its result count and the cited sources under the answer",
        async () => {
            const search = new FakeWebSearch();
            const server = await startFakeLlmServer({ checks: [search.check] });
            closeServer = () => server.close();
            session = await startNorthSession({ server, args: ["--web-search"] });
            const { north, submit } = session;
            server.enqueue(
                search.turn({
                    searches: [
                        {
                            query: "vitest 4 release notes",
                            results: [
                                { url: "https://vitest.dev/blog/vitest-4", title: "Vitest 4" },
                                { url: "https://github.com/vitest-dev/vitest", title: "GitHub" },
                            ],
                        },
                    ],
                    text: "Vitest 4 made browser mode stable.",
                    cite: ["https://vitest.dev/blog/vitest-4"],
                })
            );
            await submit("what changed in vitest 4?");
            await north.waitForText("Searched the web: vitest 4 release notes (2 results)");
            await north.waitForText("1. Vitest 4 — https://vitest.dev/blog/vitest-4");
            const screen = north.screenText();
            expect(screen).toContain("Vitest 4 made browser mode stable.");
            expect(screen).toContain("Sources:");
            // The search line comes before the answer, the sources after it.
            expect(screen.indexOf("Searched the web:")).toBeLessThan(
                screen.indexOf("Vitest 4 made browser mode stable.")
            );
            expect(screen.indexOf("Vitest 4 made browser mode stable.")).toBeLessThan(
                screen.indexOf("Sources:")
            );
            expect(session.lastRequest()).toContain('"type":"web_search_20250305"');
            // One search at $10 per 1,000 on top of a few tokens: the status line's session cost.
            await north.waitForText("$0.010");
        },
        TIMEOUT
    );
});
