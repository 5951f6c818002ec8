/**
 * gitignore patterns compiled once per file and tested one path at a time.
 *
 * The walker only enters directories it keeps, so a path is judged by the rules
 * alone, never by its parents: git's own semantics ("a file cannot be re-included
 * when its parent directory is excluded" holds because that directory is never
 * entered). Syntax as in gitignore(5) and git's wildmatch: comments, `\` escapes,
 * trailing spaces, `!` negation, trailing `/` for directories only, a `/` at the
 * start or in the middle anchoring the pattern to the file's directory, `*`, `?`,
 * `[...]` classes (never matching `/`) and `**` segments. An invalid pattern (an
 * unclosed `[`, a trailing `\`, an unknown `[:class:]`) matches nothing, as in git
 * and ripgrep.
 */

/** How one rule list judged one path. */
export const enum Verdict {
    None = 0,
    Ignore = 1,
    Whitelist = 2,
}

interface Rule {
    negate: boolean;
    dirOnly: boolean;
    /** No `/` in the pattern: it is tested against the last path component. */
    base: boolean;
    test: (subject: string) => boolean;
}

/** The compiled rules of one ignore file, in file order (the last match wins). */
export interface RuleList {
    rules: Rule[];
    /** Some rule is tested against the relative path, not just the name. */
    anchored: boolean;
    /** Some rule is a `!` negation. */
    negated: boolean;
}

const never = (): boolean => false;

const POSIX_CLASSES: Record<string, string> = {
    alnum: "a-zA-Z0-9",
    alpha: "a-zA-Z",
    blank: " \\t",
    cntrl: "\\x00-\\x1f\\x7f",
    digit: "0-9",
    graph: "\\x21-\\x7e",
    lower: "a-z",
    print: "\\x20-\\x7e",
    punct: "!-\\/:-@\\[-`{-~",
    space: " \\t\\n\\r\\f\\v",
    upper: "A-Z",
    xdigit: "0-9A-Fa-f",
};

