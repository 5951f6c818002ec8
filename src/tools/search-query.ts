/**
 * One search query, two engines. The query language is JavaScript regex syntax
 * (the `u` flag, plus `s` so `.` matches `\r` as in ripgrep), checked with `RegExp`.
 * For ripgrep it is translated to an equivalent Rust regex: `\d \w \s \b` become the
 * ASCII/JS sets they mean in JavaScript, escapes become `\x{...}`, and literal
 * punctuation is escaped the way Rust accepts. Constructs Rust lacks (lookaround,
 * backreferences, `\p{..}`) get no translation, so that search runs in JavaScript:
 * both engines always mean the same thing.
 */

export interface SearchQuery {
    /** Matches one line (without its `\n`); stateless (no `g` flag). */
    regex: RegExp;
    /** Case-sensitive literal (fast path), or null. */
    literal: string | null;
    /** Whole-file prefilter: a file with a matching line also matches this. Null: none. */
    prefilter: RegExp | null;
    /** Rust regex for ripgrep, or null when only the JS engine can run this query. */
    rust: string | null;
    /** ripgrep must decode files (`--encoding utf-8`): the query can match U+FFFD. */
    transcode: boolean;
    caseSensitive: boolean;
}

export type QueryResult = { ok: true; query: SearchQuery } | { ok: false; message: string };

/** JavaScript's `\s`: WhiteSpace and LineTerminator code points, in Rust class syntax (no `\n`). */
const JS_SPACE =
    "\\t\\x0B\\x0C\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
const JS_WORD = "0-9A-Za-z_";

/** Syntax characters that may be escaped under the `u` flag. */
const U_SYNTAX = new Set("^$\\.*+?()[]{}|/");
/** Characters Rust's regex parser treats as meta (escaping them is always allowed). */
const RUST_META = new Set("\\.+*?()|[]{}^$#&-~");

class Untranslatable extends Error {}

function hex(code: number): string {
    return `\\x{${code.toString(16).toUpperCase()}}`;
}

/** A code point as a Rust literal (inside or outside a class). */
function rustChar(code: number): string {
    if (code < 0x20 || code === 0x7f || (code >= 0xd800 && code <= 0xdfff)) return hex(code);
    const ch = String.fromCodePoint(code);
    return RUST_META.has(ch) ? `\\${ch}` : ch;
}

