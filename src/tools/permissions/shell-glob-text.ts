/**
 * A word's glob text (quoted characters backslash-escaped: `'*'x[ab]` is
 * `\*x[ab]`): whether bash's brace, tilde or pathname expansion changes it,
 * and its brace expansion. Light on purpose: the launch path validates rule
 * patterns through `command-words.ts`, which needs only this.
 */

/** Brace expansion beyond this many words is not followed (the word is then unknown). */
const MAX_ALTERNATIVES = 64;

/** Escapes text that bash would not expand (quoted, or a literal from elsewhere). */
export function escapeGlob(text: string): string {
    return text.replace(/[\\*?[\]{},~]/g, "\\$&");
}

/** The index of the `]` closing a bracket expression opened at `open`, or -1. */
export function bracketEnd(text: string, open: number): number {
    let i = open + 1;
    if (text[i] === "!" || text[i] === "^") i++;
    // A `]` first in the set is a member, not the end.
    if (text[i] === "]") i++;
    for (; i < text.length; i++) {
        const ch = text[i];
        if (ch === "\\") i++;
        else if (ch === "[" && /^\[[:=.]/.test(text.slice(i))) {
            const close = text.indexOf(`${text[i + 1]}]`, i + 2);
            if (close < 0) return -1;
            i = close + 1;
        } else if (ch === "]") return i;
    }
    return -1;
}

/** The `}` closing a brace expansion opened at `open`, with whether it expands (a top-level `,` or `..`). */
function braceEnd(text: string, open: number): { end: number; expands: boolean } | null {
    let depth = 0;
    let comma = false;
    for (let i = open; i < text.length; i++) {
        const ch = text[i];
        if (ch === "\\") i++;
        else if (ch === "{") depth++;
        else if (ch === "}") {
            depth--;
            if (depth === 0) {
                const body = text.slice(open + 1, i);
                const sequence = /^(-?\d+\.\.-?\d+|[A-Za-z]\.\.[A-Za-z])(\.\.-?\d+)?$/.test(body);
                return { end: i, expands: comma || sequence };
            }
        } else if (ch === "," && depth === 1) comma = true;
    }
    return null;
}

/** Whether expansion can change the word: an unescaped glob, brace or leading tilde. */
export function globExpands(glob: string): boolean {
    if (glob.startsWith("~")) return true;
    for (let i = 0; i < glob.length; i++) {
        const ch = glob[i];
        if (ch === "\\") i++;
        else if (ch === "*" || ch === "?") return true;
        else if (ch === "[" && bracketEnd(glob, i) > 0) return true;
        else if (ch === "{" && braceEnd(glob, i)?.expands) return true;
    }
    return false;
}

function splitTopLevel(body: string): string[] {
    const parts: string[] = [];
    let depth = 0;
    let start = 0;
    for (let i = 0; i < body.length; i++) {
        const ch = body[i];
        if (ch === "\\") i++;
        else if (ch === "{") depth++;
        else if (ch === "}") depth--;
        else if (ch === "," && depth === 0) {
            parts.push(body.slice(start, i));
            start = i + 1;
        }
    }
    parts.push(body.slice(start));
    return parts;
}

function sequenceOf(body: string): string[] | null {
    const [from, to, stepText] = body.split("..") as [string, string, string | undefined];
    const step = Math.abs(Number(stepText ?? 1)) || 1;
    const numeric = /^-?\d+$/.test(from);
    const start = numeric ? Number(from) : from.charCodeAt(0);
    const end = numeric ? Number(to) : to.charCodeAt(0);
    const count = Math.floor(Math.abs(end - start) / step) + 1;
    if (count > MAX_ALTERNATIVES) return null;
    const width = numeric && /^-?0\d/.test(from + to) ? Math.max(from.length, to.length) : 0;
    const direction = end >= start ? 1 : -1;
    return Array.from({ length: count }, (_, k) => {
        const value = start + direction * k * step;
        return numeric
            ? String(value).padStart(width, "0")
            : escapeGlob(String.fromCharCode(value));
    });
}

/** Brace expansion of a glob text; null when it makes more than MAX_ALTERNATIVES words. */
export function expandBraces(glob: string): string[] | null {
    for (let i = 0; i < glob.length; i++) {
        const ch = glob[i];
        if (ch === "\\") {
            i++;
            continue;
        }
        if (ch !== "{") continue;
        const brace = braceEnd(glob, i);
        if (!brace?.expands) continue;
        const body = glob.slice(i + 1, brace.end);
        const parts = body.includes(",") ? splitTopLevel(body) : sequenceOf(body);
        if (parts === null || parts.length > MAX_ALTERNATIVES) return null;
        const out: string[] = [];
        for (const part of parts) {
            const expanded = expandBraces(glob.slice(0, i) + part + glob.slice(brace.end + 1));
            if (expanded === null) return null;
            out.push(...expanded);
            if (out.length > MAX_ALTERNATIVES) return null;
        }
        return out;
    }
    return [glob];
}
