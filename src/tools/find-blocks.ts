/**
 * find_blocks: a structural map of one file (ids, labels, line ranges, no
 * content): HTML sections and inline `<style>`/`<script>` with the rules and
 * symbols inside them, stylesheet rules, or code symbols.
 */
import { type InputOf, toolInput } from "./tool-input";
import { type DocBlock, cssBlocks, htmlBlocks, symbolBlocks } from "./structure/blocks";
import { type ParserId, isCssParser, languageOf } from "./structure/language";
import { readTextFile } from "./text-file";
import { type ToolDefinition, toolError, toolOk } from "./types";
import { NAME_ONLY_DISPLAY } from "./display-text";
import { MAX_BLOCKS } from "./limits";

export const BLOCK_KINDS = [
    "html_section",
    "css_rule",
    "js_ts_symbol",
    "csharp_symbol",
    "php_symbol",
    "java_symbol",
    "all",
] as const;

export type BlockKind = (typeof BLOCK_KINDS)[number];

const input = toolInput((z) =>
    z.object({
        path: z.string(),
        kind: z.enum(BLOCK_KINDS).optional().describe("Default: from the file type."),
        startLine: z
            .number()
            .int()
            .min(1)
            .optional()
            .describe("Skip blocks ending before this line."),
    })
);

export type FindBlocksInput = InputOf<typeof input>;

export interface BlockEntry {
    /** "html-0", "style-0", "style0-css-0", "script-0", "script0-js-0", "css-3", "js-2", … */
    id: string;
    label: string;
    startLine: number;
    endLine: number;
}

export interface FindBlocksResult {
    path: string;
    totalLines: number;
    /** The kind used (detected when not given). */
    kind: BlockKind | "python_symbol" | "rust_symbol" | "go_symbol";
    blocks: BlockEntry[];
    truncated: boolean;
    /** Blocks found (from startLine on), including those not returned. */
    total: number;
    /** Where to continue (startLine) when truncated. */
    nextLine?: number;
    note?: string;
}

const SYMBOL_PREFIX: Partial<Record<ParserId, string>> = {
    typescript: "js",
    javascript: "js",
    csharp: "cs",
    php: "php",
    java: "java",
    python: "py",
    rust: "rs",
    go: "go",
};

const KIND_PARSER: Partial<Record<BlockKind, ParserId>> = {
    js_ts_symbol: "typescript",
    csharp_symbol: "csharp",
    php_symbol: "php",
    java_symbol: "java",
};

/** Ids as in the spec: per-group counters, embedded blocks numbered per `<style>`/`<script>`. */
function withIds(blocks: readonly DocBlock[], symbolPrefix: string): BlockEntry[] {
    const counters = new Map<string, number>();
    const next = (key: string) => {
        const n = counters.get(key) ?? 0;
        counters.set(key, n + 1);
        return n;
    };
    return blocks.map((block) => {
        let prefix: string;
        if (block.group === "html") prefix = "html";
        else if (block.group === "style" || block.group === "script") prefix = block.group;
        else if (block.embed !== undefined) {
            prefix = block.group === "css" ? `style${block.embed}-css` : `script${block.embed}-js`;
        } else prefix = block.group === "css" ? "css" : symbolPrefix;
        return {
            id: `${prefix}-${next(prefix)}`,
            label: block.label,
            startLine: block.startLine,
            endLine: block.endLine,
        };
    });
}

function htmlFilter(kind: BlockKind): (block: DocBlock) => boolean {
    switch (kind) {
        case "html_section":
            return (block) => block.group === "html";
        case "css_rule":
            return (block) => block.group === "style" || block.group === "css";
        case "js_ts_symbol":
            return (block) => block.group === "script" || block.group === "symbol";
        default:
            return () => true;
    }
}

