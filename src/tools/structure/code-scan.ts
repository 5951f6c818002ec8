/**
 * One linear pass over brace-language source that finds the structural
 * characters `{`, `}` and `;` outside comments, strings, template literals and
 * (for JavaScript) regex literals, pairs the braces, and records the brace and
 * bracket depth at the start of every line. Declarations are then measured in
 * O(1) per brace: `statementRange` finds where a declaration's body or
 * statement ends, `enclosingBlock` the innermost brace block around a line.
 *
 * No regular expressions run here, so a 1 MB minified line costs one pass.
 */

export type Dialect = "js" | "c" | "java" | "csharp" | "rust" | "go" | "php" | "css" | "scss";

/** Why a line is skipped: it starts inside a block comment or a multi-line string. */
export const SkipKind = { Comment: 1, String: 2 } as const;

/** What an event is: `{`, `}` or `;`. */
export const EventKind = { Open: 1, Close: 2, Semi: 3 } as const;
export type EventKind = (typeof EventKind)[keyof typeof EventKind];

export interface CodeScan {
    lineCount: number;
    /** Per line (0-based index): brace depth at the line start. */
    braceDepth: Int32Array;
    /** Per line: bracket depth (`(` and `[`) at the line start, restored at each `}`. */
    groupDepth: Int32Array;
    /** Per line: `SkipKind.Comment` or `SkipKind.String` when it starts inside one, else 0. */
    skip: Uint8Array;
    /** Per line: index of its first event; entry `lineCount` is the event count. */
    firstEvent: Int32Array;
    kind: Uint8Array;
    /** 1-based line of each event. */
    line: Int32Array;
    col: Int32Array;
    /** Brace depth outside the brace (Open, Close) or at the `;`. */
    depth: Int32Array;
    group: Int32Array;
    /** The matching brace event, or -1 (unclosed, or a stray `}`). */
    match: Int32Array;
    eventCount: number;
}

class IntBuffer {
    data: Int32Array;
    length = 0;
    constructor(capacity: number) {
        this.data = new Int32Array(Math.max(16, capacity));
    }
    push(value: number): void {
        if (this.length === this.data.length) {
            const next = new Int32Array(this.data.length * 2);
            next.set(this.data);
            this.data = next;
        }
        this.data[this.length++] = value;
    }
    view(): Int32Array {
        return this.data.subarray(0, this.length);
    }
}

const enum Mode {
    Normal,
    Block,
    Template,
    /** Until `term` (multi-line strings: Go/PHP backticks, Java/C# """, Rust raw and plain). */
    Term,
}

const REGEX_BEFORE = new Set("(,=:[!&|?{};+-*%<>~^".split("").map((c) => c.charCodeAt(0)));
const REGEX_WORDS = new Set([
    "return",
    "typeof",
    "case",
    "do",
    "else",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "yield",
    "await",
    "instanceof",
]);

function isIdent(c: number): boolean {
    return (
        (c >= 97 && c <= 122) ||
        (c >= 65 && c <= 90) ||
        (c >= 48 && c <= 57) ||
        c === 95 ||
        c === 36 ||
        c > 127
    );
}

