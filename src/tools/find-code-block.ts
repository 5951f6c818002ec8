/**
 * find_code_block: the blocks (function, method, class, CSS rule, HTML
 * section, or any brace/indented block) that contain a text, innermost
 * first, so the model can jump to the right place in one call.
 */
import { type InputOf, toolInput } from "./tool-input";
import { type CodeScan, type Dialect, enclosingBlock, scanCode } from "./structure/code-scan";
import { type DocBlock, documentBlocks } from "./structure/blocks";
import { type ParserId, isCssParser, languageOf } from "./structure/language";
import { analyzePythonLines, pythonEnclosingBlock, type PythonLines } from "./structure/python";
import { rulesFor } from "./structure/symbol-rules";
import { type TextMatch, findTextLines, readTextFile } from "./text-file";
import { type ToolDefinition, toolError, toolOk } from "./types";
import { NAME_ONLY_DISPLAY } from "./display-text";
import { MAX_CODE_BLOCKS } from "./limits";

/** Occurrences of the query examined. */
const MAX_OCCURRENCES = 500;
const SNIPPET_LINES = 5;
const SNIPPET_LINE_CHARS = 200;

const KINDS = ["function", "class", "method", "block", "any"] as const;

const input = toolInput((z) =>
    z.object({
        path: z.string(),
        query: z.string().min(1).describe("Text inside the block."),
        kind: z.enum(KINDS).default("any").describe("block: any braces or indented block."),
    })
);

export type FindCodeBlockInput = InputOf<typeof input>;

export interface CodeBlockMatch {
    startLine: number;
    endLine: number;
    /** function, method, class, interface, …; rule/media/keyframes (CSS); section/style/script (HTML); block. */
    kind: string;
    name: string;
    /** The enclosing class or symbol, for members. */
    container?: string;
    /** The block's first lines. */
    snippet: string;
    /** Lines inside the block where the query occurs (at most 5). */
    matchLines: number[];
}

export interface FindCodeBlockResult {
    path: string;
    /** Lines holding the query. */
    occurrences: number;
    matches: CodeBlockMatch[];
    truncated: boolean;
    /** The query only matched ignoring case. */
    caseInsensitive?: boolean;
    hint?: string;
}

const CLASS_KINDS = new Set(["class", "interface", "struct", "trait", "impl", "enum", "record"]);

function accepts(kind: FindCodeBlockInput["kind"], block: DocBlock): boolean {
    switch (kind) {
        case "function":
            return block.kind === "function";
        case "method":
            return block.kind === "method" || block.kind === "property";
        case "class":
            return CLASS_KINDS.has(block.kind);
        case "block":
            return block.group !== "symbol";
        case "any":
            return true;
    }
}

const DIALECTS: Partial<Record<ParserId, Dialect>> = { scss: "scss", less: "scss", css: "css" };

export interface Found {
    startLine: number;
    endLine: number;
    kind: string;
    name: string;
    container?: string;
}

/** Generic blocks: braces (with the header line when `{` stands alone) or Python indentation. */
class GenericBlocks {
    private scan: CodeScan | null = null;
    private python: PythonLines | null = null;
    constructor(
        private readonly lines: readonly string[],
        private readonly parser: ParserId
    ) {}

