/**
 * A tty's screen as the model reads it. The screen is bounded (rows × cols),
 * so it is never cut; but a full-screen program pads it with filler (vi's
 * column of `~` past the end of the file, blank rows above a status line),
 * and those rows cost tokens and say nothing. A run of identical filler rows
 * is folded into one line that says how many rows it stands for, so row
 * numbers can still be counted; the cursor's row is never folded.
 */
import { SCREEN_FOLD_MIN_ROWS } from "../limits";

/** Rows that only pad a screen: blank, or vi's / less's `~` past the end of the file. */
function isFiller(row: string): boolean {
    return row === "" || row === "~";
}

/** The line standing for `count` rows like `row`. */
function foldLine(row: string, count: number): string {
    return row === "" ? `[${count} empty rows]` : `${row} [${count} identical rows]`;
}

/**
 * `rows` (the screen's visible rows, trailing blanks already trimmed) with
 * runs of at least SCREEN_FOLD_MIN_ROWS identical filler rows folded;
 * `cursorRow` (0-based) stays a row of its own.
 */
export function foldScreenRows(rows: readonly string[], cursorRow?: number): string[] {
    const out: string[] = [];
    let i = 0;
    while (i < rows.length) {
        const row = rows[i]!;
        let end = i + 1;
        if (isFiller(row)) {
            while (end < rows.length && rows[end] === row && end !== cursorRow) end++;
            // The cursor's row starts a run of its own only after it.
            if (i === cursorRow) end = i + 1;
        }
        const count = end - i;
        if (count >= SCREEN_FOLD_MIN_ROWS) out.push(foldLine(row, count));
        else out.push(...rows.slice(i, end));
        i = end;
    }
    return out;
}
