/**
 * What North leaves in the normal screen's scrollback when the chat (drawn in
 * the alternate screen) ends, as Claude Code and Codex do: the prompts and
 * answers whole, one line per tool call and per review, notices; outputs,
 * thinking and diffs folded away. Bounded to the last rows; what is cut is a
 * resume away.
 */
import type { Ansi } from "./render/ansi";
import { gapBetween, renderEntry } from "./render/entry-lines";
import type { Entry } from "./transcript/types";

/** The most rows left behind: enough to read back a session's end, not to flood the scrollback. */
export const EXIT_TRANSCRIPT_ROWS = 400;

/** An entry as the exit transcript shows it; null: left out. */
function compact(entry: Entry): Entry | null {
    switch (entry.kind) {
        case "thinking":
            return null;
        case "tool":
            return {
                ...entry,
                detail: [],
                fullDetail: undefined,
                live: undefined,
                diagnostics: undefined,
                expanded: false,
            };
        case "review":
            return { ...entry, diffs: undefined, plan: undefined, expanded: false };
        default:
            return entry;
    }
}

export interface ExitTranscriptOptions {
    width: number;
    /** The conversation to name when earlier entries are cut. */
    conversationId?: string;
    maxRows?: number;
}

/**
 * The text to print (ending with a newline), or "" when nothing was said:
 * a start-and-quit leaves nothing but the resume hint.
 */
export function exitTranscript(
    entries: readonly Entry[],
    ansi: Ansi,
    options: ExitTranscriptOptions
): string {
    if (!entries.some((entry) => entry.kind === "user")) return "";
    const maxRows = options.maxRows ?? EXIT_TRANSCRIPT_ROWS;
    const shown = entries.map(compact).filter((entry): entry is Entry => entry !== null);
    const blocks: string[][] = [];
    let rows = 0;
    let index = shown.length - 1;
    for (; index >= 0; index--) {
        const entry = shown[index] as Entry;
        const lines = renderEntry(entry, options.width, ansi).lines;
        const previous = shown[index - 1];
        const block = previous && gapBetween(previous, entry) ? ["", ...lines] : lines;
        if (rows + block.length > maxRows && blocks.length > 0) break;
        blocks.push(block);
        rows += block.length;
    }
    const out: string[] = [];
    if (index >= 0) {
        const resume = options.conversationId
            ? `north resume ${options.conversationId}`
            : "/resume";
        out.push(ansi.dim(`… earlier entries: ${resume}`));
    }
    for (let b = blocks.length - 1; b >= 0; b--) out.push(...(blocks[b] as string[]));
    // A blank line first and last: the shell's prompt and the resume hint stand apart.
    return `\n${out.join("\n")}\n\n`;
}
