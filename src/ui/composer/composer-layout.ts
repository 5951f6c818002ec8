/**
 * The composer's text as display lines: hard-wrapped to the width, with the
 * cursor (or a highlighted range) drawn inverted, and cut to a window around
 * it when the text is taller than allowed.
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
    /** Drawn inverted: the cursor, or a highlighted character. */
    mark: boolean;
}

/** A control character (a pasted escape sequence, say) is shown as ^X, never sent to the terminal. */
function visible(ch: string): { text: string; width: number } {
    if (ch === "\t") return { text: "    ", width: 4 };
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f)
        return { text: `^${String.fromCharCode(code ^ 0x40)}`, width: 2 };
    if (code >= 0x80 && code < 0xa0) return { text: "^?", width: 2 };
    return { text: ch, width: Math.max(0, stringWidth(ch)) };
}

/**
 * Lays out `editor` in `width` columns, at most `maxLines` lines. With
 * `showCursor` false (composer inactive) no cursor is drawn; `highlight`
 * (offsets into the text) is drawn inverted and kept in view instead.
 */
export function layoutComposer(
    editor: EditorState,
    width: number,
    maxLines: number,
    showCursor = true,
    highlight?: { start: number; end: number }
): ComposerLines {
    const w = Math.max(1, width);
    const visual: Cell[][] = [];
    let cursorRow = -1;
    let offset = 0;
    for (const logical of editor.text.split("\n")) {
        const cells: Cell[] = [];
        for (const ch of logical) {
            const marked =
                (showCursor && offset === editor.cursor) ||
                (highlight !== undefined && offset >= highlight.start && offset < highlight.end);
            cells.push({ ...visible(ch), mark: marked });
            offset += ch.length;
        }
        if (showCursor && offset === editor.cursor) cells.push({ text: " ", width: 1, mark: true });
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
            // The window follows the cursor, or the start of the highlight.
            if (cursorRow === -1 && r.some((c) => c.mark)) cursorRow = visual.length;
            visual.push(r);
        }
    }
    const render = (row: Cell[]): string =>
        row.map((c) => (c.mark ? INVERSE(c.text) : c.text)).join("");
    const limit = Math.max(1, maxLines);
    let start = 0;
    if (visual.length > limit) {
        const anchor = Math.max(0, cursorRow);
        start = Math.min(Math.max(0, anchor - limit + 1), visual.length - limit);
    }
    return { lines: visual.slice(start, start + limit).map(render), total: visual.length };
}
