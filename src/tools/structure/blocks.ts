/**
 * The structural blocks of a document as one flat list: symbols for code,
 * rules for stylesheets, and for HTML its sections plus each inline
 * `<style>`/`<script>` with the rules or symbols inside (line numbers are the
 * file's). find_blocks, find_code_block and get_file_outline all read this.
 */
import { cssRules } from "./css";
import { parseHtml, type HtmlSection } from "./html";
import { type ParserId, SYMBOL_PARSERS, isCssParser } from "./language";
import { type ExtractOptions, extractSymbols, symbolLabel } from "./symbols";
import type { CodeScan } from "./code-scan";

export type BlockGroup = "html" | "style" | "script" | "css" | "symbol";

export interface DocBlock {
    group: BlockGroup;
    /** Symbol kind, CSS rule kind ("rule", "media", …), "section", "style" or "script". */
    kind: string;
    name: string;
    label: string;
    startLine: number;
    endLine: number;
    container?: string;
    /** Which `<style>` or `<script>` (0-based, per kind) of an HTML file holds it. */
    embed?: number;
    exported?: boolean;
}

export interface DocumentBlocks {
    blocks: DocBlock[];
    /** HTML sections whose end tag is missing. */
    unclosed: HtmlSection[];
}

export interface BlockOptions {
    /** Symbols inside function bodies too. */
    nested?: boolean;
    /** A scan of the same lines to reuse (top-level documents only). */
    scan?: CodeScan | undefined;
}

function shift(block: DocBlock, offset: number, embed: number): DocBlock {
    return {
        ...block,
        startLine: block.startLine + offset,
        endLine: block.endLine + offset,
        embed,
    };
}

export function symbolBlocks(
    lines: readonly string[],
    parser: ParserId,
    options: BlockOptions = {}
): DocBlock[] {
    const extract: ExtractOptions = { nested: options.nested ?? false, signatures: 0 };
    if (options.scan) extract.scan = options.scan;
    return extractSymbols(lines, parser, extract).map((symbol) => {
        const block: DocBlock = {
            group: "symbol",
            kind: symbol.kind,
            name: symbol.name,
            label: symbolLabel(symbol),
            startLine: symbol.line,
            endLine: symbol.endLine,
        };
        if (symbol.container !== undefined) block.container = symbol.container;
        if (symbol.exported) block.exported = true;
        return block;
    });
}

export function cssBlocks(lines: readonly string[], scss: boolean): DocBlock[] {
    return cssRules(lines, scss).map((rule) => ({
        group: "css",
        kind: rule.kind,
        name: rule.selector,
        label: rule.selector,
        startLine: rule.startLine,
        endLine: rule.endLine,
    }));
}

export function htmlBlocks(lines: readonly string[], options: BlockOptions = {}): DocumentBlocks {
    const html = parseHtml(lines);
    const blocks: DocBlock[] = html.sections.map((section) => ({
        group: "html",
        kind: "section",
        name: section.id ?? section.tag,
        label: section.label,
        startLine: section.startLine,
        endLine: section.endLine,
    }));
    let styles = 0;
    let scripts = 0;
    for (const embed of html.embeds) {
        if (embed.empty) continue;
        const index = embed.kind === "style" ? styles++ : scripts++;
        blocks.push({
            group: embed.kind,
            kind: embed.kind,
            name: embed.kind,
            label: `<${embed.kind}> (lines ${embed.startLine}-${embed.endLine})`,
            startLine: embed.startLine,
            endLine: embed.endLine,
            embed: index,
        });
        const offset = embed.contentStartLine - 1;
        const inner =
            embed.kind === "style"
                ? cssBlocks(embed.lines, embed.parser !== "css")
                : embed.parser === "none"
                  ? []
                  : symbolBlocks(embed.lines, embed.parser, { nested: options.nested ?? false });
        for (const block of inner) blocks.push(shift(block, offset, index));
    }
    blocks.sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
    return { blocks, unclosed: html.unclosed };
}

/** Every block the parser for `parser` finds; empty for a parser-less language. */
export function documentBlocks(
    lines: readonly string[],
    parser: ParserId,
    options: BlockOptions = {}
): DocumentBlocks {
    if (parser === "html") return htmlBlocks(lines, options);
    if (isCssParser(parser)) return { blocks: cssBlocks(lines, parser !== "css"), unclosed: [] };
    if (SYMBOL_PARSERS.includes(parser))
        return { blocks: symbolBlocks(lines, parser, options), unclosed: [] };
    return { blocks: [], unclosed: [] };
}
