/**
 * The composer for daily use, end to end in a real terminal (issue 18, part
 * 7): word wrapping with Up over the wrapped rows, a large paste shown as a
 * chip and sent whole, undo and redo, Ctrl+R over multi-line prompts from the
 * shared history store. Needs `npm run build` first.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type NorthPtySession, type PtyNorth, startNorthSession } from "../../kit/pty";

const TIMEOUT = 40_000;
const UP = "\x1b[A";
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

/** The composer's rows (below its rule, above the status line), without the "❯ " margin. */
function composerRows(north: PtyNorth): string[] {
    const rows = north.screenText().split("\n");
    const rule = rows.findLastIndex((row) => /─ (ask|agent|plan) ─/.test(row));
    const end = rows.findLastIndex((row) => row.trim() !== "");
    return rows.slice(rule + 1, end).map((row) => row.slice(3).trimEnd());
}

async function composerShows(north: PtyNorth, rows: string[], what: string): Promise<void> {
    await north.waitFor(
        () => JSON.stringify(composerRows(north).slice(0, rows.length)) === JSON.stringify(rows),
        10_000,
        what
    );
}

/** Greedy word wrap of space-separated words in `width` columns. */
function wrapWords(text: string, width: number): string[] {
    const rows: string[] = [];
    let row = "";
    for (const word of text.split(" ")) {
        if (row !== "" && row.length + 1 + word.length > width) {
            rows.push(row);
            row = word;
        } else row = row === "" ? word : `${row} ${word}`;
    }
    rows.push(row);
    return rows;
}

describe("the composer in a terminal", () => {
    it(
        "wraps long lines at word boundaries and moves Up over the wrapped rows",
        async () => {
            session = await startNorthSession();
            const { north } = session;
            const text =
                "please refactor the retry logic so that every transient failure is retried with exponential backoff and jitter, then update the documentation accordingly";
            north.type(text);
            // 100 columns: the composer wraps at 95.
            const rows = wrapWords(text, 95);
            expect(rows.length).toBe(2);
            await composerShows(north, rows, "the text wrapped at a word boundary");
            // Up from the end of the second row lands in the first at the same column.
            north.type(`${UP}#`);
            const column = rows[1]!.length;
            const first = `${rows[0]!.slice(0, column)}#${rows[0]!.slice(column)}`;
            await composerShows(north, wrapWords(`${first} ${rows[1]}`, 95), "# typed in row one");
        },
        TIMEOUT
    );

    it(
        "shows a large paste as a chip, sends it whole, and Ctrl+R finds the multi-line prompt",
        async () => {
            session = await startNorthSession();
            const { north, server, env } = session;
            const pasted = Array.from({ length: 15 }, (_, i) => `log line ${i}`).join("\n");
            north.type(`look at this ${PASTE_START}${pasted}${PASTE_END}`);
            await north.waitForText("❯ look at this [Pasted 15 lines]");
            expect(north.screenText()).not.toContain("log line 3");
            // Ctrl+T (its own key) opens it, Ctrl+_ closes it again.
            north.type("\x14");
            await north.waitForText("log line 14");
            north.type("\x1f");
            await north.waitForText("❯ look at this [Pasted 15 lines]");

            server.enqueue({ text: "Seen the log." }, { text: "Seen it again." });
            north.type("\r");
            await north.waitForText("Seen the log.");
            expect(JSON.stringify(server.requests.at(-1)?.body)).toContain(
                JSON.stringify(`look at this ${pasted}`).slice(1, -1)
            );
            // The history store keeps the whole text.
            const dir = join(env.NORTH_DATA_DIR!, "history");
            const [file] = readdirSync(dir);
            expect(readFileSync(join(dir, file!), "utf8")).toContain(
                JSON.stringify(`look at this ${pasted}`)
            );

            north.type("\x12");
            north.type("line 12");
            await north.waitForText("(reverse-i-search)`line 12'");
            expect(composerRows(north).join("\n")).toContain("log line 12");
            north.type("\r");
            await north.waitFor(
                () => !north.screenText().includes("reverse-i-search"),
                10_000,
                "the match in the composer"
            );
            north.type("\r");
            await north.waitForText("Seen it again.");
            expect(JSON.stringify(server.requests.at(-1)?.body)).toContain(
                JSON.stringify(`look at this ${pasted}`).slice(1, -1)
            );
        },
        TIMEOUT
    );

    it(
        "undoes a step at a time with Ctrl+_ and Ctrl+Z, and redoes with Ctrl+Y",
        async () => {
            session = await startNorthSession();
            const { north } = session;
            north.type("hello big");
            await composerShows(north, ["hello big"], "the first words");
            north.type(" world");
            await composerShows(north, ["hello big world"], "the last word");
            north.type("\x1f");
            await composerShows(north, ["hello big"], "the last word undone");
            north.type("\x1a");
            await north.waitFor(
                () => /Enter to send/.test(north.screenText()),
                10_000,
                "the composer empty"
            );
            north.type("\x19");
            await composerShows(north, ["hello big"], "redone");
        },
        TIMEOUT
    );
});
