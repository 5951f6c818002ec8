/**
 * A forgiving HTML tag scan (one pass, no DOM): page sections and elements
 * with an id, with line ranges, plus the inline `<style>` and `<script>`
 * blocks whose content the CSS and JS parsers then read. Unclosed tags are
 * closed by their nearest closed ancestor, or at the end of the file.
 */
import type { ParserId } from "./language";

export const SECTION_TAGS: ReadonlySet<string> = new Set([
    "head",
    "body",
    "main",
    "section",
    "article",
    "nav",
    "header",
    "footer",
    "aside",
    "form",
    "dialog",
    "template",
]);

const VOID_TAGS = new Set(
    "area base br col embed hr img input link meta param source track wbr".split(" ")
);

export interface HtmlSection {
    tag: string;
    id?: string;
    /** `<section id="pricing">`, `<nav class="menu">`, `<header>`. */
    label: string;
    startLine: number;
    endLine: number;
    /** Enclosing sections (0 at the top). */
    depth: number;
    /** False when the end tag was missing. */
    closed: boolean;
}

export interface HtmlEmbed {
    kind: "style" | "script";
    /** Line of the opening tag. */
    startLine: number;
    /** Line of the closing tag (the last line when it is missing). */
    endLine: number;
    /** Line where `lines[0]` sits. */
    contentStartLine: number;
    /** The content's lines; text outside the element is blanked. */
    lines: string[];
    /** Parser for the content: css, scss, javascript, typescript, or none (JSON, templates). */
    parser: ParserId;
    /** Only whitespace inside (e.g. `<script src=…></script>`). */
    empty: boolean;
}

export interface HtmlStructure {
    sections: HtmlSection[];
    embeds: HtmlEmbed[];
    /** Sections whose end tag is missing. */
    unclosed: HtmlSection[];
}

/** Longest tag (attributes included) read before giving up on it. */
const MAX_TAG_CHARS = 8000;

interface OpenTag {
    name: string;
    section: HtmlSection | null;
}

function lineStartsOf(text: string): number[] {
    const starts = [0];
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
    return starts;
}

function lineAt(starts: readonly number[], offset: number): number {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= offset) lo = mid;
        else hi = mid - 1;
    }
    return lo + 1;
}

function isNameStart(c: number): boolean {
    return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

function isNameChar(c: number): boolean {
    return isNameStart(c) || (c >= 48 && c <= 57) || c === 45 || c === 58 || c === 95 || c === 46;
}

/** Index of the `>` ending a tag whose attributes start at `i`, quotes respected; -1 if none. */
function tagEnd(text: string, i: number): number {
    const limit = Math.min(text.length, i + MAX_TAG_CHARS);
    let quote = 0;
    for (let j = i; j < limit; j++) {
        const c = text.charCodeAt(j);
        if (quote !== 0) {
            if (c === quote) quote = 0;
        } else if (c === 34 || c === 39) quote = c;
        else if (c === 62) return j;
        else if (c === 60 && j > i) return -1;
    }
    return -1;
}

function attribute(attrs: string, name: string): string | undefined {
    const re = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, "i");
    const m = re.exec(attrs);
    return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
}

function sectionLabel(tag: string, attrs: string, id: string | undefined): string {
    if (id !== undefined) return `<${tag} id="${id.slice(0, 60)}">`;
    const cls = attribute(attrs, "class");
    if (cls) return `<${tag} class="${cls.trim().split(/\s+/)[0]!.slice(0, 60)}">`;
    return `<${tag}>`;
}

function embedParser(kind: "style" | "script", attrs: string): ParserId {
    const lang = (attribute(attrs, "lang") ?? "").toLowerCase();
    const type = (attribute(attrs, "type") ?? "").toLowerCase();
    if (kind === "style")
        return lang === "scss" || lang === "sass" ? "scss" : lang === "less" ? "less" : "css";
    if (lang === "ts" || lang === "tsx" || type.includes("typescript")) return "typescript";
    if (
        type === "" ||
        type.includes("javascript") ||
        type === "module" ||
        type.includes("babel") ||
        type.includes("jsx")
    ) {
        return "javascript";
    }
    return "none";
}