/** The kind find_blocks uses for a file when none is given. */
function autoKind(parser: ParserId): FindBlocksResult["kind"] | undefined {
    if (parser === "html") return "all";
    if (isCssParser(parser)) return "css_rule";
    const detected: Partial<Record<ParserId, FindBlocksResult["kind"]>> = {
        typescript: "js_ts_symbol",
        javascript: "js_ts_symbol",
        csharp: "csharp_symbol",
        php: "php_symbol",
        java: "java_symbol",
        python: "python_symbol",
        rust: "rust_symbol",
        go: "go_symbol",
    };
    return detected[parser];
}

export function createFindBlocksTool(): ToolDefinition<FindBlocksInput, FindBlocksResult> {
    return {
        name: "find_blocks",
        description:
            "Map a file's blocks (ids, line ranges, no content): HTML sections and inline " +
            "<style>/<script> with their CSS rules and JS functions, CSS rules, or code symbols. " +
            `At most ${MAX_BLOCKS}, then startLine = nextLine.`,
        input,
        approvalPolicy: "none",
        readOnly: true,
        display: NAME_ONLY_DISPLAY,
        async execute(args, ctx) {
            const loaded = await readTextFile(ctx, args.path, { tool: "find_blocks" });
            if (!loaded.ok) return loaded;
            const { relPath, lines } = loaded.data;
            const parser = languageOf(relPath)?.parser ?? "none";
            const auto = autoKind(parser);
            const kind =
                args.kind === undefined || args.kind === "all" ? (auto ?? args.kind) : args.kind;
            if (kind === undefined || (kind === "all" && parser !== "html")) {
                return toolError(
                    "invalid_args",
                    `find_blocks does not know the structure of ${relPath}; pass kind (html_section, ` +
                        "css_rule, js_ts_symbol, csharp_symbol, php_symbol, java_symbol) to force a parser, " +
                        "or use get_file_outline, which falls back to 50-line chunks."
                );
            }
            let docBlocks: DocBlock[];
            let symbolPrefix = SYMBOL_PREFIX[parser] ?? "js";
            let note: string | undefined;
            const forced = KIND_PARSER[kind as BlockKind];
            if (parser === "html" && !(forced && forced !== "typescript")) {
                const html = htmlBlocks(lines);
                docBlocks = html.blocks.filter(htmlFilter(kind as BlockKind));
                if (html.unclosed.length > 0) {
                    const list = html.unclosed
                        .slice(0, 5)
                        .map((s) => `${s.label} (line ${s.startLine})`);
                    note =
                        `Missing end tags: ${list.join(", ")}${html.unclosed.length > 5 ? ", …" : ""}; ` +
                        "those ranges end where an enclosing element closes.";
                }
            } else if (kind === "html_section") {
                docBlocks = htmlBlocks(lines).blocks.filter(htmlFilter(kind));
            } else if (kind === "css_rule") {
                docBlocks = cssBlocks(lines, parser === "scss" || parser === "less");
            } else {
                // A forced symbol kind uses the file's own parser when it fits (JS for js_ts_symbol).
                const fits =
                    forced === "typescript"
                        ? parser === "javascript" || parser === "typescript"
                        : forced === parser;
                const symbolParser = forced && !fits ? forced : parser;
                symbolPrefix = SYMBOL_PREFIX[symbolParser] ?? "js";
                docBlocks = symbolBlocks(lines, symbolParser);
            }
            // Ids are numbered over the whole file, so they stay the same from page to page.
            const from = args.startLine ?? 1;
            const entries = withIds(docBlocks, symbolPrefix).filter(
                (entry) => entry.endLine >= from
            );
            const result: FindBlocksResult = {
                path: relPath,
                totalLines: lines.length,
                kind,
                blocks: entries.slice(0, MAX_BLOCKS),
                truncated: entries.length > MAX_BLOCKS,
                total: entries.length,
            };
            if (result.truncated) {
                const next = entries[MAX_BLOCKS]!.startLine;
                result.nextLine = next;
                result.note = `Showing ${MAX_BLOCKS} of ${entries.length} blocks; continue with startLine ${next}.`;
            } else if (entries.length === 0) {
                result.note = "No blocks found; get_file_outline shows the file as 50-line chunks.";
            }
            if (note) result.note = result.note ? `${result.note} ${note}` : note;
            return toolOk(result);
        },
    };
}
