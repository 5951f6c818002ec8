/**
 * Hierarchical file outlines with line ranges: imports collapsed to a count,
 * symbols with their members, exports; HTML sections with their inline
 * `<style>` rules and `<script>` symbols; stylesheet rules inside @media;
 * 50-line chunks for anything else. `limitOutline` caps the size and
 * `renderOutline` gives the compact text form.
 */
import { type DocBlock, documentBlocks } from "./blocks";
import { type CodeScan, scanCode, statementRange } from "./code-scan";
import { type ParserId, SYMBOL_PARSERS } from "./language";
import { type LineSpan, analyzePythonLines, pythonImports, pythonMainGuard } from "./python";
import { rulesFor } from "./symbol-rules";

export interface OutlineItem {
    kind: string;
    label: string;
    startLine: number;
    endLine: number;
    children?: OutlineItem[];
    /** Children left out to keep the outline small. */
    hiddenChildren?: number;
}

export type OutlineMode = "symbols" | "html" | "css" | "chunks";

export const CHUNK_LINES = 50;

/** Import statements per language, tested on lines at the top level only. */
const IMPORT_LINE: Partial<Record<ParserId, RegExp>> = {
    typescript: /^\s*import\b(?!\s*\()|^\s*(?:const|let|var)\s+[\w${},\s:]+=\s*require\(/,
    javascript: /^\s*import\b(?!\s*\()|^\s*(?:const|let|var)\s+[\w${},\s:]+=\s*require\(/,
    go: /^import\b/,
    java: /^\s*import\s/,
    rust: /^\s*(?:pub(?:\([^)]*\))?\s+)?use\s/,
    csharp: /^\s*(?:global\s+)?using\s+(?!\(|var\b)[\w.=\s]+;/,
    php: /^\s*(?:use|require|require_once|include|include_once)\b/,
};

const EXPORT_LINE =
    /^\s*(?:export\s*(?:type\s*)?[{*]|export\s+default\s+(?!(?:async\s+)?function\b|class\b|abstract\b|interface\b|enum\b)|export\s*=|module\.exports\b|exports\.\w+\s*=)/;

function clip(text: string, max: number): string {
    const t = text.trim().replace(/\s+/g, " ");
    return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** Top-level statements matching `re`, their count and span (for imports and exports). */
function topStatements(
    lines: readonly string[],
    scan: CodeScan,
    re: RegExp
): { spans: LineSpan[]; first: string[] } {
    const spans: LineSpan[] = [];
    const first: string[] = [];
    for (let li = 0; li < lines.length; li++) {
        if (scan.skip[li] || scan.braceDepth[li] !== 0 || scan.groupDepth[li] !== 0) continue;
        const text = lines[li]!;
        if (!re.test(text.length > 400 ? text.slice(0, 400) : text)) continue;
        const end = statementRange(scan, lines, li + 1).endLine;
        spans.push({ startLine: li + 1, endLine: end, count: 1 });
        first.push(clip(text, 80));
        li = end - 1;
    }
    return { spans, first };
}

function collapse(kind: string, spans: LineSpan[], labels: string[]): OutlineItem[] {
    if (spans.length === 0) return [];
    if (kind === "exports" && spans.length <= 5) {
        return spans.map((span, i) => ({
            kind: "export",
            label: labels[i]!,
            startLine: span.startLine,
            endLine: span.endLine,
        }));
    }
    const count = spans.reduce((sum, span) => sum + span.count, 0);
    return [
        {
            kind,
            label: `${kind} (${count})`,
            startLine: spans[0]!.startLine,
            endLine: spans[spans.length - 1]!.endLine,
        },
    ];
}

function blockItem(block: DocBlock): OutlineItem {
    const label =
        block.group === "symbol"
            ? `${block.exported ? "export " : ""}${block.kind} ${block.name}`
            : block.group === "style" || block.group === "script"
              ? `<${block.group}>`
              : block.label;
    return {
        kind: block.group === "html" ? "section" : block.kind,
        label,
        startLine: block.startLine,
        endLine: block.endLine,
    };
}

/** Nests items by line containment (sorted by start, longest first). */
export function nestByRange(items: OutlineItem[]): OutlineItem[] {
    const sorted = [...items].sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
    const roots: OutlineItem[] = [];
    const stack: OutlineItem[] = [];
    for (const item of sorted) {
        while (stack.length > 0) {
            const top = stack[stack.length - 1]!;
            const same = top.startLine === item.startLine && top.endLine === item.endLine;
            if (!same && top.startLine <= item.startLine && item.endLine <= top.endLine) break;
            stack.pop();
        }
        const parent = stack[stack.length - 1];
        if (parent) (parent.children ??= []).push(item);
        else roots.push(item);
        stack.push(item);
    }
    return roots;
}

export function chunkOutline(lines: readonly string[]): OutlineItem[] {
    const items: OutlineItem[] = [];
    for (let start = 1; start <= lines.length; start += CHUNK_LINES) {
        const end = Math.min(lines.length, start + CHUNK_LINES - 1);
        let preview = "";
        for (let li = start - 1; li < end && preview === ""; li++)
            preview = clip(lines[li]!.slice(0, 200), 60);
        items.push({
            kind: "chunk",
            label: preview === "" ? "(blank)" : preview,
            startLine: start,
            endLine: end,
        });
    }
    return items;
}

export interface BuiltOutline {
    mode: OutlineMode;
    items: OutlineItem[];
}

/** The full outline tree (before limits). */
export function buildOutline(lines: readonly string[], parser: ParserId): BuiltOutline {
    if (parser === "html" || parser === "css" || parser === "scss" || parser === "less") {
        const { blocks } = documentBlocks(lines, parser);
        if (blocks.length === 0) return { mode: "chunks", items: chunkOutline(lines) };
        return {
            mode: parser === "html" ? "html" : "css",
            items: nestByRange(blocks.map(blockItem)),
        };
    }
    if (!SYMBOL_PARSERS.includes(parser)) return { mode: "chunks", items: chunkOutline(lines) };
    const rules = rulesFor(parser);
    const scan = rules ? scanCode(lines, rules.dialect) : undefined;
    const items = documentBlocks(lines, parser, { scan }).blocks.map(blockItem);
    if (parser === "python" || !scan) {
        const info = analyzePythonLines(lines);
        const imports = pythonImports(lines, info);
        if (imports) {
            const { startLine, endLine, count } = imports;
            items.push({ kind: "imports", label: `imports (${count})`, startLine, endLine });
        }
        const guard = pythonMainGuard(lines, info);
        if (guard) items.push({ kind: "main", label: 'if __name__ == "__main__"', ...guard });
    } else {
        const importLine = IMPORT_LINE[parser];
        if (importLine) {
            const imports = topStatements(lines, scan, importLine);
            const importStarts = new Set(imports.spans.map((span) => span.startLine));
            // `const x = require(…)` is an import, not a constant.
            for (let i = items.length - 1; i >= 0; i--) {
                if (items[i]!.kind === "const" && importStarts.has(items[i]!.startLine))
                    items.splice(i, 1);
            }
            if (parser === "go") {
                // One `import ( … )` block holds many imports: count the paths.
                for (const span of imports.spans) {
                    span.count = 0;
                    for (let l = span.startLine; l <= span.endLine; l++) {
                        if (lines[l - 1]!.includes('"')) span.count++;
                    }
                }
            }
            items.push(...collapse("imports", imports.spans, imports.first));
        }
        if (parser === "typescript" || parser === "javascript") {
            const exports = topStatements(lines, scan, EXPORT_LINE);
            items.push(...collapse("exports", exports.spans, exports.first));
        }
    }
    if (items.length === 0) return { mode: "chunks", items: chunkOutline(lines) };
    return { mode: "symbols", items: nestByRange(items) };
}

export interface LimitedOutline {
    items: OutlineItem[];
    /** Items in the full outline from `fromLine` on. */
    total: number;
    shown: number;
    truncated: boolean;
    /** First line not covered when top-level items were cut. */
    nextLine?: number;
}

function countItems(items: readonly OutlineItem[]): number {
    let n = 0;
    for (const item of items) n += 1 + (item.children ? countItems(item.children) : 0);
    return n;
}

/** Keeps children within the budget; a child list that does not fit is folded into a count. */
function fitChildren(item: OutlineItem, budget: { left: number }): OutlineItem {
    if (!item.children) return item;
    const size = countItems(item.children);
    if (size <= budget.left) {
        budget.left -= size;
        return item;
    }
    const { children: _children, ...rest } = item;
    return { ...rest, hiddenChildren: size };
}

/**
 * Top-level items ending at or after `fromLine`, at most `maxItems` nodes: every
 * top-level item first, then children while they fit.
 */
export function limitOutline(
    items: readonly OutlineItem[],
    maxItems: number,
    fromLine = 1
): LimitedOutline {
    const visible = items.filter((item) => item.endLine >= fromLine);
    const total = countItems(visible);
    if (total <= maxItems) return { items: visible, total, shown: total, truncated: false };
    const top = visible.slice(0, maxItems);
    const budget = { left: maxItems - top.length };
    const fitted = top.map((item) => fitChildren(item, budget));
    const result: LimitedOutline = {
        items: fitted,
        total,
        shown: countItems(fitted),
        truncated: true,
    };
    if (visible.length > maxItems) result.nextLine = visible[maxItems]!.startLine;
    return result;
}

/** One line per item: "17-33 class Server", children as "  └─ 19-21 method start". */
export function renderOutline(
    items: readonly OutlineItem[],
    depth = 0,
    out: string[] = []
): string {
    for (const item of items) {
        const prefix = depth === 0 ? "" : `${"  ".repeat(depth)}└─ `;
        const hidden = item.hiddenChildren ? ` (+${item.hiddenChildren} nested, hidden)` : "";
        out.push(`${prefix}${item.startLine}-${item.endLine} ${item.label}${hidden}`);
        if (item.children) renderOutline(item.children, depth + 1, out);
    }
    return depth === 0 ? out.join("\n") : "";
}
