/**
 * Finds where a search text (old_text, an anchor) sits in a file: exactly
 * first, then under growing tolerances — line endings, trailing whitespace,
 * indentation (a uniform re-indent of the whole block), Unicode quotes, dashes
 * and spaces. A match never starts or ends inside a CRLF pair, and a
 * whitespace-only line of the search only matches a blank line. The first level that finds anything wins; callers apply a match
 * only when it is unique (or the model named an occurrence), so a tolerant
 * match never guesses between places.
 */
import { alignLines } from "./align";
import type { IndentPair, Reindent } from "./reindent";
import { findReindent, reindentLine } from "./reindent";
import type { Eol } from "./text-doc";
import { lineIndexAt, withEol } from "./text-doc";

export type Tolerance = "line_endings" | "trailing_whitespace" | "indentation" | "unicode";
export type MatchLevel = "exact" | Tolerance;

export interface TextMatch {
    /** Raw offsets in the file text: [start, end). */
    start: number;
    end: number;
    /** 0-based index of the file line holding `start`. */
    lineIndex: number;
    /** 1-based first and last line the match touches (a leading line break belongs to the next line). */
    startLine: number;
    endLine: number;
    level: MatchLevel;
    reindent?: Reindent;
}

export interface MatchSet {
    /** The level that produced `matches` ("exact" when nothing matched at all). */
    level: MatchLevel;
    matches: TextMatch[];
}

/**
 * Places collected before the search stops: enough to refuse and list, while a
 * hostile file (a megabyte of one repeated character) cannot make counting slow.
 */
export const MAX_PLACES = 5000;

export interface FindOptions {
    /** Ignore matches that start before this raw offset. */
    minStart?: number;
}

interface Flags {
    trimEnd: boolean;
    trimStart: boolean;
    unicode: boolean;
}

const LEVELS: Array<[Tolerance, Flags]> = [
    ["line_endings", { trimEnd: false, trimStart: false, unicode: false }],
    ["trailing_whitespace", { trimEnd: true, trimStart: false, unicode: false }],
    ["indentation", { trimEnd: true, trimStart: true, unicode: false }],
    ["unicode", { trimEnd: true, trimStart: true, unicode: true }],
];

const UNICODE_MAP: Record<string, string> = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201b": "'",
    "\u2032": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u201f": '"',
    "\u2033": '"',
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2015": "-",
    "\u2212": "-",
    "\u00a0": " ",
    "\u2002": " ",
    "\u2003": " ",
    "\u2007": " ",
    "\u2009": " ",
    "\u200a": " ",
    "\u202f": " ",
    "\u3000": " ",
};
const UNICODE_CLASS =
    /[\u2018\u2019\u201a\u201b\u2032\u201c-\u201f\u2033\u2010-\u2015\u2212\u00a0\u2002\u2003\u2007\u2009\u200a\u202f\u3000]/g;
const HAS_UNICODE = new RegExp(UNICODE_CLASS.source);
const TRAILING_WS = /[ \t]\r?(\n|$)/;

/** Maps typographic quotes, dashes and odd spaces to ASCII, one character for one. */
export function foldUnicode(text: string): string {
    return text.replace(UNICODE_CLASS, (ch) => UNICODE_MAP[ch] ?? ch);
}

interface View {
    /** Normalized lines joined by "\n". */
    text: string;
    normStarts: number[];
    normLen: number[];
    lead: number[];
    /** Raw content length of each line (terminator excluded). */
    rawLen: number[];
    indent: string[];
}

function contentEnd(text: string, starts: readonly number[], i: number): number {
    const next = starts[i + 1];
    let end = next === undefined ? text.length : next - 1;
    if (end > (starts[i] ?? 0) && text.charCodeAt(end - 1) === 13) end--;
    return end;
}

function normalizeLine(raw: string, flags: Flags): { norm: string; lead: number; indent: string } {
    let s = flags.unicode ? foldUnicode(raw) : raw;
    if (flags.trimEnd) s = s.replace(/[ \t]+$/, "");
    const indent = /^[ \t]*/.exec(s)?.[0] ?? "";
    const lead = flags.trimStart ? indent.length : 0;
    return { norm: s.slice(lead), lead, indent };
}

