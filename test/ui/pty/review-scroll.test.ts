/**
 * The whole change can be read before it is approved: a write review scrolls
 * its diff (↑↓, PgUp/PgDn, Home/End) with line numbers, opens full screen
 * with f, and the answer keys still work; a command review says where the
 * command will run. Needs `npm run build` first.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    answerReview,
    isAppReady,
    type NorthPtySession,
    REVIEW_READY,
    startNorthSession,
} from "../../kit/pty";

const TIMEOUT = 45_000;
const PAGE_DOWN = "\x1b[6~";
const PAGE_UP = "\x1b[5~";
const DOWN = "\x1b[B";
const END = "\x1b[F";
const HOME = "\x1b[H";

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

/** A 60-line file whose lines name themselves. */
const SIXTY = Array.from({ length: 60 }, (_, i) => `const line${i + 1} = ${i + 1};`).join("\n");

const createSixty = {
    toolCalls: [{ name: "edit_create_file", input: { path: "sixty.ts", content: `${SIXTY}\n` } }],
};

/** The review's position line: first and last row shown ("rows 9–17 of 62"). */
function position(screen: string): { first: number; last: number } | null {
    const match = /rows (\d+)–(\d+) of 62/.exec(screen);
    return match ? { first: Number(match[1]), last: Number(match[2]) } : null;
}

/** The numbered diff rows on screen ("12 +const line12 = 12;" → 12). */
function linesOnScreen(screen: string): number[] {
    const found = new Set<number>();
    for (const match of screen.matchAll(/(\d+) \+const line(\d+) = \d+;/g)) {
        expect(match[1]).toBe(match[2]); // the number shown is the file's line
        found.add(Number(match[2]));
    }
    return [...found];
}