/** Drops backslashes before ASCII punctuation that the `u` flag would reject (`\"`, `\:`, `\-`). */
function relaxEscapes(pattern: string): string {
    let out = "";
    let inClass = false;
    for (let i = 0; i < pattern.length; i++) {
        const ch = pattern[i]!;
        if (ch === "\\" && i + 1 < pattern.length) {
            const next = pattern[i + 1]!;
            const punct = /[!-/:-@[-`{-~]/.test(next);
            const allowed = U_SYNTAX.has(next) || (inClass && next === "-");
            out += punct && !allowed ? next : ch + next;
            i++;
            continue;
        }
        if (ch === "[" && !inClass) inClass = true;
        else if (ch === "]" && inClass) inClass = false;
        out += ch;
    }
    return out;
}

/** Translates a valid `u`-flag JavaScript pattern to Rust regex syntax. */
class Translator {
    private i = 0;
    /**
     * The pattern can match U+FFFD (`.`, a negated set, a range over it). Only then
     * must ripgrep transcode (`--encoding utf-8`) so invalid UTF-8 reads as U+FFFD,
     * as it does in JavaScript; otherwise raw bytes give the same matches, faster.
     */
    matchesReplacement = false;
    constructor(private readonly src: string) {}

    private literal(code: number): string {
        if (code === 0xfffd) this.matchesReplacement = true;
        return rustChar(code);
    }

    private set(item: { set: string; negated: boolean }, inClass: boolean): string {
        if (item.negated) {
            this.matchesReplacement = true;
            return `[^${item.set}]`;
        }
        return inClass ? item.set : `[${item.set}]`;
    }

    run(): string {
        let out = "";
        while (this.i < this.src.length) out += this.atom();
        return out;
    }

    private peek(offset = 0): string {
        return this.src[this.i + offset] ?? "";
    }

    private codePoint(): number {
        const code = this.src.codePointAt(this.i)!;
        this.i += code > 0xffff ? 2 : 1;
        return code;
    }

    private atom(): string {
        const ch = this.peek();
        switch (ch) {
            case "\\":
                return this.escape();
            case "[":
                return this.charClass();
            case "(":
                return this.group();
            case "{": {
                const end = this.src.indexOf("}", this.i);
                const text = this.src.slice(this.i, end + 1);
                this.i = end + 1;
                return text;
            }
            case ".":
                this.matchesReplacement = true;
                this.i++;
                return ch;
            case "^":
            case "$":
            case "|":
            case ")":
            case "*":
            case "+":
            case "?":
                this.i++;
                return ch;
            default:
                return this.literal(this.codePoint());
        }
    }

    private group(): string {
        this.i++;
        if (this.peek() !== "?") return "(";
        const next = this.peek(1);
        if (next === ":") {
            this.i += 2;
            return "(?:";
        }
        if (next === "<" && this.peek(2) !== "=" && this.peek(2) !== "!") {
            const end = this.src.indexOf(">", this.i);
            this.i = end + 1;
            return "(";
        }
        throw new Untranslatable("lookaround");
    }

    /** An escape outside a class, in Rust syntax. */
    private escape(): string {
        const next = this.peek(1);
        if (next === "b" || next === "B") {
            this.i += 2;
            return `(?-u:\\${next})`;
        }
        const item = this.escapeItem(false);
        return "code" in item ? this.literal(item.code) : this.set(item, false);
    }

    /** Reads an escape: one code point, or a set of them (Rust class contents). */
    private escapeItem(inClass: boolean): ClassItem {
        this.i++;
        const ch = this.peek();
        this.i++;
        switch (ch) {
            case "d":
            case "D":
                return { set: "0-9", negated: ch === "D" };
            case "w":
            case "W":
                return { set: JS_WORD, negated: ch === "W" };
            case "s":
            case "S":
                return { set: ch === "S" ? `\\n${JS_SPACE}` : JS_SPACE, negated: ch === "S" };
            case "b":
                if (inClass) return { code: 8 };
                break;
            case "t":
                return { code: 9 };
            case "r":
                return { code: 13 };
            case "v":
                return { code: 0x0b };
            case "f":
                return { code: 0x0c };
            case "n":
                // A line never contains "\n", and ripgrep rejects it outright.
                throw new Untranslatable("newline");
            case "0":
                return { code: 0 };
            case "c":
                return { code: this.src.charCodeAt(this.i++) % 32 };
            case "x": {
                const code = parseInt(this.src.slice(this.i, this.i + 2), 16);
                this.i += 2;
                return { code };
            }
            case "u":
                return { code: this.unicodeEscape() };
            case "p":
            case "P":
                throw new Untranslatable("property");
        }
        if (/[1-9k]/.test(ch)) throw new Untranslatable("backreference");
        return { code: ch.codePointAt(0)! };
    }

    private unicodeEscape(): number {
        if (this.peek() === "{") {
            const end = this.src.indexOf("}", this.i);
            const code = parseInt(this.src.slice(this.i + 1, end), 16);
            this.i = end + 1;
            return code;
        }
        const code = parseInt(this.src.slice(this.i, this.i + 4), 16);
        this.i += 4;
        if (code >= 0xd800 && code <= 0xdbff && this.src.startsWith("\\u", this.i)) {
            const low = parseInt(this.src.slice(this.i + 2, this.i + 6), 16);
            if (low >= 0xdc00 && low <= 0xdfff) {
                this.i += 6;
                return 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
            }
        }
        return code;
    }

    private charClass(): string {
        this.i++;
        let out = "[";
        if (this.peek() === "^") {
            out += "^";
            this.i++;
            this.matchesReplacement = true;
        }
        if (this.peek() === "]") throw new Untranslatable("empty class");
        const items: (ClassItem | "-")[] = [];
        while (this.i < this.src.length && this.peek() !== "]") {
            if (this.peek() === "\\") items.push(this.escapeItem(true));
            else if (this.peek() === "-") {
                this.i++;
                items.push("-");
            } else items.push({ code: this.codePoint() });
        }
        this.i++;
        for (let k = 0; k < items.length; k++) {
            const item = items[k]!;
            const dash = items[k + 1];
            const high = items[k + 2];
            if (
                item !== "-" &&
                "code" in item &&
                dash === "-" &&
                high &&
                high !== "-" &&
                "code" in high
            ) {
                if (item.code <= 0xfffd && high.code >= 0xfffd) this.matchesReplacement = true;
                out += `${rustChar(item.code)}-${rustChar(high.code)}`;
                k += 2;
            } else if (item === "-") out += "\\-";
            else if ("code" in item) out += this.literal(item.code);
            else out += this.set(item, true);
        }
        return `${out}]`;
    }
}

type ClassItem = { code: number } | { set: string; negated: boolean };

function escapeForRegExp(text: string): string {
    return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/**
 * Compiles a query. `regex: false` matches `text` literally. A message is returned
 * for an invalid regex (the JavaScript engine's wording).
 */
export function compileQuery(text: string, regex: boolean, caseSensitive: boolean): QueryResult {
    let pattern = regex ? text : escapeForRegExp(text);
    let sensitive = caseSensitive;
    if (regex && pattern.startsWith("(?i)")) {
        pattern = pattern.slice(4);
        sensitive = false;
    }
    if (regex) pattern = relaxEscapes(pattern);
    const flags = sensitive ? "su" : "isu";
    let compiled: RegExp;
    try {
        compiled = new RegExp(pattern, flags);
    } catch (error) {
        return { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    let rust: string | null;
    let transcode = false;
    try {
        const translator = new Translator(pattern);
        rust = translator.run();
        if (!sensitive) rust = `(?i)${rust}`;
        transcode = translator.matchesReplacement;
    } catch (error) {
        if (!(error instanceof Untranslatable)) throw error;
        rust = null;
    }
    const lookaround = /\(\?<?[=!]/.test(pattern);
    return {
        ok: true,
        query: {
            regex: compiled,
            literal: !regex && sensitive ? text : null,
            prefilter: lookaround ? null : new RegExp(pattern, `${flags}m`),
            rust,
            transcode,
            caseSensitive: sensitive,
        },
    };
}