/** The lines of [from, to) as seen from `lines`, with text outside the range blanked. */
function sliceLines(
    lines: readonly string[],
    starts: readonly number[],
    from: number,
    to: number
): { startLine: number; lines: string[] } {
    const first = lineAt(starts, from);
    const last = lineAt(starts, Math.max(from, to - 1));
    const out: string[] = [];
    for (let l = first; l <= last; l++) {
        let text = lines[l - 1] ?? "";
        const lineStart = starts[l - 1]!;
        if (l === last) text = text.slice(0, Math.max(0, to - lineStart));
        if (l === first)
            text = " ".repeat(Math.min(from - lineStart, 200)) + text.slice(from - lineStart);
        out.push(text);
    }
    return { startLine: first, lines: out };
}

/** Scans the whole document once. */
export function parseHtml(lines: readonly string[]): HtmlStructure {
    const text = lines.join("\n");
    const starts = lineStartsOf(text);
    const lastLine = Math.max(1, lines.length);
    const sections: HtmlSection[] = [];
    const embeds: HtmlEmbed[] = [];
    const unclosed: HtmlSection[] = [];
    const stack: OpenTag[] = [];
    let sectionDepth = 0;
    /** Pops the stack down to `index`; `matched` when the end tag was found. */
    const closeTo = (index: number, line: number, matched: boolean) => {
        while (stack.length > index) {
            const open = stack.pop()!;
            if (!open.section) continue;
            sectionDepth--;
            open.section.endLine = line;
            if (!matched) {
                open.section.closed = false;
                unclosed.push(open.section);
            }
        }
    };

    let i = text.indexOf("<");
    while (i >= 0 && i < text.length) {
        if (text.startsWith("<!--", i)) {
            const end = text.indexOf("-->", i + 4);
            i = end < 0 ? -1 : text.indexOf("<", end + 3);
            continue;
        }
        const next = text.charCodeAt(i + 1);
        if (next === 33 || next === 63) {
            const end = text.indexOf(next === 63 ? "?>" : ">", i + 2);
            i = end < 0 ? -1 : text.indexOf("<", end + 1);
            continue;
        }
        const closing = next === 47;
        const nameStart = closing ? i + 2 : i + 1;
        if (!isNameStart(text.charCodeAt(nameStart))) {
            i = text.indexOf("<", i + 1);
            continue;
        }
        let nameEnd = nameStart + 1;
        while (nameEnd < text.length && isNameChar(text.charCodeAt(nameEnd))) nameEnd++;
        const name = text.slice(nameStart, nameEnd).toLowerCase();
        const gt = tagEnd(text, nameEnd);
        if (gt < 0) {
            i = text.indexOf("<", nameEnd);
            continue;
        }
        const line = lineAt(starts, i);
        if (closing) {
            for (let k = stack.length - 1; k >= 0; k--) {
                if (stack[k]!.name !== name) continue;
                closeTo(k + 1, line, false);
                closeTo(k, line, true);
                break;
            }
            i = text.indexOf("<", gt + 1);
            continue;
        }
        const attrs = text.slice(nameEnd, gt);
        if (name === "script" || name === "style") {
            const endTag = new RegExp(`</${name}\\s*>`, "gi");
            endTag.lastIndex = gt + 1;
            const found = endTag.exec(text);
            const contentEnd = found ? found.index : text.length;
            const content = sliceLines(lines, starts, gt + 1, contentEnd);
            embeds.push({
                kind: name,
                startLine: line,
                endLine: found ? lineAt(starts, found.index) : lastLine,
                contentStartLine: content.startLine,
                lines: content.lines,
                parser: embedParser(name, attrs),
                empty: text.slice(gt + 1, contentEnd).trim() === "",
            });
            i = found ? text.indexOf("<", found.index + found[0].length) : -1;
            continue;
        }
        const selfClosing = attrs.endsWith("/");
        const id = attribute(attrs, "id");
        const interesting = SECTION_TAGS.has(name) || id !== undefined;
        let section: HtmlSection | null = null;
        if (interesting) {
            section = {
                tag: name,
                label: sectionLabel(name, attrs, id),
                startLine: line,
                endLine: line,
                depth: sectionDepth,
                closed: true,
            };
            if (id !== undefined) section.id = id;
            sections.push(section);
        }
        if (!selfClosing && !VOID_TAGS.has(name)) {
            stack.push({ name, section });
            if (section) sectionDepth++;
        }
        i = text.indexOf("<", gt + 1);
    }
    closeTo(0, lastLine, false);
    unclosed.sort((a, b) => a.startLine - b.startLine);
    return { sections, embeds, unclosed };
}