describe("reading a whole change in the write review (80×24)", () => {
    it(
        "scrolls a 60-line new file page by page until every line was seen, then accepts",
        async () => {
            session = await startNorthSession({ cols: 80, rows: 24 });
            const { north, server, submit, repo } = session;
            server.enqueue(createSixty, { text: "Created it." });
            await submit("create sixty.ts");
            await north.waitForText(REVIEW_READY);
            const seen = new Set(linesOnScreen(north.screenText()));

            expect(seen.has(1)).toBe(true);
            expect(seen.has(60)).toBe(false);
            expect(north.screenText()).toMatch(/rows 1–\d+ of 62/);

            // ↓ moves the review's menu, not the diff.
            north.type(DOWN);
            await north.waitForText("❯ 2. Yes, and accept all edits");
            expect(north.screenText()).toMatch(/rows 1–\d+ of 62/);
            // PageDown to the end: every line passes by, numbered as in the file.
            for (let page = 0; page < 30 && !seen.has(60); page++) {
                const before = position(north.screenText())!;
                north.type(PAGE_DOWN);
                let screen = "";
                await north.waitFor(
                    () => {
                        screen = north.screenText();
                        const now = position(screen);
                        // The whole window drawn: its first and last numbered rows are on screen.
                        return (
                            now !== null &&
                            now.first > before.first &&
                            linesOnScreen(screen).length >= now.last - now.first - 1
                        );
                    },
                    5_000,
                    "the next page"
                );
                for (const n of linesOnScreen(screen)) seen.add(n);
            }
            expect([...seen].sort((a, b) => a - b)).toEqual(
                Array.from({ length: 60 }, (_, i) => i + 1)
            );
            expect(north.screenText()).toMatch(/rows \d+–62 of 62/);
            // PageUp goes back, Home to the top, End to the bottom.
            north.type(PAGE_UP);
            await north.waitFor(() => !/–62 of 62/.test(north.screenText()), 5_000, "PageUp");
            north.type(HOME);
            await north.waitForText(/rows 1–\d+ of 62/);
            north.type(END);
            await north.waitForText(/rows \d+–62 of 62/);

            expect(existsSync(join(repo, "sixty.ts"))).toBe(false);
            north.type("1");
            await north.waitForText("Created it.");
            expect(readFileSync(join(repo, "sixty.ts"), "utf8")).toBe(`${SIXTY}\n`);
        },
        TIMEOUT
    );

    it(
        "opens the diff full screen with f and back to the review under the transcript; the menu still refuses",
        async () => {
            session = await startNorthSession({ cols: 80, rows: 24 });
            const { north, server, submit, repo } = session;
            server.enqueue(createSixty, { text: "Left it." });
            await submit("create sixty.ts");
            await north.waitForText(REVIEW_READY);
            const inReview = linesOnScreen(north.screenText()).length;
            expect(north.screenText()).toContain("❯ create sixty.ts"); // the transcript is above

            north.type("f");
            await north.waitForText("f back (or Esc)");
            // The diff takes the screen: more lines, no transcript, no composer.
            await north.waitFor(
                () => {
                    const screen = north.screenText();
                    return (
                        linesOnScreen(screen).length > inReview + 5 &&
                        !screen.includes("agent ──") &&
                        isAppReady(north)
                    );
                },
                5_000,
                "the full-screen view above the status line"
            );
            const full = north.screenText();
            expect(full).not.toContain("❯ create sixty.ts");
            expect(full).toContain("3. No, and tell North what to do instead");
            north.type(END);
            await north.waitFor(
                () => linesOnScreen(north.screenText()).includes(60),
                5_000,
                "line 60 at the end"
            );
            expect(north.screenText()).toMatch(/–62 of 62/);

            north.type("f");
            await north.waitForText("f full screen");
            await north.waitForText("❯ create sixty.ts");
            // r once rejected here; now it is nothing, and the refusal is the menu's.
            north.type("r");
            await answerReview(north, { refuse: "" });
            await north.waitForText("Left it.");
            expect(existsSync(join(repo, "sixty.ts"))).toBe(false);
            expect(north.screenText()).toContain("Rejected");
        },
        TIMEOUT
    );

    it(
        "shows numbers of the old and the new file around an edit in the middle of a file",
        async () => {
            const lines = Array.from({ length: 30 }, (_, i) => `row ${i + 1}`);
            session = await startNorthSession({
                cols: 80,
                rows: 24,
                files: { "rows.txt": `${lines.join("\n")}\n` },
            });
            const { north, server, submit } = session;
            server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "edit_replace_exact",
                            input: {
                                path: "rows.txt",
                                old_text: "row 20\n",
                                new_text: "row 20a\nrow 20b\n",
                            },
                        },
                    ],
                },
                { text: "Done." }
            );
            await submit("split row 20");
            await north.waitForText(REVIEW_READY);
            const screen = north.screenText();
            expect(screen).toContain("19 19  row 19");
            expect(screen).toMatch(/20\s+-row 20\b/);
            // The rest of the hunk is below the menu's rows at this size: End shows it.
            north.type(END);
            await north.waitForText("21 22  row 21");
            const end = north.screenText();
            expect(end).toMatch(/\s20 \+row 20a/);
            expect(end).toMatch(/\s21 \+row 20b/);
            await answerReview(north, { option: 1 });
            await north.waitForText("Done.");
        },
        TIMEOUT
    );
});

describe("the command review", () => {
    it(
        "says where the command will run, following a cd of the previous command",
        async () => {
            session = await startNorthSession({ cols: 100, rows: 30 });
            const { north, server, submit, repo } = session;
            mkdirSync(join(repo, "pkg"));
            const root = realpathSync(repo);
            server.enqueue(
                { toolCalls: [{ name: "shell_run", input: { command: "cd pkg" } }] },
                { toolCalls: [{ name: "shell_run", input: { command: "pwd" } }] },
                { text: "Both ran." }
            );
            await submit("go to pkg");
            await north.waitForText("Run this command?");

            expect(north.screenText()).toContain(`in ${root}`);
            expect(north.screenText()).not.toContain(`in ${join(root, "pkg")}`);
            await answerReview(north, { option: 1 });
            await north.waitForText("$ pwd");
            expect(north.screenText()).toContain(`in ${join(root, "pkg")}`);
            await answerReview(north, { option: 1 });
            await north.waitForText("Both ran.");
        },
        TIMEOUT
    );
});