function buildView(text: string, starts: readonly number[], flags: Flags): View {
    const norms: string[] = [];
    const view: View = { text: "", normStarts: [], normLen: [], lead: [], rawLen: [], indent: [] };
    let offset = 0;
    for (let i = 0; i < starts.length; i++) {
        const start = starts[i] ?? 0;
        const end = contentEnd(text, starts, i);
        const line = normalizeLine(text.slice(start, end), flags);
        norms.push(line.norm);
        view.normStarts.push(offset);
        view.normLen.push(line.norm.length);
        view.lead.push(line.lead);
        view.rawLen.push(end - start);
        view.indent.push(line.indent);
        offset += line.norm.length + 1;
    }
    view.text = norms.join("\n");
    return view;
}

interface SearchLines {
    norm: string[];
    indent: string[];
    /** The line holds only spaces or tabs (and is not empty). */
    blank: boolean[];
    /** The first line starts with whitespace that the normalization removed. */
    firstIndented: boolean;
}

const BLANK = /^[ \t]+$/;

function stripCr(line: string): string {
    return line.endsWith("\r") ? line.slice(0, -1) : line;
}

function normalizeSearch(search: string, flags: Flags): SearchLines {
    const lines = search.split("\n");
    const out: SearchLines = { norm: [], indent: [], blank: [], firstIndented: false };
    lines.forEach((rawLine, i) => {
        const raw = stripCr(rawLine);
        const line = normalizeLine(raw, flags);
        out.norm.push(line.norm);
        out.indent.push(line.indent);
        out.blank.push(BLANK.test(raw));
        if (i === 0) out.firstIndented = flags.trimStart && line.lead > 0;
    });
    return out;
}

function lineIsBlank(text: string, starts: readonly number[], i: number): boolean {
    const start = starts[i] ?? text.length;
    return /^[ \t]*$/.test(text.slice(start, contentEnd(text, starts, i)));
}

/**
 * An exact hit is a real match unless it splits a CRLF pair (the search's
 * line break would land between \r and \n) or its whitespace-only first line
 * is the tail of a line with content.
 */
function exactAllowed(
    text: string,
    starts: readonly number[],
    search: string,
    start: number,
    end: number
): boolean {
    if (text.charCodeAt(start) === 10 && text.charCodeAt(start - 1) === 13) return false;
    if (text.charCodeAt(end - 1) === 13 && text.charCodeAt(end) === 10) return false;
    const firstBreak = search.indexOf("\n");
    if (firstBreak > 0 && BLANK.test(stripCr(search.slice(0, firstBreak)))) {
        const lineStart = starts[lineIndexAt(starts, start)] ?? 0;
        if (!/^[ \t]*$/.test(text.slice(lineStart, start))) return false;
    }
    return true;
}

function exactMatches(
    text: string,
    starts: readonly number[],
    search: string,
    minStart: number
): TextMatch[] {
    const matches: TextMatch[] = [];
    let i = text.indexOf(search, minStart);
    while (i !== -1) {
        const end = i + search.length;
        if (exactAllowed(text, starts, search, i, end))
            matches.push(makeMatch(text, starts, i, end, "exact"));
        if (matches.length > MAX_PLACES) break;
        // Hits may overlap (37 dashes in a 40-dash rule, `x\nx` in three `x` lines):
        // each start is a place the text occurs, so none is chosen silently.
        i = text.indexOf(search, i + 1);
    }
    return matches;
}

function makeMatch(
    text: string,
    starts: readonly number[],
    start: number,
    end: number,
    level: MatchLevel
): TextMatch {
    const lineIndex = lineIndexAt(starts, start);
    // Text that starts with a line break (after trailing blanks) is about the next line.
    let k = start;
    while (k < end && (text[k] === " " || text[k] === "\t")) k++;
    if (text[k] === "\r" && text[k + 1] === "\n") k++;
    const startLine = k < end && text[k] === "\n" ? lineIndex + 2 : lineIndex + 1;
    const endLine = end > start ? lineIndexAt(starts, end - 1) + 1 : lineIndex + 1;
    return { start, end, lineIndex, startLine, endLine: Math.max(endLine, startLine), level };
}

