/**
 * read_around: the lines around an anchor text, numbered, the anchor's line
 * marked with ">". One call replaces "search, then read a range". Several
 * matches need `occurrence`; without it the tool lists the candidates.
 */
import type { ClientFiles } from "./client-workspace";
import { type InputOf, toolInput } from "./tool-input";
import { type TextMatch, findTextLines, readTextFile } from "./text-file";
import { type ToolDefinition, type ToolResult, toolError, toolOk } from "./types";
import { NAME_ONLY_DISPLAY } from "./display-text";
import { READ_AROUND_MAX_CONTEXT_LINES, READ_AROUND_MAX_LINE_CHARS } from "./limits";

export const MAX_CONTEXT_LINES = READ_AROUND_MAX_CONTEXT_LINES;
/** Characters of a line shown; the anchor's line shows a window around the anchor. */
export const MAX_LINE_CHARS = READ_AROUND_MAX_LINE_CHARS;
const MAX_CANDIDATES = 20;
const PREVIEW_CHARS = 100;

const input = toolInput((z) =>
    z.object({
        path: z.string(),
        anchor: z
            .string()
            .min(1)
            .describe("Exact text (case and whitespace matter); may span lines."),
        before: z
            .number()
            .int()
            .min(0)
            .max(MAX_CONTEXT_LINES)
            .default(12)
            .describe("Lines before; default 12."),
        after: z
            .number()
            .int()
            .min(0)
            .max(MAX_CONTEXT_LINES)
            .default(20)
            .describe("Lines after; default 20."),
        occurrence: z
            .number()
            .int()
            .min(1, "occurrence is 1-based: 1 is the first match")
            .optional()
            .describe("Which match, from 1."),
    })
);

export type ReadAroundInput = InputOf<typeof input>;

export interface ReadAroundResult {
    path: string;
    totalLines: number;
    /** Lines holding the anchor. */
    matchCount: number;
    occurrenceUsed: number;
    matchLine: number;
    startLine: number;
    endLine: number;
    /** "> 42| text" for the match line, "  41| text" for the others. */
    content: string;
    note?: string;
}

function clipPreview(text: string): string {
    const t = text.trim();
    return t.length > PREVIEW_CHARS ? `${t.slice(0, PREVIEW_CHARS - 1)}…` : t;
}

function listCandidates(lines: readonly string[], matches: readonly TextMatch[]): string {
    const shown = matches
        .slice(0, MAX_CANDIDATES)
        .map((m) => `  line ${m.line}: ${clipPreview(lines[m.line - 1]!)}`);
    if (matches.length > MAX_CANDIDATES)
        shown.push(`  and ${matches.length - MAX_CANDIDATES} more`);
    return shown.join("\n");
}

/** A long line cut to `MAX_LINE_CHARS`; around `col` when given. */
function fitLine(text: string, col: number | null): { text: string; cut: boolean } {
    if (text.length <= MAX_LINE_CHARS) return { text, cut: false };
    if (col === null)
        return {
            text: `${text.slice(0, MAX_LINE_CHARS)}… (+${text.length - MAX_LINE_CHARS} chars)`,
            cut: true,
        };
    const start = Math.max(0, Math.min(col - 200, text.length - MAX_LINE_CHARS));
    const end = start + MAX_LINE_CHARS;
    return {
        text: `${start > 0 ? `…(${start} chars) ` : ""}${text.slice(start, end)}${end < text.length ? ` …(+${text.length - end} chars)` : ""}`,
        cut: true,
    };
}

export interface ReadAroundOptions {
    /** The editor's files (ACP): the lines come from its buffer. */
    files?: ClientFiles;
}

export function createReadAroundTool(
    options: ReadAroundOptions = {}
): ToolDefinition<ReadAroundInput, ReadAroundResult> {
    return {
        name: "read_around",
        description:
            "Read the lines around an exact anchor text in a file, numbered, the anchor's line marked " +
            '">". Several matches: pass occurrence (the error lists candidates). No match: use search_text.',
        input,
        approvalPolicy: "none",
        readOnly: true,
        display: NAME_ONLY_DISPLAY,
        hookAliases: ["Read"],
        async execute(args, ctx): Promise<ToolResult<ReadAroundResult>> {
            const loaded = await readTextFile(ctx, args.path, {
                tool: "read_around",
                files: options.files,
            });
            if (!loaded.ok) return loaded;
            const { relPath, lines } = loaded.data;
            const anchor = args.anchor.replace(/\r\n/g, "\n");
            const matches = findTextLines(lines, anchor);
            const shown = JSON.stringify(anchor.length > 80 ? `${anchor.slice(0, 79)}…` : anchor);
            if (matches.length === 0) {
                const lower = anchor.toLowerCase();
                const loose = lines.findIndex((line) => line.toLowerCase().includes(lower));
                const caseHint =
                    loose >= 0 && !anchor.includes("\n")
                        ? ` It does occur with different case on line ${loose + 1}: ${clipPreview(lines[loose]!)}`
                        : "";
                return toolError(
                    "no_match",
                    `${shown} does not occur in ${relPath} (${lines.length} lines; exact text, case and ` +
                        `whitespace matter).${caseHint} Use search_text to find the text.`
                );
            }
            const count = matches.length;
            if (args.occurrence === undefined && count > 1) {
                return toolError(
                    "ambiguous_match",
                    `${shown} occurs on ${count} lines of ${relPath}. Pass occurrence (1-${count}) or a ` +
                        `longer anchor. Candidates:\n${listCandidates(lines, matches)}`
                );
            }
            const occurrence = args.occurrence ?? 1;
            if (occurrence < 1 || occurrence > count) {
                return toolError(
                    "out_of_range",
                    `occurrence ${occurrence} is out of range: ${shown} occurs on ${count} ` +
                        `line${count === 1 ? "" : "s"} of ${relPath}, so use 1-${count} (1-based). ` +
                        `Candidates:\n${listCandidates(lines, matches)}`
                );
            }
            const match = matches[occurrence - 1]!;
            // A trailing newline only says the anchor ends its line.
            const anchorLines = anchor.replace(/\n$/, "").split("\n").length;
            const startLine = Math.max(1, match.line - args.before);
            const endLine = Math.min(lines.length, match.line + anchorLines - 1 + args.after);
            const width = String(endLine).length;
            const out: string[] = [];
            let cutLines = 0;
            for (let n = startLine; n <= endLine; n++) {
                const fitted = fitLine(lines[n - 1]!, n === match.line ? match.col : null);
                if (fitted.cut) cutLines++;
                const mark = n >= match.line && n < match.line + anchorLines ? ">" : " ";
                out.push(`${mark} ${String(n).padStart(width)}| ${fitted.text}`);
            }
            const result: ReadAroundResult = {
                path: relPath,
                totalLines: lines.length,
                matchCount: count,
                occurrenceUsed: occurrence,
                matchLine: match.line,
                startLine,
                endLine,
                content: out.join("\n"),
            };
            if (cutLines > 0) {
                result.note = `${cutLines} line${cutLines === 1 ? " was" : "s were"} longer than ${MAX_LINE_CHARS} characters and cut.`;
            }
            return toolOk(result);
        },
    };
}
