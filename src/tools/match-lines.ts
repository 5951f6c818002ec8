/**
 * Context lines for search_text matches, computed the same way whichever engine
 * found them: from the lines of each kept match's file (read once per file), so
 * ripgrep and the JavaScript engine return identical `before`/`after`.
 */
import { SEARCH_LINE_CHARS } from "./limits";

/** Characters of a matched or context line shown to the model. */
export const MAX_TEXT_CHARS = SEARCH_LINE_CHARS;

export interface MatchContext {
    /** Lines just before the match, oldest first; none already shown with the previous match. */
    before: string[];
    /** Lines just after the match; stops before the next match in the same file. */
    after: string[];
}

/** A context line as shown: trimmed like match text, cut to `MAX_TEXT_CHARS` ("…"). */
export function formatContextLine(raw: string): string {
    const text = raw.trim();
    if (text.length <= MAX_TEXT_CHARS) return text;
    let end = MAX_TEXT_CHARS;
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end--;
    return `${text.slice(0, end)}…`;
}

/**
 * Gives each match up to `count` lines before and after it. `matches` are sorted
 * by path then line; `linesOf` returns a file's lines (null: unreadable, no context).
 * Adjacent matches share nothing: a line is shown once, as a match or as context.
 */
export function attachContext<M extends { path: string; line: number }>(
    matches: readonly M[],
    count: number,
    linesOf: (path: string) => readonly string[] | null
): (M & MatchContext)[] {
    const out: (M & MatchContext)[] = [];
    let lines: readonly string[] | null = null;
    for (let i = 0; i < matches.length; i++) {
        const match = matches[i]!;
        const prev = i > 0 ? out[i - 1]! : null;
        const samePrev = prev !== null && prev.path === match.path;
        if (!samePrev) lines = linesOf(match.path);
        if (!lines) {
            out.push({ ...match, before: [], after: [] });
            continue;
        }
        const next = matches[i + 1];
        const nextLine = next && next.path === match.path ? next.line : Number.POSITIVE_INFINITY;
        // Lines already shown: up to the previous match and its `after`.
        const shownThrough = samePrev ? prev.line + prev.after.length : 0;
        const first = Math.max(match.line - count, shownThrough + 1, 1);
        const last = Math.min(match.line + count, nextLine - 1, lines.length);
        out.push({
            ...match,
            before: lines.slice(first - 1, match.line - 1).map(formatContextLine),
            after: lines.slice(match.line, Math.max(match.line, last)).map(formatContextLine),
        });
    }
    return out;
}