/** The raw match for a normalized hit at `p`, or null when the hit is not a valid match. */
function tolerantCandidate(
    text: string,
    starts: readonly number[],
    view: View,
    lines: SearchLines,
    p: number,
    length: number,
    level: Tolerance,
    flags: Flags
): TextMatch | null {
    const last = lines.norm.length - 1;
    const j = lineIndexAt(view.normStarts, p);
    const col = p - (view.normStarts[j] ?? 0);
    // Search text that starts with indentation must start at a line start.
    if (lines.firstIndented && col !== 0) return null;
    const je = j + last;
    // A whitespace-only first or last line stands for a blank line, never a line's tail.
    if (lines.blank[0] && !lineIsBlank(text, starts, j)) return null;
    if (last > 0 && lines.blank[last] && !lineIsBlank(text, starts, je)) return null;
    const ce = p + length - (view.normStarts[je] ?? 0);
    const lineStart = starts[j] ?? 0;
    // The first line is re-based with the others when the hit starts where its content does.
    const aligned =
        lines.firstIndented || lines.blank[0] === true || (col === 0 && lines.norm[0] !== "");
    const start = aligned ? lineStart : lineStart + (view.lead[j] ?? 0) + col;
    let end: number;
    if (last > 0 && lines.norm[last] === "" && !lines.blank[last] && lines.indent[last] === "") {
        end = starts[je] ?? text.length;
    } else if (ce === view.normLen[je] || (last > 0 && lines.blank[last])) {
        end = (starts[je] ?? 0) + (view.rawLen[je] ?? 0);
    } else {
        end = (starts[je] ?? 0) + (view.lead[je] ?? 0) + ce;
    }
    const match = makeMatch(text, starts, start, end, level);
    if (flags.trimStart) {
        const pairs: IndentPair[] = [];
        for (let i = aligned ? 0 : 1; i <= last; i++) {
            if (lines.norm[i] === "") continue;
            pairs.push([view.indent[j + i] ?? "", lines.indent[i] ?? ""]);
        }
        const reindent = findReindent(pairs, aligned);
        if (!reindent) return null;
        match.reindent = reindent;
    }
    return match;
}

function tolerantMatches(
    text: string,
    starts: readonly number[],
    search: string,
    level: Tolerance,
    flags: Flags,
    minStart: number
): TextMatch[] {
    const lines = normalizeSearch(search, flags);
    const needle = lines.norm.join("\n");
    if (needle.trim() === "") return [];
    // Every normalized search line occurs verbatim in the (folded) raw text of a match:
    // when the longest does not, skip building the normalized view.
    const longest = lines.norm.reduce((a, b) => (b.length > a.length ? b : a), "");
    if (!(flags.unicode ? foldUnicode(text) : text).includes(longest)) return [];
    const view = buildView(text, starts, flags);
    const matches: TextMatch[] = [];
    let p = view.text.indexOf(needle);
    while (p !== -1) {
        const match = tolerantCandidate(text, starts, view, lines, p, needle.length, level, flags);
        if (match && match.start >= minStart) matches.push(match);
        if (matches.length > MAX_PLACES) break;
        // As for exact hits, overlapping places each count.
        p = view.text.indexOf(needle, p + 1);
    }
    return matches;
}

function levelApplies(level: Tolerance, text: string, search: string): boolean {
    switch (level) {
        case "line_endings":
            return search.includes("\r") || (search.includes("\n") && text.includes("\r"));
        case "trailing_whitespace":
            return TRAILING_WS.test(text) || TRAILING_WS.test(search);
        case "indentation":
            return true;
        case "unicode":
            return HAS_UNICODE.test(text) || HAS_UNICODE.test(search);
    }
}

/**
 * All places `search` occurs in `text`, at the strictest level that finds any.
 * Occurrences are in file order; overlapping ones each count. More than
 * `MAX_PLACES` stops the search (the set then holds `MAX_PLACES + 1`).
 */
export function findMatches(
    text: string,
    starts: readonly number[],
    search: string,
    options: FindOptions = {}
): MatchSet {
    const minStart = options.minStart ?? 0;
    if (search === "") return { level: "exact", matches: [] };
    const exact = exactMatches(text, starts, search, minStart);
    if (exact.length > 0) return { level: "exact", matches: exact };
    for (const [level, flags] of LEVELS) {
        if (!levelApplies(level, text, search)) continue;
        const matches = tolerantMatches(text, starts, search, level, flags, minStart);
        if (matches.length > 0) return { level, matches };
    }
    return { level: "exact", matches: [] };
}

/** The line break style around the match: its first line's, else the one before it. */
function eolAround(text: string, starts: readonly number[], match: TextMatch, fallback: Eol): Eol {
    const next = starts[match.lineIndex + 1];
    const lf = next !== undefined ? next - 1 : (starts[match.lineIndex] ?? 0) - 1;
    if (lf < 0) return fallback;
    return text.charCodeAt(lf - 1) === 13 ? "\r\n" : "\n";
}

/**
 * A one-line search that starts inside (or right after) a line's indentation
 * stands for the whole line: when the replacement has more lines, every one
 * of them is re-based to the line's real indentation, so added lines do not
 * land at the model's (shallower) depth. Longer searches that matched without
 * ignoring indentation already show where their lines belong.
 */
