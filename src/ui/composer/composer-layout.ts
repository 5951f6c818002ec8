/**
 * The composer's text as display lines: hard-wrapped to the width, with the
 * cursor drawn as an inverted cell, and cut to a window around the cursor
 * when the text is taller than allowed.
 */
import stringWidth from "string-width";
import type { EditorState } from "./editor";

const INVERSE = (text: string): string => `\x1b[7m${text}\x1b[27m`;

export interface ComposerLines {
    lines: string[];
    /** Visual lines in total (before the window was cut). */
    total: number;
}

interface Cell {
    text: string;
    width: number;
    cursor: boolean;
}

/**
 * Lays out `editor` in `width` columns, at most `maxLines` lines. With
 * `showCursor` false (composer inactive) no cursor is drawn.
 */
export function layoutComposer(
    editor: EditorState,
    width: number,
    maxLines: number,
    showCursor = true
): ComposerLines {
    const w = Math.max(1, width);
    const visual: Cell[][] = [];
    let cursorRow = 0;
    let offset = 0;
    for (const logical of editor.text.split("\n")) {
        const cells: Cell[] = [];
        for (const ch of logical) {
            const chWidth = ch === "\t" ? 4 : Math.max(0, stringWidth(ch));
            cells.push({
                text: ch === "\t" ? "    " : ch,
                width: chWidth,
                cursor: showCursor && offset === editor.cursor,
            });
            offset += ch.length;
        }
        if (showCursor && offset === editor.cursor)
            cells.push({ text: " ", width: 1, cursor: true });
        offset += 1; // the "\n"
        let row: Cell[] = [];
        let used = 0;
        const rows: Cell[][] = [];
        for (const cell of cells) {
            if (used + cell.width > w && row.length > 0) {
                rows.push(row);
                row = [];
                used = 0;
            }
            row.push(cell);
            used += cell.width;
        }
        rows.push(row);
        for (const r of rows) {
            if (r.some((c) => c.cursor)) cursorRow = visual.length;
            visual.push(r);
        }
    }
    const render = (row: Cell[]): string =>
        row.map((c) => (c.cursor ? INVERSE(c.text) : c.text)).join("");
    const limit = Math.max(1, maxLines);
    let start = 0;
    if (visual.length > limit) {
        start = Math.min(Math.max(0, cursorRow - limit + 1), visual.length - limit);
    }
    return { lines: visual.slice(start, start + limit).map(render), total: visual.length };
}
