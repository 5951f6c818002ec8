/**
 * get_file_symbols: functions, classes, interfaces, types, enums, methods and
 * constants of one file, each with its line range and signature, found by
 * patterns (TS/JS, Python, Rust, Go, Java, C#, PHP). HTML and stylesheets are
 * redirected to find_blocks; other languages to get_file_outline.
 */
import * as z from "zod";
import { SYMBOL_PARSERS, isCssParser, languageOf } from "./structure/language";
import { type SymbolKind, extractSymbols } from "./structure/symbols";
import { readTextFile } from "./text-file";
import { type ToolDefinition, toolOk } from "./types";
import { fileTitle } from "./display-text";
import { MAX_SYMBOLS } from "./limits";

const input = z.object({
    path: z.string(),
});

export type GetFileSymbolsInput = z.infer<typeof input>;

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
    /** Symbols found, including those not returned. */
    total: number;
    hint?: string;
}

export function createGetFileSymbolsTool(): ToolDefinition<GetFileSymbolsInput, FileSymbolsResult> {
    return {
        name: "get_file_symbols",
        description:
            "List a source file's functions, classes, interfaces, types, enums, methods and constants " +
            `with line ranges and signatures (TS/JS, Python, Rust, Go, Java, C#, PHP; max ${MAX_SYMBOLS}). ` +
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
            const all = extractSymbols(lines, parser, { signatures: MAX_SYMBOLS });
            const symbols = all.slice(0, MAX_SYMBOLS).map((symbol) => {
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
                truncated: all.length > MAX_SYMBOLS,
                total: all.length,
            };
            if (result.truncated) {
                const next = all[MAX_SYMBOLS]!.line;
                result.hint = `Showing ${MAX_SYMBOLS} of ${all.length} symbols; get_file_outline with startLine ${next} continues from line ${next}.`;
            } else if (all.length === 0) {
                result.hint =
                    "No symbols found; get_file_outline shows the file in 50-line chunks.";
            }
            return toolOk(result);
        },
    };
}