function rebaseOneLine(
    text: string,
    starts: readonly number[],
    match: TextMatch,
    search: string,
    replacement: string
): TextMatch {
    if (match.reindent) return match;
    // A blank replacement takes the line's indentation with it only when it empties the
    // line (up to its end, or through its line break).
    const emptiesLine =
        replacement.trim() === "" &&
        (match.end === contentEnd(text, starts, match.lineIndex) ||
            match.end === starts[match.lineIndex + 1]);
    if (!replacement.includes("\n") && !emptiesLine) return match;
    const lines = search.split("\n").map(stripCr);
    const first = lines[0] ?? "";
    if (first.trim() === "" || lines.slice(1).some((line) => line.trim() !== "")) return match;
    const lineStart = starts[match.lineIndex] ?? 0;
    const prefix = text.slice(lineStart, match.start);
    if (!BLANK.test(prefix)) return match;
    const from = /^[ \t]*/.exec(first)?.[0] ?? "";
    const level = match.level === "exact" ? "indentation" : match.level;
    return {
        ...match,
        start: lineStart,
        level,
        reindent: { from, to: prefix + from, firstLine: true },
    };
}

/** The matched file text of each search line. */
function segments(
    text: string,
    starts: readonly number[],
    match: TextMatch,
    count: number
): string[] {
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
        const index = match.lineIndex + i;
        const from = i === 0 ? match.start : (starts[index] ?? text.length);
        const lineEnd = contentEnd(text, starts, index);
        const to = i === count - 1 ? Math.min(match.end, lineEnd) : lineEnd;
        out.push(text.slice(from, Math.max(from, to)));
    }
    return out;
}

export interface Replaced {
    text: string;
    /** The level the replacement needed (a one-line match re-based to its line counts as indentation). */
    level: MatchLevel;
}

/**
 * A match that ends where its line's content ends, before trailing whitespace
 * the model did not send, reaches over that whitespace: if the model changed
 * that line, the line is written as sent; if it kept it, the line-by-line
 * replacement keeps the file's bytes. Null when nothing follows.
 */
function overTrailingBlanks(
    text: string,
    starts: readonly number[],
    match: TextMatch,
    search: string
): TextMatch | null {
    if (/\r?\n$/.test(search) || search === "") return null;
    const lastLine = lineIndexAt(starts, match.end - 1);
    const lineEnd = contentEnd(text, starts, lastLine);
    if (match.end >= lineEnd || !BLANK.test(text.slice(match.end, lineEnd))) return null;
    return { ...match, end: lineEnd };
}

/**
 * The file text with `found` replaced by `replacement`. For an exact match the
 * replacement goes in as given, with line breaks in the style around it. Else
 * the rule is line by line: lines the model kept (the same in its old and new
 * text, as it sent them) keep the file's bytes; lines it changed or added are
 * written as sent, re-based only in indentation by the mapping that matched
 * the block (whitespace-only lines are written as sent).
 */
export function replaceMatch(
    text: string,
    starts: readonly number[],
    found: TextMatch,
    search: string,
    replacement: string,
    fallbackEol: Eol
): Replaced {
    const eol = eolAround(text, starts, found, fallbackEol);
    const widened = overTrailingBlanks(text, starts, found, search);
    const match = rebaseOneLine(text, starts, widened ?? found, search, replacement);
    const before = text.slice(0, match.start);
    const after = text.slice(match.end);
    if (match.level === "exact" && !widened) {
        // CRLF sent to a file that has CRLF is deliberate (a mixed file keeps its mix).
        const asSent = replacement.includes("\r\n") && text.includes("\r\n");
        return {
            text: before + (asSent ? replacement : withEol(replacement, eol)) + after,
            level: "exact",
        };
    }
    const oldLines = search.split("\n").map(stripCr);
    const newLines = replacement.split("\n").map(stripCr);
    const segs = segments(text, starts, match, oldLines.length);
    const { reindent } = match;
    const out: string[] = [];
    for (const aligned of alignLines(oldLines, newLines, (a, b) => a === b)) {
        if (aligned.kind === "same") {
            out.push(segs[aligned.oldIndex] ?? "");
            continue;
        }
        const line = aligned.line;
        const shift = reindent && (out.length > 0 || reindent.firstLine) && line.trim() !== "";
        out.push(shift ? reindentLine(line, reindent) : line);
    }
    return { text: before + out.join(eol) + after, level: match.level };
}
