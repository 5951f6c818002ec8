/**
 * Finds where a search text (old_text, an anchor) sits in a file: exactly
 * first, then under growing tolerances — line endings, trailing whitespace,
 * indentation (a uniform re-indent of the whole block), Unicode quotes, dashes
 * and spaces. The first level that finds anything wins; callers apply a match
 * only when it is unique (or the model named an occurrence), so a tolerant
 * match never guesses between places.
 */
import { alignLines } from "./align";
import type { Eol } from "./text-doc";
import { lineIndexAt, withEol } from "./text-doc";

export type Tolerance = "line_endings" | "trailing_whitespace" | "indentation" | "unicode";
export type MatchLevel = "exact" | Tolerance;

/** How the model's indentation maps onto the file's for an `indentation` match. */
export interface Reindent {
    /** File indent width minus search indent width, in columns. */
    delta: number;
    fileTab: number;
    searchTab: number;
    /** The matched block is indented with tabs. */
    useTabs: boolean;
    /** The search's first line carried its indentation (so the match starts at column 0). */
    firstLine: boolean;
}

export interface TextMatch {
    /** Raw offsets in the file text: [start, end). */
    start: number;
    end: number;
    /** 0-based index of the file line holding `start`. */
    lineIndex: number;
    /** 1-based first and last line the match touches. */
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
    /** The first line starts with whitespace that the normalization removed. */
    firstIndented: boolean;
}

function normalizeSearch(search: string, flags: Flags): SearchLines {
    const lines = search.split("\n");
    const out: SearchLines = { norm: [], indent: [], firstIndented: false };
    lines.forEach((rawLine, i) => {
        const raw = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
        const line = normalizeLine(raw, flags);
        out.norm.push(line.norm);
        out.indent.push(line.indent);
        if (i === 0) out.firstIndented = flags.trimStart && line.lead > 0;
    });
    return out;
}

/** Indent width in columns, tabs advancing to the next multiple of `tab`. */
function indentWidth(indent: string, tab: number): number {
    let width = 0;
    for (const ch of indent) width = ch === "\t" ? width + tab - (width % tab) : width + 1;
    return width;
}

const TAB_PAIRS: Array<[number, number]> = [
    [4, 4],
    [2, 2],
    [8, 8],
    [4, 2],
    [2, 4],
    [8, 4],
    [4, 8],
    [8, 2],
    [2, 8],
];

/** The uniform indentation shift between search and file lines, or null if there is none. */
function findReindent(view: View, first: number, search: SearchLines): Reindent | null {
    const pairs: Array<[string, string]> = [];
    let useTabs = false;
    for (let i = 0; i < search.norm.length; i++) {
        const fileIndent = view.indent[first + i] ?? "";
        if (fileIndent.startsWith("\t")) useTabs = true;
        if (search.norm[i] === "" || (i === 0 && !search.firstIndented)) continue;
        pairs.push([fileIndent, search.indent[i] ?? ""]);
    }
    for (const [fileTab, searchTab] of TAB_PAIRS) {
        let delta: number | null = null;
        let uniform = true;
        for (const [fileIndent, searchIndent] of pairs) {
            const d = indentWidth(fileIndent, fileTab) - indentWidth(searchIndent, searchTab);
            if (delta === null) delta = d;
            else if (d !== delta) {
                uniform = false;
                break;
            }
        }
        if (uniform) {
            return {
                delta: delta ?? 0,
                fileTab,
                searchTab,
                useTabs,
                firstLine: search.firstIndented,
            };
        }
    }
    return null;
}

function exactMatches(
    text: string,
    starts: readonly number[],
    search: string,
    minStart: number
): TextMatch[] {
    const matches: TextMatch[] = [];
    for (
        let i = text.indexOf(search, minStart);
        i !== -1;
        i = text.indexOf(search, i + search.length)
    ) {
        matches.push(makeMatch(starts, i, i + search.length, "exact"));
    }
    return matches;
}