function wordBefore(line: string, i: number): string {
    let end = i;
    while (end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end--;
    let start = end;
    while (start > 0 && isIdent(line.charCodeAt(start - 1))) start--;
    return line.slice(start, end);
}

/** End of a `"`/`'` string starting at `i` (index after the quote), or -1 if it runs off the line. */
function stringEnd(line: string, i: number, quote: number): number {
    for (let j = i + 1; j < line.length; j++) {
        const c = line.charCodeAt(j);
        if (c === 92) j++;
        else if (c === quote) return j + 1;
    }
    return -1;
}

/** End of a regex literal starting at `i`, or -1 when it is not one on this line. */
function regexEnd(line: string, i: number): number {
    let inClass = false;
    for (let j = i + 1; j < line.length; j++) {
        const c = line.charCodeAt(j);
        if (c === 92) j++;
        else if (c === 91) inClass = true;
        else if (c === 93) inClass = false;
        else if (c === 47 && !inClass) {
            let k = j + 1;
            while (k < line.length && isIdent(line.charCodeAt(k))) k++;
            return k;
        }
    }
    return -1;
}

/** Scans `lines` once; linear in the number of characters. */
export function scanCode(lines: readonly string[], dialect: Dialect): CodeScan {
    const n = lines.length;
    const braceDepth = new Int32Array(n + 1);
    const groupDepth = new Int32Array(n + 1);
    const skip = new Uint8Array(n + 1);
    const firstEvent = new Int32Array(n + 1);
    const cap = n * 2;
    const evKind: number[] = [];
    const evLine = new IntBuffer(cap);
    const evCol = new IntBuffer(cap);
    const evDepth = new IntBuffer(cap);
    const evGroup = new IntBuffer(cap);
    const evMatch = new IntBuffer(cap);

    const js = dialect === "js";
    const css = dialect === "css" || dialect === "scss";
    const slashComments = dialect !== "css";
    const hashComments = dialect === "php";
    const opens: number[] = [];
    const openGroups: number[] = [];
    const templates: number[] = [];
    let depth = 0;
    let group = 0;
    let mode = Mode.Normal;
    let term = "";
    let termDoubled = false;
    let lastSig = 0;

    const event = (kind: EventKind, li: number, col: number): number => {
        evKind.push(kind);
        evLine.push(li + 1);
        evCol.push(col);
        evDepth.push(depth);
        evGroup.push(group);
        evMatch.push(-1);
        return evKind.length - 1;
    };

    for (let li = 0; li < n; li++) {
        const line = lines[li]!;
        const len = line.length;
        braceDepth[li] = depth;
        groupDepth[li] = group;
        skip[li] =
            mode === Mode.Normal ? 0 : mode === Mode.Block ? SkipKind.Comment : SkipKind.String;
        firstEvent[li] = evKind.length;
        let i = 0;
        while (i < len) {
            if (mode === Mode.Block) {
                const end = line.indexOf("*/", i);
                if (end < 0) break;
                mode = Mode.Normal;
                i = end + 2;
                continue;
            }
            if (mode === Mode.Term) {
                const end = line.indexOf(term, i);
                if (end < 0) break;
                if (termDoubled && line.charCodeAt(end + 1) === 34) {
                    i = end + 2;
                    continue;
                }
                mode = Mode.Normal;
                i = end + term.length;
                continue;
            }
            if (mode === Mode.Template) {
                let j = i;
                for (; j < len; j++) {
                    const c = line.charCodeAt(j);
                    if (c === 92) j++;
                    else if (c === 96) break;
                    else if (c === 36 && line.charCodeAt(j + 1) === 123) break;
                }
                if (j >= len) break;
                if (line.charCodeAt(j) === 96) {
                    mode = Mode.Normal;
                    i = j + 1;
                } else {
                    // `${` nests like a brace (so braces inside sit deeper) but is no event.
                    templates.push(depth);
                    depth++;
                    mode = Mode.Normal;
                    i = j + 2;
                }
                lastSig = 96;
                continue;
            }
            const c = line.charCodeAt(i);
            switch (c) {
                case 32:
                case 9:
                    i++;
                    continue;
                case 47: {
                    const next = line.charCodeAt(i + 1);
                    if (next === 42) {
                        mode = Mode.Block;
                        i += 2;
                        continue;
                    }
                    if (next === 47 && slashComments) {
                        const prev = line.charCodeAt(i - 1);
                        if (!css || i === 0 || prev === 32 || prev === 9) {
                            i = len;
                            continue;
                        }
                    }
                    if (
                        js &&
                        (lastSig === 0 ||
                            REGEX_BEFORE.has(lastSig) ||
                            REGEX_WORDS.has(wordBefore(line, i)))
                    ) {
                        const end = regexEnd(line, i);
                        if (end > 0) {
                            i = end;
                            lastSig = 47;
                            continue;
                        }
                    }
                    break;
                }
                case 34:
                case 39: {
                    if (
                        c === 34 &&
                        (dialect === "java" || dialect === "csharp") &&
                        line.startsWith('"""', i)
                    ) {
                        mode = Mode.Term;
                        term = '"""';
                        termDoubled = false;
                        i += 3;
                        continue;
                    }
                    if (c === 39 && dialect === "rust") {
                        // A char literal ('x', '\n', '{') or a lifetime ('a).
                        if (line.charCodeAt(i + 1) === 92) {
                            const end = line.indexOf("'", i + 3);
                            i = end < 0 ? len : end + 1;
                        } else if (line.charCodeAt(i + 2) === 39) i += 3;
                        else i++;
                        lastSig = 39;
                        continue;
                    }
                    const end = stringEnd(line, i, c);
                    if (end < 0 && c === 34 && (dialect === "rust" || dialect === "php")) {
                        mode = Mode.Term;
                        term = '"';
                        termDoubled = false;
                        i = len;
                        continue;
                    }
                    i = end < 0 ? len : end;
                    lastSig = c;
                    continue;
                }
                case 96:
                    if (js) {
                        mode = Mode.Template;
                        i++;
                        continue;
                    }
                    if (dialect === "go" || dialect === "php") {
                        mode = Mode.Term;
                        term = "`";
                        termDoubled = false;
                        i++;
                        continue;
                    }
                    break;
                case 64:
                    if (dialect === "csharp" && line.charCodeAt(i + 1) === 34) {
                        mode = Mode.Term;
                        term = '"';
                        termDoubled = true;
                        i += 2;
                        continue;
                    }
                    break;
                case 114:
                    if (dialect === "rust" && !isIdent(line.charCodeAt(i - 1))) {
                        let k = i + 1;
                        while (line.charCodeAt(k) === 35) k++;
                        if (line.charCodeAt(k) === 34) {
                            mode = Mode.Term;
                            term = `"${"#".repeat(k - i - 1)}`;
                            termDoubled = false;
                            i = k + 1;
                            continue;
                        }
                    }
                    break;
                case 35:
                    if (hashComments && line.charCodeAt(i + 1) !== 91) {
                        i = len;
                        continue;
                    }
                    break;
                case 123: {
                    const index = event(EventKind.Open, li, i);
                    opens.push(index);
                    openGroups.push(group);
                    depth++;
                    break;
                }
                case 125: {
                    if (
                        js &&
                        templates.length > 0 &&
                        templates[templates.length - 1] === depth - 1
                    ) {
                        templates.pop();
                        depth--;
                        mode = Mode.Template;
                        i++;
                        continue;
                    }
                    if (opens.length > 0) {
                        depth--;
                        group = openGroups.pop()!;
                        const open = opens.pop()!;
                        const index = event(EventKind.Close, li, i);
                        evMatch.data[open] = index;
                        evMatch.data[index] = open;
                    }
                    break;
                }
                case 40:
                case 91:
                    group++;
                    break;
                case 41:
                case 93:
                    if (group > 0) group--;
                    break;
                case 59:
                    event(EventKind.Semi, li, i);
                    break;
            }
            lastSig = c;
            i++;
        }
    }
    braceDepth[n] = depth;
    groupDepth[n] = group;
    firstEvent[n] = evKind.length;
    return {
        lineCount: n,
        braceDepth,
        groupDepth,
        skip,
        firstEvent,
        kind: Uint8Array.from(evKind),
        line: evLine.view(),
        col: evCol.view(),
        depth: evDepth.view(),
        group: evGroup.view(),
        match: evMatch.view(),
        eventCount: evKind.length,
    };
}

/** Lines that look like the continuation of the statement above them. */
const CONTINUATION =
    /^\s*(?:[{.?:,=+\-*/%&|<>!^~]|=>|extends\b|implements\b|where\b|throws\b|as\b)/;

function indentOf(line: string): number {
    let i = 0;
    while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
    return i;
}

/** Blank or comment-only: says nothing about statements, and is no statement's last line. */
function isBlankOrComment(scan: CodeScan, lines: readonly string[], k: number): boolean {
    if (scan.skip[k] === SkipKind.Comment) return true;
    const text = lines[k]!;
    const i = indentOf(text);
    if (i === text.length) return true;
    return (
        text.charCodeAt(i) === 47 &&
        (text.charCodeAt(i + 1) === 47 || text.charCodeAt(i + 1) === 42)
    );
}

/** Blank, comment-only, or inside a string: starts no statement. */
function isFiller(scan: CodeScan, lines: readonly string[], k: number): boolean {
    return scan.skip[k] === SkipKind.String || isBlankOrComment(scan, lines, k);
}

/** How far a statement head is searched for its body or end. */
const MAX_HEAD_LINES = 300;

export interface StatementRange {
    endLine: number;
    /** The event index of the body's `{` (for an expression: its first `{`), or -1. */
    body: number;
}

interface Base {
    depth: number;
    group: number;
    indent: number;
}

/**
 * The first line after `from` that starts another statement or leaves the
 * enclosing block (`limit + 1` when none does within MAX_HEAD_LINES).
 */
function nextStatement(scan: CodeScan, lines: readonly string[], from: number, base: Base): number {
    const limit = Math.min(scan.lineCount, from + MAX_HEAD_LINES);
    for (let l = from + 1; l <= limit; l++) {
        const k = l - 1;
        if (isFiller(scan, lines, k)) continue;
        const depth = scan.braceDepth[k]!;
        const group = scan.groupDepth[k]!;
        if (depth < base.depth || (depth === base.depth && group < base.group)) return l;
        if (depth !== base.depth || group !== base.group) continue;
        const text = lines[k]!;
        if (indentOf(text) <= base.indent && !CONTINUATION.test(text.slice(0, 200))) return l;
    }
    return limit + 1;
}

export interface RangeOptions {
    /** No brace is a body: they belong to a value or a type (`type X = {…} | undefined;`). */
    expression?: boolean;
    /** A `{` after `<`, `:`, `|`, `&`, `,`, `(`, `[`, `?` or `=` opens a type or a value (TypeScript). */
    typeBraces?: boolean;
}

const TYPE_BRACE_AFTER = new Set(["<", ":", "|", "&", ",", "(", "[", "?", "="]);

/** The last non-blank character before the brace event `e` (looking up to 3 lines back). */
function charBefore(lines: readonly string[], scan: CodeScan, e: number): string {
    let k = scan.line[e]! - 1;
    let text = lines[k]!.slice(0, scan.col[e]!);
    for (let back = 0; back <= 3 && k >= 0; back++) {
        const trimmed = text.trimEnd();
        if (trimmed !== "") return trimmed[trimmed.length - 1]!;
        k--;
        text = k >= 0 ? lines[k]!.slice(-200) : "";
    }
    return "";
}

/**
 * Where the declaration or statement starting on `line` (1-based) ends: the
 * `}` of its body, its `;`, or the last line before the next statement at the
 * same or lower indentation. A `{…}` that another `{` follows on its closing
 * line (`(): { a: T } {`, `Base<{…}> {`) or that closes on its own line is part
 * of the head, not the body.
 */
export function statementRange(
    scan: CodeScan,
    lines: readonly string[],
    line: number,
    options: RangeOptions = {}
): StatementRange {
    const expression = options.expression ?? false;
    const li = line - 1;
    const base: Base = {
        depth: scan.braceDepth[li]!,
        group: scan.groupDepth[li]!,
        indent: indentOf(lines[li] ?? ""),
    };
    let inline = -1;
    let first = -1;
    let from = line;
    let e = scan.firstEvent[li]!;
    let stop = nextStatement(scan, lines, from, base);
    for (;;) {
        const lastEvent = scan.firstEvent[Math.min(stop - 1, scan.lineCount)]!;
        let resumed = false;
        for (; e < lastEvent; e++) {
            const kind = scan.kind[e]!;
            if (kind === EventKind.Close && scan.depth[e]! < base.depth) break;
            if (scan.depth[e] !== base.depth || scan.group[e] !== base.group) continue;
            if (kind === EventKind.Semi)
                return { endLine: scan.line[e]!, body: expression ? first : inline };
            if (kind !== EventKind.Open) continue;
            const close = scan.match[e]!;
            if (close < 0) return { endLine: scan.lineCount, body: e };
            const closeLine = scan.line[close]!;
            const sameLine = closeLine === scan.line[e];
            const headBrace =
                sameLine ||
                (options.typeBraces === true && TYPE_BRACE_AFTER.has(charBefore(lines, scan, e))) ||
                (close + 1 < scan.eventCount &&
                    scan.kind[close + 1] === EventKind.Open &&
                    scan.line[close + 1] === closeLine &&
                    scan.depth[close + 1] === base.depth &&
                    scan.group[close + 1] === base.group);
            if (!expression && !headBrace) return { endLine: closeLine, body: e };
            if (first < 0) first = e;
            if (sameLine && !expression) inline = e;
            e = close;
            if (closeLine >= stop) {
                // The braces ran past the statement's first guess: look again after them.
                from = closeLine;
                stop = nextStatement(scan, lines, from, base);
                e++;
                resumed = true;
                break;
            }
        }
        if (!resumed) break;
    }
    if (inline >= 0) return { endLine: scan.line[inline]!, body: inline };
    let end = Math.min(stop - 1, scan.lineCount);
    while (end > from && isBlankOrComment(scan, lines, end - 1)) end--;
    return { endLine: Math.max(line, end), body: expression ? first : -1 };
}

export interface BraceBlock {
    /** Event index of the `{`. */
    open: number;
    startLine: number;
    endLine: number;
}

/**
 * The innermost multi-line brace block holding `line`: one opened on the line
 * itself (its header), else the block the line starts in.
 */
export function enclosingBlock(scan: CodeScan, line: number): BraceBlock | null {
    const li = line - 1;
    const blockOf = (open: number): BraceBlock => {
        const close = scan.match[open]!;
        return {
            open,
            startLine: scan.line[open]!,
            endLine: close < 0 ? scan.lineCount : scan.line[close]!,
        };
    };
    for (let e = scan.firstEvent[li + 1]! - 1; e >= scan.firstEvent[li]!; e--) {
        if (scan.kind[e] !== EventKind.Open) continue;
        const close = scan.match[e]!;
        if (close < 0 || scan.line[close]! > line) return blockOf(e);
    }
    const depth = scan.braceDepth[li]!;
    if (depth === 0) return null;
    // The last `{` before this line that is still open here: at depth - 1, walking back.
    let pending = 0;
    for (let e = scan.firstEvent[li]! - 1; e >= 0; e--) {
        const kind = scan.kind[e]!;
        if (kind === EventKind.Close) pending++;
        else if (kind === EventKind.Open) {
            if (pending === 0) return blockOf(e);
            pending--;
        }
    }
    return null;
}
