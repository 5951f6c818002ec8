/**
 * How the model's indentation maps onto the file's for a match that ignored
 * indentation. The mapping is read from the matched lines themselves: first as
 * a string re-base (the model's indentation `from` stands for the file's `to`,
 * the rest of each indent kept), so the file's own characters are reused and
 * nothing is invented; only when the model used other characters than the file
 * (spaces for tabs or back) is indentation translated by width, written in the
 * block's own style.
 */

export interface WidthMap {
    /** File indent width minus search indent width, in columns. */
    delta: number;
    fileTab: number;
    searchTab: number;
    /** The matched block is indented with tabs. */
    useTabs: boolean;
    /** Indentation strings the matched file lines use, by width. */
    known: Map<number, string>;
}

export interface Reindent {
    /** Leading indentation of the model's lines that stands for `to` in the file. */
    from: string;
    to: string;
    /** Set when the model's indentation characters differ from the file's. */
    width?: WidthMap;
    /** The first new line is re-based too (the match starts at its line's start). */
    firstLine: boolean;
}

/** A matched line's indentation in the file and in the model's text. */
export type IndentPair = readonly [file: string, search: string];

/** Columns a tab advances to when guessing widths without a width mapping. */
const DEFAULT_TAB = 4;

/** Indent width in columns, tabs advancing to the next multiple of `tab`. */
export function indentWidth(indent: string, tab: number): number {
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

function commonSuffix(a: string, b: string): number {
    let k = 0;
    while (k < a.length && k < b.length && a[a.length - 1 - k] === b[b.length - 1 - k]) k++;
    return k;
}

/** The string re-base every pair agrees with, keeping as much of each indent as possible. */
function stringRebase(pairs: readonly IndentPair[]): { from: string; to: string } | null {
    const [file0, search0] = pairs[0] ?? ["", ""];
    for (let k = commonSuffix(file0, search0); k >= 0; k--) {
        const to = file0.slice(0, file0.length - k);
        const from = search0.slice(0, search0.length - k);
        const agrees = pairs.every(
            ([file, search]) =>
                file.startsWith(to) &&
                search.startsWith(from) &&
                file.slice(to.length) === search.slice(from.length)
        );
        if (agrees) return { from, to };
    }
    return null;
}

/** Both indents are non-empty and one uses tabs where the other uses spaces. */
function charsDiffer(search: string, file: string): boolean {
    if (search === "" || file === "") return false;
    return (
        search.includes("\t") !== file.includes("\t") || search.includes(" ") !== file.includes(" ")
    );
}

/** Tab widths to try: a pure translation (no shift) first, as the model usually only converted. */
function tabPairs(pairs: readonly IndentPair[]): Array<[number, number]> {
    const unshifted = TAB_PAIRS.filter(([fileTab, searchTab]) =>
        pairs.every(
            ([file, search]) => indentWidth(file, fileTab) === indentWidth(search, searchTab)
        )
    );
    return [...unshifted, ...TAB_PAIRS];
}

function widthMap(pairs: readonly IndentPair[]): WidthMap | null {
    const useTabs = pairs.some(([file]) => file.includes("\t"));
    for (const [fileTab, searchTab] of tabPairs(pairs)) {
        let delta: number | null = null;
        let uniform = true;
        for (const [file, search] of pairs) {
            const d = indentWidth(file, fileTab) - indentWidth(search, searchTab);
            if (delta === null) delta = d;
            else if (d !== delta) {
                uniform = false;
                break;
            }
        }
        if (!uniform) continue;
        const known = new Map<number, string>();
        for (const [file] of pairs) {
            const w = indentWidth(file, fileTab);
            if (!known.has(w)) known.set(w, file);
        }
        return { delta: delta ?? 0, fileTab, searchTab, useTabs, known };
    }
    return null;
}

/**
 * The mapping the matched lines agree on, or null when their relative
 * indentation differs (then the block is not the same block).
 */
export function findReindent(pairs: readonly IndentPair[], firstLine: boolean): Reindent | null {
    // Nothing indented to learn from: the model's characters are kept as sent.
    if (pairs.length === 0) return { from: "", to: "", firstLine };
    const rebase = stringRebase(pairs);
    // Spaces standing for tabs (or back) are a translation by width: a string
    // re-base of "    " to "\t" would leave the model's deeper lines half-converted.
    const translated = rebase !== null && charsDiffer(rebase.from, rebase.to);
    if (rebase && !translated) return { ...rebase, firstLine };
    const width = widthMap(pairs);
    if (width) return { from: "", to: "", width, firstLine };
    return rebase ? { ...rebase, firstLine } : null;
}

function renderWidth(width: number, map: WidthMap): string {
    const known = map.known.get(width);
    if (known !== undefined) return known;
    if (!map.useTabs) return " ".repeat(width);
    return "\t".repeat(Math.floor(width / map.fileTab)) + " ".repeat(width % map.fileTab);
}

/** The file's indentation for a model line indented with `indent`. */
export function shiftIndent(indent: string, reindent: Reindent): string {
    const { width, from, to } = reindent;
    if (width) {
        return renderWidth(Math.max(0, indentWidth(indent, width.searchTab) + width.delta), width);
    }
    if (indent.startsWith(from)) return to + indent.slice(from.length);
    // Less indented than the matched block: take the missing columns off the file's indent.
    const target = Math.max(
        0,
        indentWidth(to, DEFAULT_TAB) -
            indentWidth(from, DEFAULT_TAB) +
            indentWidth(indent, DEFAULT_TAB)
    );
    let kept = to;
    while (kept !== "" && indentWidth(kept, DEFAULT_TAB) > target) kept = kept.slice(0, -1);
    const pad = target - indentWidth(kept, DEFAULT_TAB);
    return (
        kept +
        (kept.includes("\t") && pad % DEFAULT_TAB === 0
            ? "\t".repeat(pad / DEFAULT_TAB)
            : " ".repeat(pad))
    );
}

/** One model line re-based; whitespace-only lines are left to the caller. */
export function reindentLine(line: string, reindent: Reindent): string {
    const indent = /^[ \t]*/.exec(line)?.[0] ?? "";
    return shiftIndent(indent, reindent) + line.slice(indent.length);
}
