/**
 * get_file_symbols: functions, classes, interfaces, types, enums, methods and
 * constants of one file, each with its line range and signature, found by
 * patterns (TS/JS, Python, Rust, Go, Java, C#, PHP). HTML and stylesheets are
 * redirected to find_blocks; other languages to get_file_outline.
 */
import { type InputOf, toolInput } from "./tool-input";
import { SYMBOL_PARSERS, isCssParser, languageOf } from "./structure/language";
import { type SymbolKind, extractSymbols } from "./structure/symbols";
import { readTextFile } from "./text-file";
import { type ToolDefinition, toolOk } from "./types";
import { fileTitle } from "./display-text";
import { MAX_SYMBOLS } from "./limits";

const input = toolInput((z) =>
    z.object({
        path: z.string(),
        startLine: z.number().int().min(1).optional().describe("Continue at nextLine."),
    })
);

export type GetFileSymbolsInput = InputOf<typeof input>;

export interface FileSymbol {
    name: string;
    kind: SymbolKind;
    line: number;
    endLine: number;
    /** The declaration without its body, whitespace collapsed (≤ 160 characters). */
    signature: string;
    /** The enclosing class, impl or namespace, for members. */
    container?: string;
}

export interface FileSymbolsResult {
    path: string;
    /** Display name ("TypeScript"), or "unknown". */
    language: string;
    /** False when there is no symbol parser for the language. */
    supported: boolean;
    symbols: FileSymbol[];
    truncated: boolean;
    /** Symbols from startLine on, including those not returned. */
    total: number;
    /** When truncated: the startLine that lists the rest. */
    nextLine?: number;
    hint?: string;
}

/**
 * At most `max` symbols from `all` (already from startLine on), cut between
 * lines so that the next page, starting at `nextLine`, repeats or skips nothing.
 */
export function pageOfSymbols<S extends { line: number }>(
    all: readonly S[],
    max: number
): { page: S[]; nextLine?: number } {
    if (all.length <= max) return { page: [...all] };
    let cut = max;
    while (cut > 0 && all[cut]!.line === all[cut - 1]!.line) cut--;
    if (cut > 0) return { page: all.slice(0, cut), nextLine: all[cut]!.line };
    // Over `max` symbols on one line: the rest of that line is left out, and the
    // next page starts after it (starting on it would repeat this page forever).
    const after = all.find((symbol) => symbol.line > all[0]!.line);
    return after ? { page: all.slice(0, max), nextLine: after.line } : { page: all.slice(0, max) };
}

export function createGetFileSymbolsTool(): ToolDefinition<GetFileSymbolsInput, FileSymbolsResult> {
    return {
        name: "get_file_symbols",
        description:
            "List a source file's functions, classes, interfaces, types, enums, methods and constants " +
            `with line ranges and signatures (TS/JS, Python, Rust, Go, Java, C#, PHP; ${MAX_SYMBOLS} per call). ` +
            "HTML/CSS: use find_blocks.",
        input,
        approvalPolicy: "none",
        readOnly: true,
        display: { title: fileTitle("Extracting symbols from") },
        async execute(args, ctx) {
            const loaded = await readTextFile(ctx, args.path, { tool: "get_file_symbols" });
            if (!loaded.ok) return loaded;
            const { relPath, lines } = loaded.data;
            const language = languageOf(relPath);
            const parser = language?.parser ?? "none";
            const base = { path: relPath, language: language?.name ?? "unknown" };
            if (parser === "html" || isCssParser(parser)) {
                return toolOk({
                    ...base,
                    supported: false,
                    symbols: [],
                    truncated: false,
                    total: 0,
                    hint:
                        `${base.language} has no symbols to list: use find_blocks for its sections, ` +
                        "CSS rules and inline <script> functions, or get_file_outline.",
                });
            }
            if (!SYMBOL_PARSERS.includes(parser)) {
                return toolOk({
                    ...base,
                    supported: false,
                    symbols: [],
                    truncated: false,
                    total: 0,
                    hint:
                        `Symbol extraction does not support ${language ? base.language : "this file type"}. ` +
                        "Use get_file_outline (falls back to 50-line chunks) or search_text with this file.",
                });
            }
            const startLine = args.startLine ?? 1;
            const found = extractSymbols(lines, parser, {
                signatures: MAX_SYMBOLS,
                fromLine: startLine,
            });
            const all = startLine > 1 ? found.filter((symbol) => symbol.line >= startLine) : found;
            const { page, nextLine } = pageOfSymbols(all, MAX_SYMBOLS);
            const symbols = page.map((symbol) => {
                const entry: FileSymbol = {
                    name: symbol.name,
                    kind: symbol.kind,
                    line: symbol.line,
                    endLine: symbol.endLine,
                    signature: symbol.signature,
                };
                if (symbol.container !== undefined) entry.container = symbol.container;
                return entry;
            });
            const result: FileSymbolsResult = {
                ...base,
                supported: true,
                symbols,
                truncated: nextLine !== undefined,
                total: all.length,
            };
            if (nextLine !== undefined) {
                result.nextLine = nextLine;
                result.hint =
                    `Showing ${symbols.length} of ${all.length} symbols; call get_file_symbols again ` +
                    `with startLine ${nextLine} for the rest.`;
            } else if (all.length === 0) {
                result.hint =
                    startLine > 1
                        ? `No symbols from line ${startLine} on.`
                        : "No symbols found; get_file_outline shows the file in 50-line chunks.";
            }
            return toolOk(result);
        },
    };
}