function makeMatch(
    starts: readonly number[],
    start: number,
    end: number,
    level: MatchLevel
): TextMatch {
    const lineIndex = lineIndexAt(starts, start);
    const endLine = end > start ? lineIndexAt(starts, end - 1) + 1 : lineIndex + 1;
    return { start, end, lineIndex, startLine: lineIndex + 1, endLine, level };
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
    const ce = p + length - (view.normStarts[je] ?? 0);
    const lineStart = starts[j] ?? 0;
    const start =
        col === 0 && lines.firstIndented ? lineStart : lineStart + (view.lead[j] ?? 0) + col;
    let end: number;
    if (last > 0 && lines.norm[last] === "" && lines.indent[last] === "") {
        end = starts[je] ?? text.length;
    } else if (ce === view.normLen[je]) {
        end = (starts[je] ?? 0) + (view.rawLen[je] ?? 0);
    } else {
        end = (starts[je] ?? 0) + (view.lead[je] ?? 0) + ce;
    }
    const match = makeMatch(starts, start, end, level);
    if (flags.trimStart) {
        const reindent = findReindent(view, j, lines);
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
        // Matches do not overlap; after a rejected candidate, look again one character on.
        p = view.text.indexOf(needle, match ? p + needle.length : p + 1);
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
 * Occurrences do not overlap; they are in file order.
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

function renderIndent(width: number, reindent: Reindent): string {
    const w = Math.max(0, width);
    if (!reindent.useTabs) return " ".repeat(w);
    return "\t".repeat(Math.floor(w / reindent.fileTab)) + " ".repeat(w % reindent.fileTab);
}

function reindentLine(line: string, reindent: Reindent): string {
    const indent = /^[ \t]*/.exec(line)?.[0] ?? "";
    if (indent.length === line.length) return "";
    const width = indentWidth(indent, reindent.searchTab) + reindent.delta;
    return renderIndent(width, reindent) + line.slice(indent.length);
}

/**
 * The file text with `match` replaced by `replacement`. For an exact match the
 * replacement goes in as given (line breaks in the file's style). For a tolerant
 * match, lines the model left unchanged keep the file's own bytes, and new or
 * changed lines are re-indented by the same shift that matched the block.
 */
export function replaceMatch(
    text: string,
    starts: readonly number[],
    match: TextMatch,
    search: string,
    replacement: string,
    eol: Eol
): string {
    const before = text.slice(0, match.start);
    const after = text.slice(match.end);
    if (match.level === "exact") return before + withEol(replacement, eol) + after;
    const stripCr = (line: string) => (line.endsWith("\r") ? line.slice(0, -1) : line);
    const oldLines = search.split("\n").map(stripCr);
    const newLines = replacement.split("\n").map(stripCr);
    const segment = (i: number): string => {
        const index = match.lineIndex + i;
        const from = i === 0 ? match.start : (starts[index] ?? text.length);
        const to = i === oldLines.length - 1 ? match.end : contentEnd(text, starts, index);
        return text.slice(from, Math.max(from, to));
    };
    // A line the model copied unchanged keeps the file's bytes. Beyond line endings,
    // "unchanged" ignores trailing whitespace (and, at the unicode level, quote style).
    const key = (line: string): string => {
        if (match.level === "line_endings") return line;
        const trimmed = line.replace(/[ \t]+$/, "");
        return match.level === "unicode" ? foldUnicode(trimmed) : trimmed;
    };
    const { reindent } = match;
    const out: string[] = [];
    for (const aligned of alignLines(oldLines, newLines, (a, b) => key(a) === key(b))) {
        if (aligned.kind === "same") {
            out.push(segment(aligned.oldIndex));
            continue;
        }
        const first = out.length === 0;
        const shift = reindent && !(first && !reindent.firstLine);
        out.push(shift ? reindentLine(aligned.line, reindent) : aligned.line);
    }
    return before + out.join(eol) + after;
}
