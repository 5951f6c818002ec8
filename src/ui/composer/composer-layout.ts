/**
 * The composer's text as display rows: wrapped at word boundaries to the
 * width (a word longer than a row still breaks), a paste chip drawn as its
 * label, the cursor (or a highlighted range) drawn inverted, and cut to a
 * window around it when the text is taller than allowed. The same rows give
 * Up/Down their meaning, so the cursor moves over what is drawn.
 */
import stringWidth from "string-width";
import type { EditorState } from "./editor";

const INVERSE = (text: string): string => `\x1b[7m${text}\x1b[27m`;

export interface ComposerLines {
    lines: string[];
    /** Visual lines in total (before the window was cut). */
    total: number;
    /** Visual lines cut off above the window (the "↑ N more lines" marker). */
    above: number;
    /** Visual lines cut off below it. */
    below: number;
}

interface Cell {
    text: string;
    width: number;
    /** Offset in the text of the character drawn (the line's end for the end cell). */
    offset: number;
    /** A break may follow it (a space or a tab). */
    space: boolean;
    /** The position after a line's last character: drawn only under the cursor. */
    end: boolean;
}

/** One display row: its cells, left to right. */
export type VisualRow = readonly Cell[];

/** A control character (a pasted escape sequence, say) is shown as ^X, never sent to the terminal. */
function visible(ch: string): { text: string; width: number } {
    if (ch === "\t") return { text: "    ", width: 4 };
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f)
        return { text: `^${String.fromCharCode(code ^ 0x40)}`, width: 2 };
    if (code >= 0x80 && code < 0xa0) return { text: "^?", width: 2 };
    return { text: ch, width: Math.max(0, stringWidth(ch)) };
}

/** Breaks one logical line's cells into rows of at most `w` columns (a space may hang one past). */
function wrapCells(cells: Cell[], w: number): Cell[][] {
    const rows: Cell[][] = [];
    let row: Cell[] = [];
    let used = 0;
    for (const cell of cells) {
        if (used + cell.width > w && row.length > 0) {
            if (cell.space && cell.width === 1 && used <= w) {
                // A space (or the end) hangs in the spare column rather than starting a row.
                row.push(cell);
                rows.push(row);
                row = [];
                used = 0;
                continue;
            }
            const lastSpace = row.findLastIndex((c) => c.space);
            if (lastSpace >= 0 && lastSpace < row.length - 1) {
                // Carry the word being typed to the next row.
                const carry = row.splice(lastSpace + 1);
                rows.push(row);
                row = carry;
                used = carry.reduce((sum, c) => sum + c.width, 0);
                if (used + cell.width > w) {
                    rows.push(row);
                    row = [];
                    used = 0;
                }
            } else {
                rows.push(row);
                row = [];
                used = 0;
            }
        }
        row.push(cell);
        used += cell.width;
    }
    rows.push(row);
    return rows;
}

/**
 * The rows `text` takes in `width` columns plus one spare column for a hanging
 * space or the cursor. `chips` maps a paste chip's character to its label.
 */
export function visualRows(
    text: string,
    width: number,
    chips?: ReadonlyMap<string, string>
): VisualRow[] {
    const w = Math.max(1, width);
    const rows: VisualRow[] = [];
    let offset = 0;
    for (const logical of text.split("\n")) {
        const cells: Cell[] = [];
        for (const ch of logical) {
            const label = chips?.get(ch);
            const shown =
                label === undefined ? visible(ch) : { text: label, width: stringWidth(label) };
            cells.push({ ...shown, offset, space: ch === " " || ch === "\t", end: false });
            offset += ch.length;
        }
        cells.push({ text: " ", width: 1, offset, space: true, end: true });
        offset += 1; // the "\n"
        rows.push(...wrapCells(cells, w));
    }
    return rows;
}

/** The row and column (in cells' widths) the cursor is drawn at. */
export function cursorCell(rows: readonly VisualRow[], cursor: number): { row: number; x: number } {
    for (let r = 0; r < rows.length; r++) {
        let x = 0;
        for (const cell of rows[r] ?? []) {
            if (cell.offset === cursor) return { row: r, x };
            x += cell.width;
        }
    }
    return { row: Math.max(0, rows.length - 1), x: 0 };
}

/**
 * The cursor one display row up (-1) or down (+1), as near its column as the
 * row allows; null when it is on the first (last) row already.
 */
export function moveOverRows(
    editor: EditorState,
    width: number,
    direction: -1 | 1,
    chips?: ReadonlyMap<string, string>
): EditorState | null {
    const rows = visualRows(editor.text, width, chips);
    const { row, x } = cursorCell(rows, editor.cursor);
    const target = rows[row + direction];
    if (!target || target.length === 0) return null;
    let at = 0;
    let chosen = target[target.length - 1] as Cell;
    for (const cell of target) {
        if (x < at + cell.width) {
            chosen = cell;
            break;
        }
        at += cell.width;
    }
    return { ...editor, cursor: chosen.offset };
}

/** The columns text wraps at in `columns`: the last is kept for a hanging space or the cursor. */
export const wrapWidth = (columns: number): number => Math.max(1, columns - 1);

/**
 * Lays out `editor` in `width` columns (the last one kept for a hanging space
 * or the cursor), at most `maxLines` lines. With `showCursor` false (composer
 * inactive) no cursor is drawn; `highlight` (offsets into the text) is drawn
 * inverted and kept in view instead.
 */
export function layoutComposer(
    editor: EditorState,
    width: number,
    maxLines: number,
    showCursor = true,
    highlight?: { start: number; end: number },
    chips?: ReadonlyMap<string, string>
): ComposerLines {
    const visual = visualRows(editor.text, wrapWidth(width), chips);
    const marked = (cell: Cell): boolean =>
        (showCursor && cell.offset === editor.cursor) ||
        (highlight !== undefined &&
            !cell.end &&
            cell.offset >= highlight.start &&
            cell.offset < highlight.end);
    // The window follows the cursor, or the start of the highlight.
    const anchor = visual.findIndex((row) => row.some(marked));
    const render = (row: VisualRow): string =>
        row
            .map((c) => {
                if (marked(c)) return INVERSE(c.text);
                return c.end ? "" : c.text;
            })
            .join("");
    const limit = Math.max(1, maxLines);
    let start = 0;
    if (visual.length > limit) {
        start = Math.min(Math.max(0, Math.max(0, anchor) - limit + 1), visual.length - limit);
    }
    const lines = visual.slice(start, start + limit).map(render);
    return {
        lines,
        total: visual.length,
        above: start,
        below: visual.length - start - lines.length,
    };
}
