/**
 * The status line's readouts (issue 18, part 9): the context figure is what
 * the next request sends — before the first request, after /new and after
 * /summarize — the model shows by its display name, and costs read as the
 * spec formats them. Needs `npm run build` first.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type NorthPtySession, type PtyNorth, startNorthSession } from "../../kit/pty";

const TIMEOUT = 90_000;

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

function statusRow(north: PtyNorth): string {
    return (
        north
            .screenText()
            .split("\n")
            .findLast((row) => row.trim() !== "") ?? ""
    );
}

/** Tokens of the status line's context figure ("4.7K (2%)" → 4700). */
function contextTokens(north: PtyNorth): number | null {
    const match = /● ([\d.]+)(K|M)? \(\d+%\)/.exec(statusRow(north));
    if (!match) return null;
    const scale = match[2] === "K" ? 1_000 : match[2] === "M" ? 1_000_000 : 1;
    return Number(match[1]) * scale;
}

async function waitForFigure(north: PtyNorth, test: (tokens: number) => boolean, what: string) {
    await north.waitFor(
        () => {
            const tokens = contextTokens(north);
            return tokens !== null && test(tokens);
        },
        20_000,
        `${what} (status line: ${statusRow(north)})`
    );
    return contextTokens(north)!;
}

describe("status line readouts", () => {
    it(
        "shows the next request's size before any request, after /new and after /summarize; names the model; formats costs",
        async () => {
            session = await startNorthSession({ files: { "a.ts": "export const a = 1;\n" } });
            const { north, server, submit } = session;
            // Before anything is sent: the system prompt and tools, not "0 (0%)".
            const fresh = await waitForFigure(north, (t) => t > 1_000, "a figure before sending");
            expect(statusRow(north)).toContain("Claude Opus 5.5");
            expect(statusRow(north)).not.toContain("claude-opus-5-5");

            server.enqueue({ text: "first answer", usage: { input: 5_000, output: 40 } });
            await submit("question one");
            await north.waitForText("first answer");
            // opus-5-5: 5,000 in × $4 + 40 out × $20 per million = $0.0208.
            await north.waitFor(() => statusRow(north).includes("$0.021 / $0.021"), 10_000, "cost");
            server.enqueue({ text: "second answer", usage: { input: 6_000, output: 40 } });
            await submit("question two");
            await north.waitForText("second answer");
            await waitForFigure(north, (t) => t === 6_000, "the provider's count");

            // /summarize: the figure keeps counting the system prompt and tools (it was "93 (0%)").
            server.enqueue({
                text: JSON.stringify({
                    goal: "answer questions",
                    decisions: [],
                    constraints: [],
                    openTasks: [],
                    importantFiles: [],
                }),
            });
            await submit("/summarize --keep-last 1");
            await north.waitForText("summarised");
            const summarised = await waitForFigure(north, (t) => t !== 6_000, "a new figure");
            expect(summarised).toBeGreaterThanOrEqual(fresh);

            await submit("/new");
            await north.waitForText("The previous one: /resume");
            await north.waitFor(
                () => /\$0\.00 \/ \$0\.0\d\d/.test(statusRow(north)),
                10_000,
                "/new"
            );
            expect(await waitForFigure(north, (t) => t > 0, "a figure after /new")).toBe(fresh);
        },
        TIMEOUT
    );
});