/** `ch` as a literal outside a class ("u" mode only allows escaping syntax characters). */
function regexLiteral(ch: string): string {
    return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

/** `ch` as a literal inside a class. */
function classLiteral(ch: string): string {
    return /[\\\][^-]/.test(ch) ? `\\${ch}` : ch;
}

/** Parses `[...]` starting at `start` (the `[`): the regex and the index after `]`, or null. */
function parseClass(glob: string, start: number): { source: string; end: number } | null {
    let i = start + 1;
    let negated = false;
    if (glob[i] === "!" || glob[i] === "^") {
        negated = true;
        i++;
    }
    let body = "";
    let first = true;
    while (i < glob.length) {
        let ch = glob[i]!;
        if (ch === "]" && !first) {
            // wildmatch: a class never matches "/".
            const source = negated ? `[^/${body}]` : `(?!\\/)[${body}]`;
            return { source, end: i + 1 };
        }
        first = false;
        if (ch === "[" && glob[i + 1] === ":") {
            const close = glob.indexOf(":]", i + 2);
            if (close < 0) {
                body += classLiteral(ch);
                i++;
                continue;
            }
            const chars = POSIX_CLASSES[glob.slice(i + 2, close)];
            if (chars === undefined) return null;
            body += chars;
            i = close + 2;
            continue;
        }
        if (ch === "\\") {
            i++;
            if (i >= glob.length) return null;
            ch = glob[i]!;
        }
        i += ch.length;
        if (glob[i] === "-" && glob[i + 1] !== undefined && glob[i + 1] !== "]") {
            let hi = glob[i + 1]!;
            i += 2;
            if (hi === "\\") {
                if (i >= glob.length) return null;
                hi = glob[i]!;
                i++;
            }
            if (hi < ch) return null;
            body += `${classLiteral(ch)}-${classLiteral(hi)}`;
        } else {
            body += classLiteral(ch);
        }
    }
    return null;
}

/** A gitignore glob (no leading `/`, no trailing `/`) as an anchored regex source, or null. */
function globToRegex(glob: string): string | null {
    let out = "";
    let i = 0;
    while (i < glob.length) {
        const ch = glob[i]!;
        if (ch === "\\") {
            if (i + 1 >= glob.length) return null;
            out += regexLiteral(glob[i + 1]!);
            i += 2;
        } else if (ch === "*") {
            let end = i;
            while (glob[end] === "*") end++;
            const atSegmentStart = i === 0 || glob[i - 1] === "/";
            const next = glob[end];
            if (end - i >= 2 && atSegmentStart && next === undefined) {
                out += ".*";
            } else if (end - i >= 2 && atSegmentStart && next === "/") {
                // "**/" matches zero or more whole directories.
                out += "(?:.*\\/)?";
                end++;
            } else {
                out += "[^/]*";
            }
            i = end;
        } else if (ch === "?") {
            out += "[^/]";
            i++;
        } else if (ch === "[") {
            const parsed = parseClass(glob, i);
            if (!parsed) return null;
            out += parsed.source;
            i = parsed.end;
        } else {
            out += regexLiteral(ch);
            i++;
        }
    }
    return `^${out}$`;
}

const GLOB_CHARS = /[*?[\\]/;

/** The fastest test that means the same as `glob`. */
function compileGlob(glob: string, base: boolean): (subject: string) => boolean {
    if (!GLOB_CHARS.test(glob)) return (s) => s === glob;
    if (base && glob.startsWith("*") && !GLOB_CHARS.test(glob.slice(1))) {
        const suffix = glob.slice(1);
        return (s) => s.endsWith(suffix);
    }
    if (base && glob.endsWith("*") && !GLOB_CHARS.test(glob.slice(0, -1))) {
        const prefix = glob.slice(0, -1);
        return (s) => s.startsWith(prefix);
    }
    const source = globToRegex(glob);
    if (source === null) return never;
    let regex: RegExp;
    try {
        regex = new RegExp(source, "u");
    } catch {
        return never;
    }
    return (s) => regex.test(s);
}

/** Drops unescaped trailing spaces (git keeps "\ "). */
function trimTrailingSpaces(line: string): string {
    let end = line.length;
    while (end > 0 && line[end - 1] === " ") {
        let slashes = 0;
        for (let j = end - 2; j >= 0 && line[j] === "\\"; j--) slashes++;
        if (slashes % 2 === 1) break;
        end--;
    }
    return line.slice(0, end);
}

function parseLine(raw: string): Rule | null {
    let line = trimTrailingSpaces(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
    if (line === "" || line.startsWith("#")) return null;
    let negate = false;
    if (line.startsWith("!")) {
        negate = true;
        line = line.slice(1);
    }
    let dirOnly = false;
    if (line.endsWith("/") && !line.endsWith("\\/")) {
        dirOnly = true;
        line = line.replace(/\/+$/, "");
    }
    if (line === "") return null;
    const base = !line.includes("/");
    if (!base) line = line.replace(/^\/+/, "");
    if (line === "") return null;
    return { negate, dirOnly, base, test: compileGlob(line, base) };
}

/** Compiles the text of one ignore file; null when it has no rules. */
export function parseIgnoreFile(text: string | null): RuleList | null {
    if (text === null) return null;
    const rules: Rule[] = [];
    const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    for (const line of body.split("\n")) {
        const rule = parseLine(line);
        if (rule) rules.push(rule);
    }
    if (rules.length === 0) return null;
    return {
        rules,
        anchored: rules.some((r) => !r.base),
        negated: rules.some((r) => r.negate),
    };
}

/**
 * What `list` says about a path: `rel` relative to the list's directory (only read
 * by anchored rules), `name` its last component.
 */
export function judgeRules(list: RuleList, rel: string, name: string, isDir: boolean): Verdict {
    const rules = list.rules;
    for (let i = rules.length - 1; i >= 0; i--) {
        const rule = rules[i]!;
        if (rule.dirOnly && !isDir) continue;
        if (rule.test(rule.base ? name : rel))
            return rule.negate ? Verdict.Whitelist : Verdict.Ignore;
    }
    return Verdict.None;
}
