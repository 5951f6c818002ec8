/**
 * Syntax colour for code blocks and diffs, by meaning (the theme's syntax*
 * colours). The grammars (highlight.js, highlight-engine.ts) load after the
 * first frame; until then, for a language no grammar knows and for a block
 * longer than MAX_HIGHLIGHT_LINES, code is drawn plain, as before.
 *
 * A block that streams in is not highlighted again from its top on every
 * delta: the stretch of completed lines that ended outside any string or
 * comment is kept, and only the lines after it are highlighted (the open last
 * line is done again each time).
 */
import type { ThemeColor } from "../theme";
import type { Ansi } from "./ansi";

export type SyntaxColor = Extract<ThemeColor, `syntax${string}` | "diffAdd" | "diffRemove">;

export interface CodeToken {
    text: string;
    /** Absent: the text around tokens (identifiers, punctuation). */
    color?: SyntaxColor;
}

export type CodeLine = readonly CodeToken[];

/** Changed character ranges [from, to) of a removed line and of the added line paired with it. */
export interface WordSpans {
    removed: Array<[number, number]>;
    added: Array<[number, number]>;
}

export interface HighlightEngine {
    knows(language: string): boolean;
    /** One token list per line of `code`; `closed`: it ended outside any string or comment. */
    highlight(code: string, language: string): { lines: CodeLine[]; closed: boolean };
    wordSpans(before: string, after: string): WordSpans;
}

/**
 * Longer blocks stay plain: highlight.js's TypeScript grammar takes 60–125 ms
 * per 1,000 dense lines (`npm run bench -- highlight`), so a 10,000-line block
 * would hold the chat for a second; a block that streams in is highlighted as
 * it grows, a block that arrives whole at once.
 */
export const MAX_HIGHLIGHT_LINES = 1_000;
/** Word marks only for lines up to this long, and pairs whose lengths differ at most 3×. */
export const MAX_WORD_DIFF_CHARS = 500;
/**
 * Completed stretches kept, most recently used first: an answer is drawn
 * whole on every delta, so each of its blocks needs its own.
 */
const MAX_MEMOS = 64;

interface BlockMemo {
    language: string;
    /** Completed lines, each ending "\n", highlighted and closed. */
    text: string;
    lines: CodeLine[];
}

function countLines(code: string): number {
    let n = 1;
    for (let i = code.indexOf("\n"); i !== -1; i = code.indexOf("\n", i + 1)) n++;
    return n;
}

/** The loaded grammars with the completed stretches of the blocks that grow. */
class Highlighter {
    private readonly memos: BlockMemo[] = [];

    constructor(private readonly engine: HighlightEngine) {}

    knows(language: string): boolean {
        return this.engine.knows(language);
    }

    code(code: string, language: string): CodeLine[] | null {
        if (countLines(code) > MAX_HIGHLIGHT_LINES) return null;
        const base = this.memoFor(code, language);
        const done = base?.lines ?? [];
        const rest = code.slice(base?.text.length ?? 0);
        const cut = rest.lastIndexOf("\n") + 1;
        if (cut > 0) {
            const complete = this.engine.highlight(rest.slice(0, cut), language);
            if (complete.closed) {
                // The text ends "\n": its last token line is the empty one after it.
                const lines = [...done, ...complete.lines.slice(0, -1)];
                const text = code.slice(0, code.length - rest.length + cut);
                this.remember({ language, text, lines }, base);
                const open = rest.slice(cut);
                if (open === "") return [...lines, []];
                return [...lines, ...this.engine.highlight(open, language).lines];
            }
        }
        // The new lines end inside a string or comment: done again with the open line.
        return [...done, ...this.engine.highlight(rest, language).lines];
    }

    spans(before: string, after: string): WordSpans {
        return this.engine.wordSpans(before, after);
    }

