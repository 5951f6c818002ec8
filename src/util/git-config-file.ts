/**
 * Reads a git config file as text, the way git parses it, without running git
 * (a repository's config may name programs, and reading must run none).
 * Sections `[core]`, `[diff "x"]` and the old `[diff.x]`; `key = value`, a bare
 * `key` (true); quotes, the escapes `\n \t \b \" \\`, a `\` line continuation,
 * `#` and `;` comments. Section and key names are lower-cased, subsections
 * kept as written, as git compares them.
 */

export interface GitConfigEntry {
    /** `section.key` or `section.subsection.key`, names lower-cased. */
    key: string;
    /** The value as git would see it (a bare key is "true"). */
    value: string;
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", b: "\b", '"': '"', "\\": "\\" };

/** Parses a section header at `at` (the `[`); returns the section name and where the line goes on. */
function parseHeader(text: string, at: number): { section: string; next: number } | null {
    const close = text.indexOf("]", at);
    const newline = text.indexOf("\n", at);
    if (close < 0 || (newline >= 0 && newline < close && !text.slice(at, close).includes('"'))) {
        return null;
    }
    const inner = text.slice(at + 1, close);
    const quote = inner.indexOf('"');
    if (quote < 0) {
        // `[section]` or the old `[section.subsection]` (the subsection lower-cased too).
        return { section: inner.trim().toLowerCase(), next: close + 1 };
    }
    // `[section "sub"]`: the subsection runs to the closing quote, with \" and \\ escapes.
    let sub = "";
    let i = at + 1 + quote + 1;
    for (; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === "\n") return null;
        if (text[i] === "\\" && i + 1 < text.length) i++;
        sub += text[i];
    }
    const end = text.indexOf("]", i);
    if (end < 0) return null;
    return { section: `${inner.slice(0, quote).trim().toLowerCase()}.${sub}`, next: end + 1 };
}

/** Parses a value from `at` to its end of line; returns it and the index after the line. */
function parseValue(text: string, at: number): { value: string; next: number } {
    let value = "";
    let quoted = false;
    // Whitespace is kept only between words, never trailing (outside quotes).
    let pendingSpace = "";
    let i = at;
    for (; i < text.length; i++) {
        const c = text[i]!;
        if (c === "\n" && !quoted) break;
        if (c === "\r" && text[i + 1] === "\n" && !quoted) break;
        if (!quoted && (c === "#" || c === ";")) {
            i = text.indexOf("\n", i);
            if (i < 0) i = text.length;
            break;
        }
        if (c === "\\") {
            const n = text[i + 1];
            if (n === "\n") {
                i++;
                continue;
            }
            if (n === "\r" && text[i + 2] === "\n") {
                i += 2;
                continue;
            }
            if (n !== undefined && ESCAPES[n] !== undefined) {
                value += pendingSpace + ESCAPES[n];
                pendingSpace = "";
                i++;
                continue;
            }
            value += pendingSpace + c;
            pendingSpace = "";
            continue;
        }
        if (c === '"') {
            quoted = !quoted;
            value += pendingSpace;
            pendingSpace = "";
            continue;
        }
        if (!quoted && (c === " " || c === "\t")) {
            if (value !== "") pendingSpace += c;
            continue;
        }
        value += pendingSpace + c;
        pendingSpace = "";
    }
    return { value, next: i };
}

/** Every entry of a git config file's text, in order. Lines it cannot read are skipped. */
export function parseGitConfig(text: string): GitConfigEntry[] {
    const entries: GitConfigEntry[] = [];
    let section = "";
    let i = 0;
    while (i < text.length) {
        const c = text[i]!;
        if (c === "\n" || c === "\r" || c === " " || c === "\t") {
            i++;
            continue;
        }
        if (c === "#" || c === ";") {
            const eol = text.indexOf("\n", i);
            i = eol < 0 ? text.length : eol + 1;
            continue;
        }
        if (c === "[") {
            const header = parseHeader(text, i);
            if (header) {
                section = header.section;
                i = header.next;
                continue;
            }
        }
        const name = /^[A-Za-z][A-Za-z0-9-]*/.exec(text.slice(i, i + 256));
        if (!name || section === "") {
            const eol = text.indexOf("\n", i);
            i = eol < 0 ? text.length : eol + 1;
            continue;
        }
        const key = `${section}.${name[0].toLowerCase()}`;
        i += name[0].length;
        while (text[i] === " " || text[i] === "\t") i++;
        if (text[i] === "=") {
            const { value, next } = parseValue(text, i + 1);
            entries.push({ key, value });
            i = next;
        } else {
            entries.push({ key, value: "true" });
            const eol = text.indexOf("\n", i);
            i = eol < 0 ? text.length : eol + 1;
        }
    }
    return entries;
}

/** `\`, `"` and control characters as git reads them back inside quotes. */
function quoteGitValue(value: string): string {
    const escaped = value
        .replace(/\\/g, "\\\\")
        .replace(/"/g, '\\"')
        .replace(/\n/g, "\\n")
        .replace(/\t/g, "\\t")
        .replaceAll("\b", "\\b");
    return `"${escaped}"`;
}

/**
 * A config file's text holding `entries` (as parseGitConfig gives them): what git
 * reads back is the same keys and values, in order; comments and layout are not kept.
 */
export function formatGitConfig(entries: readonly GitConfigEntry[]): string {
    let text = "";
    let header = "";
    for (const { key, value } of entries) {
        const first = key.indexOf(".");
        const last = key.lastIndexOf(".");
        if (first <= 0 || last === key.length - 1) continue;
        const section = key.slice(0, first);
        const name = key.slice(last + 1);
        const sub = first === last ? undefined : key.slice(first + 1, last);
        const next =
            sub === undefined
                ? `[${section}]`
                : `[${section} "${sub.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"]`;
        if (next !== header) {
            text += `${next}\n`;
            header = next;
        }
        text += `\t${name} = ${quoteGitValue(value)}\n`;
    }
    return text;
}
