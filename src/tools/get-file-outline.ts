/**
 * get_file_outline: a file's structure as a tree with line ranges (imports,
 * symbols with members, exports; HTML sections with inline style and script;
 * stylesheet rules; 50-line chunks otherwise), plus a compact text form.
 */
import { type InputOf, toolInput } from "./tool-input";
import { SYMBOL_PARSERS, languageOf } from "./structure/language";
import {
    type OutlineItem,
    type OutlineMode,
    buildOutline,
    limitOutline,
    renderOutline,
} from "./structure/outline";
import { readTextFile } from "./text-file";
import { type ToolDefinition, toolOk } from "./types";
import { fileTitle } from "./display-text";
import { MAX_OUTLINE_ITEMS } from "./limits";

/** Lines longer than this are reported as minified or generated. */
const LONG_LINE_CHARS = 10_000;

const input = toolInput((z) =>
    z.object({
        path: z.string(),
        startLine: z
            .number()
            .int()
            .min(1)
            .optional()
            .describe("Skip items ending before this line."),
    })
);

export type GetFileOutlineInput = InputOf<typeof input>;

export interface FileOutlineResult {
    path: string;
    language: string;
    totalLines: number;
    /** How the file was outlined. */
    mode: OutlineMode;
    items: OutlineItem[];
    /** The same tree as text: "17-33 class Server", "  └─ 19-21 method start". */
    outline: string;
    truncated: boolean;
    /** Items in the outline from startLine on, shown or not. */
    totalItems: number;
    /** Where to continue (startLine) when top-level items were cut. */
    nextLine?: number;
    note?: string;
}

function longestLine(lines: readonly string[]): { line: number; length: number } {
    let line = 0;
    let length = 0;
    for (let i = 0; i < lines.length; i++) {
        if (lines[i]!.length > length) {
            length = lines[i]!.length;
            line = i + 1;
        }
    }
    return { line, length };
}

export function createGetFileOutlineTool(): ToolDefinition<GetFileOutlineInput, FileOutlineResult> {
    return {
        name: "get_file_outline",
        description:
            "Outline a file with line ranges: imports, classes and methods, functions, exports; HTML " +
            "sections with inline <style>/<script>; CSS rules and @media; else 50-line chunks. " +
            `At most ${MAX_OUTLINE_ITEMS} items, then startLine = nextLine.`,
        input,
        approvalPolicy: "none",
        readOnly: true,
        display: { title: fileTitle("Outlining") },
        async execute(args, ctx) {
            const loaded = await readTextFile(ctx, args.path, { tool: "get_file_outline" });
            if (!loaded.ok) return loaded;
            const { relPath, lines } = loaded.data;
            const language = languageOf(relPath);
            const built = buildOutline(lines, language?.parser ?? "none");
            const limited = limitOutline(built.items, MAX_OUTLINE_ITEMS, args.startLine ?? 1);
            const result: FileOutlineResult = {
                path: relPath,
                language: language?.name ?? "unknown",
                totalLines: lines.length,
                mode: built.mode,
                items: limited.items,
                outline: renderOutline(limited.items),
                truncated: limited.truncated,
                totalItems: limited.total,
            };
            const notes: string[] = [];
            if (limited.nextLine !== undefined) {
                result.nextLine = limited.nextLine;
                notes.push(
                    `Outline cut at ${MAX_OUTLINE_ITEMS} items; continue with startLine ${limited.nextLine}.`
                );
            }
            const folded = limited.items.find((item) => item.hiddenChildren !== undefined);
            if (folded) {
                // Paging the outline never unfolds members; these tools list them all.
                const lister = SYMBOL_PARSERS.includes(language?.parser ?? "none")
                    ? `get_file_symbols with startLine ${folded.startLine}`
                    : "find_blocks";
                notes.push(
                    `Members of ${folded.label} (line ${folded.startLine}) and later items are folded ` +
                        `into counts; ${lister} lists them.`
                );
            }
            if (built.mode === "chunks" && lines.length > 0) {
                notes.push(
                    language && language.parser === "none"
                        ? `No structure parser for ${language.name}: shown as 50-line chunks.`
                        : "No structure found: shown as 50-line chunks."
                );
            }
            const longest = longestLine(lines);
            if (longest.length > LONG_LINE_CHARS) {
                notes.push(
                    `Line ${longest.line} is ${longest.length} characters long (minified or generated); ` +
                        "use search_text or read_around on it, not read_file."
                );
            }
            if (notes.length > 0) result.note = notes.join(" ");
            return toolOk(result);
        },
    };
}
