/**
 * Colour that carries meaning, end to end: the cells the terminal shows for
 * a highlighted code block, an edit review's changed word, a wrapped code
 * line's mark, and a 10,000-line block that leaves the chat responsive.
 * Needs `npm run build` first.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type NorthPtySession, type PtyNorth, startNorthSession } from "../../kit/pty";
import { DARK_THEME } from "../../../src/ui/theme";

const TIMEOUT = 60_000;
const TRUE_COLOUR = { COLORTERM: "truecolor" };

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

const rgb = (hex: string): number => parseInt(hex.slice(1), 16);

/** The cells of the first screen row (from the bottom) whose text includes `text`, from where it starts. */
function cellsOf(north: PtyNorth, text: string) {
    const buffer = north.term.buffer.active;
    for (let y = north.term.rows - 1; y >= 0; y--) {
        const line = buffer.getLine(buffer.viewportY + y);
        const at = line?.translateToString(false).indexOf(text) ?? -1;
        if (!line || at < 0) continue;
        return Array.from({ length: text.length }, (_, i) => line.getCell(at + i)!);
    }
    return null;
}

/** The foreground of the first cell of `text` on screen, as 0xrrggbb (-1: not RGB or not there). */
function fgOf(north: PtyNorth, text: string): number {
    const cell = cellsOf(north, text)?.[0];
    return cell?.isFgRGB() ? cell.getFgColor() : -1;
}

describe("highlighting in the chat", () => {
    it(
        "an answer's ```ts block shows keywords and strings in their own colours",
        async () => {
            session = await startNorthSession({ env: TRUE_COLOUR });
            session.server.enqueue({
                text: ["Here:", "", "```ts", 'const greeting = "hello";', "```"].join("\n"),
            });
            await session.submit("show me");
            const { north } = session;
            await north.waitForText('const greeting = "hello";');
            // The grammars load after the first frame; the block is drawn again once they are in.
            await north.waitFor(
                () => fgOf(north, "const") === rgb(DARK_THEME.syntaxKeyword),
                20_000,
                "the keyword in its colour"
            );
            expect(fgOf(north, '"hello"')).toBe(rgb(DARK_THEME.syntaxString));
        },
        TIMEOUT
    );

    it(
        "an edit review marks the changed word, not the whole line",
        async () => {
            session = await startNorthSession({
                env: TRUE_COLOUR,
                files: { "calc.ts": "export const value2 = 2;\n" },
            });
            session.server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "edit_replace_exact",
                            input: {
                                path: "calc.ts",
                                old_text: "value2 = 2",
                                new_text: "value2 = 4",
                            },
                        },
                    ],
                },
                { text: "Done." }
            );
            await session.submit("change it");
            const { north } = session;
            await north.waitForText("Yes, make this edit");
            const added = () => cellsOf(north, "+export const value2 = 4;");
            await north.waitFor(
                () => added()?.some((cell) => cell.isInverse() !== 0) ?? false,
                20_000,
                "the changed word marked"
            );
            const cells = added()!;
            const inverse = cells.filter((cell) => cell.isInverse() !== 0);
            expect(inverse.map((cell) => cell.getChars())).toEqual(["4"]);
            const removed = cellsOf(north, "-export const value2 = 2;")!;
            expect(removed.filter((c) => c.isInverse() !== 0).map((c) => c.getChars())).toEqual([
                "2",
            ]);
            // The unchanged words keep the line's +/− colour and syntax colours.
            expect(fgOf(north, "+export")).toBe(rgb(DARK_THEME.diffAdd));
        },
        TIMEOUT
    );

    it(
        "with NO_COLOR the changed word is still marked (reverse video) and nothing is coloured",
        async () => {
            session = await startNorthSession({
                env: { NO_COLOR: "1" },
                files: { "calc.ts": "export const value2 = 2;\n" },
            });
            session.server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "edit_replace_exact",
                            input: {
                                path: "calc.ts",
                                old_text: "value2 = 2",
                                new_text: "value2 = 4",
                            },
                        },
                    ],
                },
                { text: "Done." }
            );
            await session.submit("change it");
            const { north } = session;
            await north.waitForText("Yes, make this edit");
            const added = () => cellsOf(north, "+export const value2 = 4;");
            await north.waitFor(
                () => added()?.some((cell) => cell.isInverse() !== 0) ?? false,
                20_000,
                "the changed word marked"
            );
            const cells = added()!;
            expect(cells.filter((c) => c.isInverse() !== 0).map((c) => c.getChars())).toEqual([
                "4",
            ]);
            expect(cells.every((c) => c.isFgDefault() && c.isBgDefault())).toBe(true);
        },
        TIMEOUT
    );

    it(
        "at 80 columns a wrapped code line continues after a ↪ mark at its indentation",
        async () => {
            session = await startNorthSession({ cols: 80, env: TRUE_COLOUR });
            const long = `    const total = ${Array.from({ length: 12 }, (_, i) => `part${i}`).join(" + ")};`;
            session.server.enqueue({ text: ["```ts", long, "```", "", "End."].join("\n") });
            await session.submit("long line");
            const { north } = session;
            await north.waitForText("End.");
            await north.waitFor(
                () => /│ {5}↪ /.test(north.screenText()),
                20_000,
                "the continuation mark"
            );
            expect(north.screenText()).toMatch(/│ {5}↪ .*part\d/);
        },
        TIMEOUT
    );

    it(
        "a 10,000-line code block leaves the chat responsive: a key typed after it echoes",
        async () => {
            session = await startNorthSession({ env: TRUE_COLOUR });
            const lines = Array.from({ length: 10_000 }, (_, i) => `const v${i} = "${i}";`);
            session.server.enqueue({
                text: ["```ts", ...lines, "```", "", "All ten thousand."].join("\n"),
            });
            await session.submit("big block");
            const { north } = session;
            await north.waitForText("All ten thousand.", 45_000);
            north.type("still here");
            await north.waitForText("still here", 20_000);
        },
        TIMEOUT
    );
});
