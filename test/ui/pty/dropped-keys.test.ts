/**
 * No dropped keys: a key pressed the moment a review draws goes to the draft
 * (it was typed before the review could be read: issue 31), and
 * keys arriving together in one write are each handled, in order, by the
 * picker and the composer. Needs `npm run build` first.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { answerReview, type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 40_000;

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

/** The aliases the open picker lists, top to bottom. */
function pickerOptions(session: NorthPtySession): string[] {
    const rows = session.north.screenText().split("\n");
    const from = rows.findIndex((row) => row.includes("Choose a model"));
    const options: string[] = [];
    for (const row of rows.slice(from + 1)) {
        if (row.includes("↑/↓ move")) break;
        const match = /│ (?:› | {2})([\w.:-]+)/.exec(row);
        if (match?.[1]) options.push(match[1]);
    }
    return options;
}

describe("no dropped keys", () => {
    it(
        "a key pressed the moment a command review draws lands in the draft, five times in five",
        async () => {
            session = await startNorthSession();
            const { north, server, submit, repo } = session;
            for (let i = 1; i <= 5; i++) {
                server.enqueue(
                    {
                        toolCalls: [
                            { name: "shell_run", input: { command: `touch ran-${i}.txt` } },
                        ],
                    },
                    { text: `Left ${i} alone.` }
                );
                await submit(`create ran-${i}.txt`);
                // The key leaves in the moment the review's frame is drawn.
                await north.typeWhen("Run this command?", "k");
                await north.waitForText("keys went to your draft");
                await north.waitForText(/❯ k\s*$/m);
                await answerReview(north, { refuse: "" });
                await north.waitForText(`Left ${i} alone.`);
                // The draft kept the key; Ctrl+C clears it for the next prompt.
                north.type("\x03");
                await north.waitFor(
                    () => !/❯ k\s*$/m.test(north.screenText()),
                    5_000,
                    "a clear draft"
                );
                expect(existsSync(join(repo, `ran-${i}.txt`))).toBe(false);
            }
            expect(JSON.stringify(server.requests.at(-1)?.body)).toContain("denied");
        },
        TIMEOUT
    );

    it(
        "Down Down Enter in one write selects the third model of the /model picker",
        async () => {
            session = await startNorthSession();
            const { north, submit, env } = session;
            await submit("/model");
            await north.waitForText("↑/↓ move");
            const options = pickerOptions(session);
            expect(options.length).toBeGreaterThan(3);
            north.type("\x1b[B\x1b[B\r");
            await north.waitForText("Switched to");
            const config = JSON.parse(
                readFileSync(join(env.NORTH_CONFIG_DIR!, "config.json"), "utf8")
            ) as { selectedModel?: string };
            expect(config.selectedModel).toBe(options[2]);
        },
        TIMEOUT
    );

    it(
        "Up Up Down Enter in one write: each key sees where the one before moved",
        async () => {
            session = await startNorthSession();
            const { north, submit, env } = session;
            await submit("/model");
            await north.waitForText("↑/↓ move");
            const options = pickerOptions(session);
            north.type("\x1b[B\x1b[B\x1b[B");
            await north.waitForText(`› ${options[3]}`);
            north.type("\x1b[A\x1b[A\x1b[B\r");
            await north.waitForText("Switched to");
            const config = JSON.parse(
                readFileSync(join(env.NORTH_CONFIG_DIR!, "config.json"), "utf8")
            ) as { selectedModel?: string };
            expect(config.selectedModel).toBe(options[2]);
        },
        TIMEOUT
    );

    it(
        "Ctrl+C and the text after it in one write: the composer is cleared, then holds the new text",
        async () => {
            session = await startNorthSession();
            const { north } = session;
            north.type("an old draft");
            await north.waitForText("❯ an old draft");
            north.type("\x03a fresh start");
            await north.waitForText("❯ a fresh start");
            expect(north.screenText()).not.toContain("an old draft");
            expect(north.hasExited()).toBe(false);
        },
        TIMEOUT
    );
});
