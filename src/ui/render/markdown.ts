/**
 * Markdown → pre-wrapped ANSI lines for the transcript: headings bold, lists
 * with hanging indents, code blocks set apart with a gutter, quotes, rules
 * and simple tables. Built on marked's lexer only (no HTML).
 *
 * marked loads after the first frame (`loadMarkdown`), and so do the code
 * blocks' grammars (highlight.ts); until then text is shown plain, and
 * `markdownGeneration()` changes as each comes in, so cached lines are drawn
 * again.
 */
import type { Token, Tokens } from "marked";
import stringWidth from "string-width";
import wrapAnsi from "wrap-ansi";
import type { Ansi } from "./ansi";
import { highlightCode, highlighterGeneration, paintLine } from "./highlight";
import { readDiffBlock, styleDiffLines } from "./highlight-diff";

const ENTITIES: Record<string, string> = {
    "&amp;": "&",
    "&lt;": "<",
    "&gt;": ">",
    "&quot;": '"',
    "&#39;": "'",
    "&#x27;": "'",
    "&nbsp;": " ",
};

const decode = (text: string): string =>
    text.replace(/&(?:amp|lt|gt|quot|nbsp|#39|#x27);/g, (m) => ENTITIES[m] ?? m);

/** Wraps one styled string to `width` columns (hard: long words are cut). */
export function wrapLines(text: string, width: number, trim = true): string[] {
    if (text === "") return [""];
    return wrapAnsi(text, Math.max(1, width), { hard: true, trim }).split("\n");
}

function inline(tokens: readonly Token[] | undefined, ansi: Ansi): string {
    if (!tokens) return "";
    let out = "";
    for (const token of tokens) out += inlineToken(token, ansi);
    return out;
}

function inlineToken(token: Token, ansi: Ansi): string {
    switch (token.type) {
        case "text": {
            const t = token as Tokens.Text;
            return t.tokens && t.tokens.length > 0 ? inline(t.tokens, ansi) : decode(t.text);
        }
        case "escape":
            return (token as Tokens.Escape).text;
        case "strong":
            return ansi.bold(inline((token as Tokens.Strong).tokens, ansi));
        case "em":
            return ansi.italic(inline((token as Tokens.Em).tokens, ansi));
        case "del":
            return ansi.dim(inline((token as Tokens.Del).tokens, ansi));
        case "codespan":
            return ansi.fg("code", decode((token as Tokens.Codespan).text));
        case "br":
            return "\n";
        case "link": {
            const link = token as Tokens.Link;
            const text = inline(link.tokens, ansi) || link.href;
            const plainText = decode(link.text);
            if (link.autolink || plainText === link.href || link.href.startsWith("mailto:"))
                return ansi.underline(text);
            return `${ansi.underline(text)}${ansi.dim(` (${link.href})`)}`;
        }
        case "image": {
            const image = token as Tokens.Image;
            return ansi.dim(`[image: ${image.text || image.href}]`);
        }
        case "html":
            return (token as Tokens.HTML).text;
        case "checkbox":
            return "";
        default:
            return "raw" in token && typeof token.raw === "string" ? token.raw : "";
    }
}

/** Prefixes the first line with `first` and the rest with `rest` (same width). */
function indent(lines: string[], first: string, rest: string): string[] {
    return lines.map((line, i) => (i === 0 ? first : rest) + line);
}

/** Marks a wrapped code line's continuation rows. */
export const CONTINUATION_MARK = "↪ ";

// eslint-disable-next-line no-control-regex -- the escape is what it removes
const SGR = /\x1b\[[0-9;]*m/g;
/** One column per character, so a line's length is its width. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * One code line (styled) cut to `width` columns: continuation rows start at
 * the line's own indentation with a dim "↪ ", so a wrapped line is not read
 * as a new one. The first `lead` columns (a diff's +/− marker) stay blank on
 * continuation rows.
 */
export function wrapCodeLine(text: string, width: number, ansi: Ansi, lead = 0): string[] {
    const visible = text.replace(SGR, "");
    // Most code lines fit: wrapping a line of many colours costs ten times a plain one.
    if (visible.length <= width && PRINTABLE_ASCII.test(visible)) return [text];
    const pieces = wrapLines(text, width, false);
    if (pieces.length <= 1) return pieces;
    const code = visible.slice(lead);
    const indent = Math.min(code.length - code.trimStart().length, Math.floor(width / 2));
    const prefix = " ".repeat(lead + indent) + ansi.dim(CONTINUATION_MARK);
    const room = width - lead - indent - CONTINUATION_MARK.length;
    // Too narrow for a mark: cut as before.
    if (room < 4) return pieces;
    const rest = pieces.slice(1).join("");
    return [pieces[0]!, ...wrapLines(rest, room, false).map((piece) => prefix + piece)];
}

/** The fence's first word: "ts" of "ts title=a.ts". */
const fenceLanguage = (info: string | undefined): string | undefined =>
    info?.trim().split(/\s+/)[0]?.toLowerCase() || undefined;

function codeBlock(token: Tokens.Code, width: number, ansi: Ansi): string[] {
    const gutter = ansi.dim("│ ");
    const inner = Math.max(1, width - 2);
    const text = token.text.replace(/\n$/, "");
    const lines: string[] = [];
    if (token.lang) lines.push(ansi.dim(`╭ ${token.lang}`));
    const language = fenceLanguage(token.lang);
    let styled: string[];
    let lead = 0;
    if (language === "diff" || language === "patch") {
        const diff = readDiffBlock(text);
        styled = styleDiffLines(diff.lines, diff.language, ansi);
        lead = 1;
    } else {
        const tokens = highlightCode(text, language);
        styled = tokens
            ? tokens.map((line) => paintLine(line, ansi))
            : text.split("\n").map((line) => ansi.fg("codeBlock", line));
    }
    for (const line of styled) {
        for (const row of wrapCodeLine(line, inner, ansi, lead)) lines.push(gutter + row);
    }
    return lines;
}

function list(token: Tokens.List, width: number, ansi: Ansi): string[] {
    const lines: string[] = [];
    const start = typeof token.start === "number" ? token.start : 1;
    const markers = token.items.map((item, i) => {
        if (item.task) return item.checked ? "☑ " : "☐ ";
        return token.ordered ? `${start + i}. ` : "• ";
    });
    const markerWidth = Math.max(...markers.map((m) => stringWidth(m)));
    token.items.forEach((item, i) => {
        const marker = (markers[i] ?? "• ").padEnd(markerWidth);
        const body = blocks(item.tokens, width - markerWidth, ansi, item.loose);
        if (body.length === 0) body.push("");
        if (item.loose && i > 0) lines.push("");
        lines.push(...indent(body, ansi.fg("listMarker", marker), " ".repeat(markerWidth)));
    });
    return lines;
}

function table(token: Tokens.Table, width: number, ansi: Ansi): string[] {
    const cells = [token.header, ...token.rows].map((row) =>
        row.map((cell) => inline(cell.tokens, ansi).replace(/\n/g, " "))
    );
    const columns = token.header.length;
    const widths = Array.from({ length: columns }, (_, c) =>
        Math.max(1, ...cells.map((row) => stringWidth(row[c] ?? "")))
    );
    const separator = " │ ";
    const total = widths.reduce((a, b) => a + b, 0) + separator.length * (columns - 1);
    if (total > width) {
        // Too wide for the terminal: one row per paragraph, cells joined.
        return cells.flatMap((row, r) => {
            const text = row.join(ansi.dim(" · "));
            return wrapLines(r === 0 ? ansi.bold(text) : text, width);
        });
    }
    const pad = (text: string, w: number, align: string | null): string => {
        const gap = Math.max(0, w - stringWidth(text));
        if (align === "right") return " ".repeat(gap) + text;
        if (align === "center") {
            const left = Math.floor(gap / 2);
            return " ".repeat(left) + text + " ".repeat(gap - left);
        }
        return text + " ".repeat(gap);
    };
    const render = (row: string[]): string =>
        row
            .map((cell, c) => pad(cell, widths[c] ?? 1, token.align[c] ?? null))
            .join(ansi.dim(separator));
    const rule = ansi.dim(widths.map((w) => "─".repeat(w)).join("─┼─"));
    const [header, ...rows] = cells;
    return [ansi.bold(render(header ?? [])), rule, ...rows.map(render)];
}

function block(token: Token, width: number, ansi: Ansi): string[] | null {
    switch (token.type) {
        case "paragraph":
            return wrapLines(inline((token as Tokens.Paragraph).tokens, ansi), width);
        case "text": {
            const t = token as Tokens.Text;
            const text = t.tokens && t.tokens.length > 0 ? inline(t.tokens, ansi) : decode(t.text);
            return wrapLines(text, width);
        }
        case "heading": {
            const h = token as Tokens.Heading;
            const text = inline(h.tokens, ansi);
            const styled = h.depth === 1 ? ansi.bold(ansi.underline(text)) : ansi.bold(text);
            return wrapLines(styled, width);
        }
        case "code":
            return codeBlock(token as Tokens.Code, width, ansi);
        case "blockquote": {
            const inner = blocks((token as Tokens.Blockquote).tokens, width - 2, ansi, true);
            return inner.map((line) => ansi.dim("▎ ") + ansi.italic(line));
        }
        case "list":
            return list(token as Tokens.List, width, ansi);
        case "table":
            return table(token as Tokens.Table, width, ansi);
        case "hr":
            return [ansi.dim("─".repeat(Math.max(1, Math.min(width, 60))))];
        case "html":
            return wrapLines((token as Tokens.HTML).text.replace(/\n$/, ""), width);
        case "space":
        case "def":
            return null;
        default:
            return "raw" in token && typeof token.raw === "string"
                ? wrapLines(token.raw.replace(/\n$/, ""), width)
                : null;
    }
}

/** Renders block tokens; blocks are separated by a blank line when `spaced`. */
function blocks(tokens: readonly Token[], width: number, ansi: Ansi, spaced: boolean): string[] {
    const lines: string[] = [];
    const w = Math.max(4, width);
    for (const token of tokens) {
        const rendered = block(token, w, ansi);
        if (!rendered) continue;
        // Tight list items hold text then a nested list: no gap there.
        if (lines.length > 0 && spaced) lines.push("");
        lines.push(...rendered);
    }
    return lines;
}

type Lexer = (src: string, options: { gfm: boolean }) => Token[];
let lex: Lexer | null = null;
let loading: Promise<void> | null = null;

/** Loads the Markdown lexer (once). */
export function loadMarkdown(): Promise<void> {
    loading ??= import("marked").then((marked) => {
        lex = marked.lexer;
    });
    return loading;
}

/** Changes as the lexer and the grammars load: part of the line cache's key. */
export function markdownGeneration(): number {
    return (lex ? 1 : 0) + 2 * highlighterGeneration();
}

/** Markdown text → lines no wider than `width` columns (plain until the lexer is loaded). */
export function renderMarkdown(text: string, width: number, ansi: Ansi): string[] {
    if (text.trim() === "") return [];
    const plainLines = (): string[] =>
        text
            .replace(/\n+$/, "")
            .split("\n")
            .flatMap((line) => wrapLines(line, width));
    if (!lex) return plainLines();
    let tokens: Token[];
    try {
        tokens = lex(text, { gfm: true });
    } catch {
        return plainLines();
    }
    return blocks(tokens, width, ansi, true);
}
