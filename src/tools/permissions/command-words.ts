/**
 * Words of a parsed command, after quote removal. A word whose value is only
 * known when the shell runs (an expansion, a glob, brace expansion) is
 * dynamic: it never satisfies a literal position of an allow rule and may
 * match anything for a deny rule.
 */
import type { SyntaxNode } from "./bash-parser";
import { escapeGlob, globExpands } from "./shell-glob-text";

export interface Word {
    /** The value after quote removal; for a dynamic word, the source text. */
    value: string;
    dynamic: boolean;
    /**
     * For a word only brace, tilde or pathname expansion changes (`.[g]it`,
     * `{a,b}`, `~user/x`): its text with quoted characters backslash-escaped,
     * to match as a pattern (`shell-globs.ts`). Absent for other dynamic words.
     */
    glob?: string;
}

export function literalWord(value: string): Word {
    return { value, dynamic: false };
}

/** Unquoted `*`, `?`, `[` make a word a glob (backslash-escaped ones are literal). */
function unescapeUnquoted(text: string): { value: string; glob: boolean } {
    let value = "";
    let glob = false;
    for (let i = 0; i < text.length; i++) {
        const ch = text[i]!;
        if (ch === "\\") {
            const next = text[i + 1];
            i++;
            // A backslash-newline is a line continuation: both disappear.
            if (next !== undefined && next !== "\n") value += next;
            continue;
        }
        // A `[` without a closing `]` (the `[` command) is literal.
        if (ch === "*" || ch === "?" || (ch === "[" && text.includes("]", i))) glob = true;
        value += ch;
    }
    return { value, glob };
}

/** Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and newline. */
function unescapeDoubleQuoted(text: string): string {
    return text.replace(/\\([$`"\\\n])/g, (_match, ch: string) => (ch === "\n" ? "" : ch));
}

const ANSI_C_SIMPLE: Record<string, string> = {
    n: "\n",
    t: "\t",
    r: "\r",
    a: "\x07",
    b: "\b",
    e: "\x1b",
    E: "\x1b",
    f: "\f",
    v: "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
};

/** Resolves `$'...'`; null when it uses an escape this does not model (then the word is dynamic). */
export function resolveAnsiC(body: string): string | null {
    let out = "";
    for (let i = 0; i < body.length; i++) {
        const ch = body[i]!;
        if (ch !== "\\") {
            out += ch;
            continue;
        }
        const next = body[i + 1];
        if (next === undefined) return null;
        if (next in ANSI_C_SIMPLE) {
            out += ANSI_C_SIMPLE[next];
            i++;
            continue;
        }
        const hex = /^x([0-9a-fA-F]{1,2})/.exec(body.slice(i + 1));
        const unicode = /^[uU]([0-9a-fA-F]{1,8})/.exec(body.slice(i + 1));
        const octal = /^([0-7]{1,3})/.exec(body.slice(i + 1));
        const match = hex ?? unicode ?? octal;
        if (!match) return null;
        const code = parseInt(match[1]!, octal && match === octal ? 8 : 16);
        if (code > 0x10ffff) return null;
        out += String.fromCodePoint(code);
        i += match[0].length;
    }
    return out;
}

/** `{a,b}` and `{1..3}` expand into several words. */
const BRACE_EXPANSION = /\{[^{}]*(,|\.\.)[^{}]*\}/;

/**
 * A word's glob text (see `Word.glob`), or null when an expansion other than
 * brace, tilde and pathname expansion is in it. One decision for every word:
 * the grammar splits `.[g]it` into several nodes, so it is made on the whole.
 */
function globTextOf(node: SyntaxNode): string | null {
    switch (node.type) {
        case "word":
        case "number":
            return node.text.replace(/\\\n/g, "");
        // `{1..3}`: the grammar's own node for a numeric sequence.
        case "brace_expression":
            return /^\{-?\d+\.\.-?\d+\}$/.test(node.text) ? node.text : null;
        case "raw_string":
            return escapeGlob(node.text.slice(1, -1));
        case "ansi_c_string": {
            const resolved = resolveAnsiC(node.text.slice(2, -1));
            return resolved === null ? null : escapeGlob(resolved);
        }
        case "string":
        case "translated_string": {
            let text = "";
            for (const child of node.namedChildren) {
                if (!child || child.type !== "string_content") return null;
                text += unescapeDoubleQuoted(child.text);
            }
            return escapeGlob(text);
        }
        case "concatenation": {
            let text = "";
            for (const child of node.namedChildren) {
                const part = child ? globTextOf(child) : "";
                if (part === null) return null;
                text += part;
            }
            return text;
        }
        default:
            return null;
    }
}

/**
 * Whether expansion changes a word's glob text. `~` and `~/…` alone are
 * not counted: they name the home folder, which the judges resolve.
 */
function expandsBeyondHome(glob: string): boolean {
    const home = /^~(\/|$)/.exec(glob);
    return globExpands(home ? glob.slice(1) : glob);
}

/** Evaluates one argument node; `dynamic` when its value depends on the running shell. */
export function evaluateWord(node: SyntaxNode): Word {
    const source = node.text;
    const dynamic = { value: source, dynamic: true };
    const glob = globTextOf(node);
    if (glob !== null && expandsBeyondHome(glob)) return { value: source, dynamic: true, glob };
    switch (node.type) {
        case "word":
        case "number": {
            if (BRACE_EXPANSION.test(source)) return dynamic;
            if (/^~[^/]/.test(source)) return dynamic;
            const { value, glob } = unescapeUnquoted(source);
            return glob ? dynamic : { value, dynamic: false };
        }
        case "raw_string":
            return { value: source.slice(1, -1), dynamic: false };
        case "ansi_c_string": {
            const resolved = resolveAnsiC(source.slice(2, -1));
            return resolved === null ? dynamic : { value: resolved, dynamic: false };
        }
        case "string":
        case "translated_string": {
            let value = "";
            for (const child of node.namedChildren) {
                if (!child) continue;
                if (child.type !== "string_content") return dynamic;
                value += unescapeDoubleQuoted(child.text);
            }
            return { value, dynamic: false };
        }
        case "concatenation": {
            if (BRACE_EXPANSION.test(source)) return dynamic;
            let value = "";
            for (const child of node.namedChildren) {
                if (!child) continue;
                const part = evaluateWord(child);
                if (part.dynamic) return dynamic;
                value += part.value;
            }
            // `{}` is literal, but the grammar splits it into two word children.
            return { value, dynamic: false };
        }
        default:
            // Expansions, substitutions, arithmetic, brace and extglob patterns.
            return dynamic;
    }
}

/** The command words as a reader would write them, for messages and `uncovered`. */
export function wordsText(words: readonly Word[]): string {
    return words
        .map((word) =>
            word.dynamic || /^[\w@%+=:,./-]+$/.test(word.value)
                ? word.value
                : `'${word.value.replace(/'/g, `'\\''`)}'`
        )
        .join(" ");
}

/**
 * The first character a reader would not see: C0 controls other than tab and
 * newline, DEL, C1 controls, and (unless `controlsOnly`) zero-width and bidi
 * formatting characters. Null when there is none.
 */
export function findHiddenCharacter(text: string, controlsOnly = false): string | null {
    for (const ch of text) {
        const code = ch.codePointAt(0)!;
        const control =
            (code < 0x20 && ch !== "\t" && ch !== "\n") || (code >= 0x7f && code <= 0x9f);
        const format =
            (code >= 0x200b && code <= 0x200f) ||
            (code >= 0x202a && code <= 0x202e) ||
            (code >= 0x2060 && code <= 0x2069) ||
            code === 0xfeff;
        if (control || (!controlsOnly && format)) return ch;
    }
    return null;
}
