/**
 * Unified diffs as display rows with old/new line numbers, shared by the
 * pending write review (Ink) and the accepted diff kept in the transcript
 * (pre-wrapped ANSI lines). Rows are wrapped to the width, so every column
 * of every line can be read by scrolling.
 */
import stringWidth from "string-width";
import type { FileDiff } from "../../tools/types";
import type { Ansi } from "./ansi";
import type { ThemeColor } from "../theme";
import { wrapLines } from "./markdown";
import { sanitizeLine } from "../../util/display-line";

/** A file's diff as kept with a resolved review: possibly cut, `omitted` lines not kept. */
export interface KeptFileDiff extends FileDiff {
    omitted?: number;
}

export type DiffRowKind = "file" | "hunk" | "add" | "remove" | "context" | "note";

export interface DiffRow {
    kind: DiffRowKind;
    /** Old and new line numbers, padded to one width ("" for file and note rows). */
    gutter: string;
    /** The line as the diff has it (its +/−/space first), safe to draw. */
    text: string;
}

export interface DiffRows {
    rows: DiffRow[];
    /** Body lines left out by `maxLines` (and not kept with the review). */
    hidden: number;
    added: number;
    removed: number;
}

// The review menu's words (agent/approval-menu.ts) use the same cleaning.
export { sanitizeLine };

export function stats(added: number, removed: number): string {
    return `+${added} −${removed}`;
}

/** The body of one file diff: the `---`/`+++` header dropped (the path is shown above it). */
export function diffBody(diff: string): string[] {
    const lines = diff.split("\n");
    if (lines.at(-1) === "") lines.pop();
    let start = 0;
    if (lines[0]?.startsWith("--- ") && lines[1]?.startsWith("+++ ")) start = 2;
    return lines.slice(start);
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

interface Numbered {
    kind: DiffRowKind;
    old: number | null;
    new: number | null;
    text: string;
}

function numberLines(body: readonly string[]): Numbered[] {
    let oldLine = 0;
    let newLine = 0;
    return body.map((line): Numbered => {
        const hunk = HUNK.exec(line);
        if (hunk) {
            oldLine = Number(hunk[1]);
            newLine = Number(hunk[2]);
            return { kind: "hunk", old: null, new: null, text: line };
        }
        if (line.startsWith("+")) return { kind: "add", old: null, new: newLine++, text: line };
        if (line.startsWith("-")) return { kind: "remove", old: oldLine++, new: null, text: line };
        if (line.startsWith("\\")) return { kind: "note", old: null, new: null, text: line };
        return { kind: "context", old: oldLine++, new: newLine++, text: line };
    });
}

/**
 * The rows of `diffs`: a header per file (path, new file, stats), then its
 * lines numbered from the hunk headers. At most `maxLines` body lines.
 */
export function diffRows(diffs: readonly KeptFileDiff[], maxLines = Infinity): DiffRows {
    const numbered: Array<{ header: string } | Numbered> = [];
    let budget = Math.max(0, maxLines);
    let hidden = 0;
    let added = 0;
    let removed = 0;
    let widest = 1;
    let hasOld = false;
    for (const file of diffs) {
        added += file.linesAdded;
        removed += file.linesRemoved;
        const body = diffBody(file.diff);
        const omitted = file.omitted ?? 0;
        if (budget === 0) {
            hidden += body.length + omitted;
            continue;
        }
        const label = `${sanitizeLine(file.path)}${file.isNewFile ? " (new file)" : ""}`;
        numbered.push({ header: `${label}  ${stats(file.linesAdded, file.linesRemoved)}` });
        const lines = numberLines(body);
        const shown = lines.slice(0, budget);
        budget -= shown.length;
        hidden += lines.length - shown.length + omitted;
        for (const line of shown) {
            widest = Math.max(widest, String(line.old ?? 0).length, String(line.new ?? 0).length);
            if (line.old !== null) hasOld = true;
            numbered.push(line);
        }
    }
    const number = (n: number | null) => (n === null ? "" : String(n)).padStart(widest);
    // New files only add: one column of numbers is enough.
    const columns = (line: Numbered) =>
        hasOld ? `${number(line.old)} ${number(line.new)} ` : `${number(line.new)} `;
    const blank = " ".repeat(hasOld ? widest * 2 + 2 : widest + 1);
    const rows = numbered.map((line): DiffRow => {
        if ("header" in line) return { kind: "file", gutter: "", text: line.header };
        const gutter = line.kind === "hunk" || line.kind === "note" ? blank : columns(line);
        return { kind: line.kind, gutter, text: sanitizeLine(line.text) };
    });
    return { rows, hidden, added, removed };
}

/** Text whose width is its length. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Each row cut into rows that fit `width` columns: the text wraps under
 * itself, the gutter stays blank on continuation rows.
 */
export function wrapDiffRows(rows: readonly DiffRow[], width: number): DiffRow[] {
    const out: DiffRow[] = [];
    for (const row of rows) {
        const gutterWidth = stringWidth(row.gutter);
        const room = Math.max(1, width - gutterWidth);
        // Most code lines are printable ASCII that fits: one piece, without the wrapper's cost.
        const fits = row.text.length <= room && PRINTABLE_ASCII.test(row.text);
        const pieces = row.text === "" || fits ? [row.text] : wrapLines(row.text, room, false);
        pieces.forEach((text, i) =>
            out.push({
                kind: row.kind,
                gutter: i === 0 ? row.gutter : " ".repeat(gutterWidth),
                text,
            })
        );
    }
    return out;
}

/** How a row's text is drawn: its theme colour, bold. */
export function rowStyle(kind: DiffRowKind): { color?: ThemeColor; bold?: boolean } {
    switch (kind) {
        case "file":
            return { bold: true };
        case "hunk":
            return { color: "diffHunk" };
        case "add":
            return { color: "diffAdd" };
        case "remove":
            return { color: "diffRemove" };
        case "note":
            return { color: "dim" };
        case "context":
            return {};
    }
}

/** A row as one ANSI string (gutter dim, text coloured by kind). */
export function ansiRow(row: DiffRow, ansi: Ansi): string {
    const style = rowStyle(row.kind);
    let text = row.text;
    if (style.color) text = ansi.fg(style.color, text);
    if (style.bold) text = ansi.bold(text);
    return ansi.dim(row.gutter) + text;
}

/** Body lines kept with a resolved review in all (what the transcript and a resume can show). */
export const KEPT_DIFF_LINES = 200;
/** Longest diff line kept; longer ones end with "…". */
const KEPT_LINE_CHARS = 500;

/**
 * A bounded copy of `diffs` to keep with the resolved review (in memory and
 * in the conversation log): at most `maxLines` body lines in all.
 */
export function keepDiffs(diffs: readonly FileDiff[], maxLines = KEPT_DIFF_LINES): KeptFileDiff[] {
    let budget = maxLines;
    return diffs.map((file) => {
        const body = diffBody(file.diff);
        const kept = body
            .slice(0, Math.max(0, budget))
            .map((line) =>
                line.length > KEPT_LINE_CHARS ? `${line.slice(0, KEPT_LINE_CHARS)}…` : line
            );
        budget -= kept.length;
        const omitted = body.length - kept.length;
        return {
            path: file.path,
            isNewFile: file.isNewFile,
            linesAdded: file.linesAdded,
            linesRemoved: file.linesRemoved,
            // The header stays, so a kept body is read exactly as the original.
            diff: [`--- ${file.path}`, `+++ ${file.path}`, ...kept, ""].join("\n"),
            ...(omitted > 0 ? { omitted } : {}),
        };
    });
}