    /** The memo that covers the longest start of `code`, if any. */
    private memoFor(code: string, language: string): BlockMemo | undefined {
        let best: BlockMemo | undefined;
        for (const memo of this.memos) {
            if (memo.language !== language || !code.startsWith(memo.text)) continue;
            if (!best || memo.text.length > best.text.length) best = memo;
        }
        if (best && this.memos[0] !== best) {
            this.memos.splice(this.memos.indexOf(best), 1);
            this.memos.unshift(best);
        }
        return best;
    }

    private remember(memo: BlockMemo, replaced: BlockMemo | undefined): void {
        if (replaced) this.memos.splice(this.memos.indexOf(replaced), 1);
        this.memos.unshift(memo);
        if (this.memos.length > MAX_MEMOS) this.memos.length = MAX_MEMOS;
    }
}

let highlighter: Highlighter | null = null;
let loading: Promise<void> | null = null;

/** Loads the grammars (once). */
export function loadHighlighter(): Promise<void> {
    loading ??= import("./highlight-engine").then((module) => {
        highlighter = new Highlighter(module.createHighlightEngine());
    });
    return loading;
}

/** 0 until the grammars are loaded, 1 after. */
export function highlighterGeneration(): number {
    return highlighter ? 1 : 0;
}

/** True when `language` (a fence name, alias or extension) has a grammar loaded. */
export function knowsLanguage(language: string | undefined): boolean {
    return language !== undefined && language !== "" && (highlighter?.knows(language) ?? false);
}

/**
 * `code` as token lines (one per line), or null when it is drawn plain (not
 * loaded yet, unknown language, too long).
 */
export function highlightCode(code: string, language: string | undefined): CodeLine[] | null {
    if (!highlighter || language === undefined || !knowsLanguage(language)) return null;
    return highlighter.code(code, language);
}

/**
 * The changed ranges of a removed line and its added counterpart, or null
 * when marking them says nothing (too long, too unequal, all changed) or the
 * highlighter is not loaded.
 */
export function changedSpans(before: string, after: string): WordSpans | null {
    if (!highlighter) return null;
    const [short, long] = [before.length, after.length].sort((a, b) => a - b) as [number, number];
    if (short === 0 || long > MAX_WORD_DIFF_CHARS || long > short * 3) return null;
    const spans = highlighter.spans(before, after);
    const changed = (ranges: Array<[number, number]>) =>
        ranges.reduce((sum, [from, to]) => sum + to - from, 0);
    // Nothing in common, or nothing changed: whole-line colour says it already.
    if (changed(spans.added) >= after.length || changed(spans.removed) >= before.length)
        return null;
    if (spans.added.length === 0 && spans.removed.length === 0) return null;
    return spans;
}

/** The grammar name a file path suggests: its extension, or the file name (Dockerfile, Makefile). */
export function languageOfPath(path: string): string {
    const name = path.split(/[\\/]/).at(-1) ?? path;
    const dot = name.lastIndexOf(".");
    return (dot > 0 ? name.slice(dot + 1) : name).toLowerCase();
}

/**
 * A token line as ANSI: tokens in their colour, the text around them in
 * `base` (none: the terminal's own colour); ranges in `marks` drawn inverse
 * in `base` (the changed words of a diff line).
 */
export function paintLine(
    line: CodeLine,
    ansi: Ansi,
    base?: ThemeColor,
    marks: ReadonlyArray<[number, number]> = []
): string {
    const colour = (color: ThemeColor | undefined, text: string): string =>
        color ? ansi.fg(color, text) : text;
    let out = "";
    let at = 0;
    for (const token of line) {
        const end = at + token.text.length;
        let from = at;
        for (const [markFrom, markTo] of marks) {
            if (markTo <= from || markFrom >= end) continue;
            const start = Math.max(from, markFrom);
            const stop = Math.min(end, markTo);
            if (start > from)
                out += colour(token.color ?? base, token.text.slice(from - at, start - at));
            out += ansi.inverse(colour(base, token.text.slice(start - at, stop - at)));
            from = stop;
        }
        if (from < end) out += colour(token.color ?? base, token.text.slice(from - at));
        at = end;
    }
    return out;
}