    at(line: number): Found | null {
        if (this.parser === "python") {
            this.python ??= analyzePythonLines(this.lines);
            const block = pythonEnclosingBlock(this.lines, this.python, line);
            return block ? this.named(block.startLine, block.endLine) : null;
        }
        const dialect = rulesFor(this.parser)?.dialect ?? DIALECTS[this.parser] ?? "c";
        this.scan ??= scanCode(this.lines, dialect);
        const block = enclosingBlock(this.scan, line);
        if (!block) return null;
        let start = block.startLine;
        // Allman style: "{" alone on its line belongs to the header above.
        if (/^\s*\{\s*$/.test(this.lines[start - 1]!.slice(0, 200)) && start > 1) start--;
        return this.named(start, block.endLine);
    }

    private named(startLine: number, endLine: number): Found {
        let name = this.lines[startLine - 1]!.slice(0, 200)
            .trim()
            .replace(/\s*\{\s*$/, "");
        if (name.length > 80) name = `${name.slice(0, 79)}…`;
        return { startLine, endLine, kind: "block", name };
    }
}

/** The innermost accepted block holding `line` (header line included). */
function innermost(blocks: readonly DocBlock[], line: number): DocBlock | null {
    let best: DocBlock | null = null;
    for (const block of blocks) {
        if (block.startLine > line || block.endLine < line) continue;
        if (
            !best ||
            block.startLine > best.startLine ||
            (block.startLine === best.startLine && block.endLine <= best.endLine)
        ) {
            best = block;
        }
    }
    return best;
}

/** The block find_code_block reports for a line: innermost declaration, else a generic block. */
export class BlockLocator {
    private readonly blocks: DocBlock[];
    private readonly generic: GenericBlocks | null;
    constructor(
        lines: readonly string[],
        parser: ParserId,
        private readonly kind: FindCodeBlockInput["kind"]
    ) {
        this.blocks = documentBlocks(lines, parser, { nested: true }).blocks.filter((block) =>
            accepts(kind, block)
        );
        const markup = parser === "html" || isCssParser(parser);
        this.generic =
            !markup && (kind === "block" || kind === "any")
                ? new GenericBlocks(lines, parser)
                : null;
    }

    at(line: number): Found | null {
        const block = innermost(this.blocks, line);
        let hit: Found | null = block
            ? {
                  startLine: block.startLine,
                  endLine: block.endLine,
                  kind: block.kind,
                  name: block.name,
                  ...(block.container !== undefined ? { container: block.container } : {}),
              }
            : null;
        if (this.generic) {
            const braces = this.generic.at(line);
            // "block" wants the innermost block of any sort; "any" falls back to it.
            if (braces && (!hit || (this.kind === "block" && braces.startLine >= hit.startLine)))
                hit = braces;
        }
        return hit;
    }
}

function snippetOf(lines: readonly string[], start: number, end: number): string {
    const out: string[] = [];
    for (let l = start; l <= Math.min(end, start + SNIPPET_LINES - 1); l++) {
        const text = lines[l - 1]!;
        out.push(text.length > SNIPPET_LINE_CHARS ? `${text.slice(0, SNIPPET_LINE_CHARS)}…` : text);
    }
    return out.join("\n");
}

function lineList(found: readonly TextMatch[]): string {
    const shown = found.slice(0, 10).map((m) => m.line);
    return `${shown.join(", ")}${found.length > 10 ? `, … (${found.length} in all)` : ""}`;
}

export function createFindCodeBlockTool(): ToolDefinition<FindCodeBlockInput, FindCodeBlockResult> {
    return {
        name: "find_code_block",
        description:
            "The innermost function, method, class, CSS rule or HTML section containing a text in one " +
            "file: line range, kind, name, first 5 lines. Not in the file: use search_text.",
        input,
        approvalPolicy: "none",
        readOnly: true,
        display: NAME_ONLY_DISPLAY,
        async execute(args, ctx) {
            const loaded = await readTextFile(ctx, args.path, { tool: "find_code_block" });
            if (!loaded.ok) return loaded;
            const { relPath, lines } = loaded.data;
            const query = args.query.replace(/\r\n/g, "\n");
            let found = findTextLines(lines, query);
            let caseInsensitive = false;
            if (found.length === 0 && !query.includes("\n")) {
                const lower = query.toLowerCase();
                found = findTextLines(
                    lines.map((line) => line.toLowerCase()),
                    lower
                );
                caseInsensitive = found.length > 0;
            }
            if (found.length === 0) {
                return toolError(
                    "no_match",
                    `${JSON.stringify(query.slice(0, 80))} does not occur in ${relPath}. ` +
                        "Use search_text to find which file contains it."
                );
            }
            const parser = languageOf(relPath)?.parser ?? "none";
            const markup = parser === "html" || isCssParser(parser);
            const locator = new BlockLocator(lines, parser, args.kind);
            const byRange = new Map<string, CodeBlockMatch>();
            const outside: TextMatch[] = [];
            for (const occurrence of found.slice(0, MAX_OCCURRENCES)) {
                const hit = locator.at(occurrence.line);
                if (!hit) {
                    outside.push(occurrence);
                    continue;
                }
                const key = `${hit.startLine}:${hit.endLine}`;
                const existing = byRange.get(key);
                if (existing) {
                    if (
                        existing.matchLines.length < 5 &&
                        !existing.matchLines.includes(occurrence.line)
                    ) {
                        existing.matchLines.push(occurrence.line);
                    }
                    continue;
                }
                byRange.set(key, {
                    ...hit,
                    snippet: snippetOf(lines, hit.startLine, hit.endLine),
                    matchLines: [occurrence.line],
                });
            }
            const all = [...byRange.values()];
            const result: FindCodeBlockResult = {
                path: relPath,
                occurrences: found.length,
                matches: all.slice(0, MAX_CODE_BLOCKS),
                truncated: all.length > MAX_CODE_BLOCKS || found.length > MAX_OCCURRENCES,
            };
            if (caseInsensitive) result.caseInsensitive = true;
            const hints: string[] = [];
            if (outside.length > 0) {
                const where = `on line${outside.length === 1 ? "" : "s"} ${lineList(outside)}`;
                if (markup) {
                    hints.push(
                        `The text occurs ${where} outside any ${parser === "html" ? "section or inline block" : "rule"}; ` +
                            "find_blocks maps the file's sections, CSS selectors, @media queries and inline " +
                            "<style>/<script> blocks, then read_around reads there."
                    );
                } else {
                    const what = args.kind === "any" || args.kind === "block" ? "block" : args.kind;
                    const wider = what === "block" ? "" : ' (kind "any" accepts every block)';
                    hints.push(
                        `The text occurs ${where} outside any ${what}${wider}; read_around with it as anchor shows it.`
                    );
                }
            }
            if (result.truncated) {
                hints.push(
                    `Showing ${result.matches.length} blocks; a longer query narrows the search.`
                );
            }
            if (hints.length > 0) result.hint = hints.join(" ");
            return toolOk(result);
        },
    };
}
