import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type StructuredSummary, renderSummary } from "../summary-text";
import type { Outcome } from "../protocol";
import type { Message } from "../../providers/types";
import { resolveWritablePath } from "../../tools/path-guard";
import { writeFileAtomic } from "../../util/atomic-write";

export interface ExportSource {
    id: string;
    repoRoot: string;
    model: string;
    messages: readonly Message[];
    summary: StructuredSummary | null;
    exportedAt: Date;
}

/** Tool inputs are shown up to this many characters. */
const MAX_INPUT_CHARS = 300;
/** Tool results are shown up to this many lines. */
const MAX_RESULT_LINES = 12;

function clip(text: string, max: number): string {
    return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** A fence longer than any backtick run in `text`. */
function fenced(text: string): string {
    const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
    const fence = "`".repeat(longest + 1);
    return `${fence}\n${text}\n${fence}`;
}

function resultPreview(content: string): string {
    const lines = content.split("\n");
    const shown = lines.slice(0, MAX_RESULT_LINES).join("\n");
    const more = lines.length - MAX_RESULT_LINES;
    return more > 0 ? `${shown}\n… ${more} more lines` : shown;
}

/**
 * The conversation as Markdown: prompts and answers in full, tool calls with
 * their (clipped) input and the start of their results, the rolling summary
 * first when older messages were summarised.
 */
export function conversationMarkdown(source: ExportSource): string {
    const out: string[] = [
        `# North conversation ${source.id}`,
        "",
        `- Project: \`${source.repoRoot}\``,
        `- Model: ${source.model}`,
        `- Exported: ${source.exportedAt.toISOString()}`,
        "",
    ];
    if (source.summary) {
        out.push("## Summary of earlier messages", "", renderSummary(source.summary).trim(), "");
    }
    for (const message of source.messages) {
        if (message.role === "user") {
            if (typeof message.content === "string") {
                out.push("## User", "", message.content.trim(), "");
                continue;
            }
            for (const block of message.content) {
                if (block.type === "tool_result") {
                    const label = block.isError ? "Tool error" : "Tool result";
                    out.push(`**${label}:**`, "", fenced(resultPreview(block.content)), "");
                } else if (block.type === "text" && block.text.trim()) {
                    out.push(block.text.trim(), "");
                }
            }
            continue;
        }
        const text = message.content
            .flatMap((b) => (b.type === "text" ? [b.text] : []))
            .join("")
            .trim();
        out.push("## Assistant", "");
        if (text) out.push(text, "");
        for (const block of message.content) {
            if (block.type !== "tool_call") continue;
            const input = clip(JSON.stringify(block.input ?? {}), MAX_INPUT_CHARS);
            out.push(`**Tool:** \`${block.name}\``, "", fenced(input), "");
        }
    }
    return `${out.join("\n").trimEnd()}\n`;
}

/**
 * Writes `markdown` to `path`, atomically: paths outside the project
 * (symlinks included) and git's internals are refused; the user types the
 * path, so protected configuration folders are allowed here. Without a path
 * it goes to `north-<id>.md` in `exportsDir` (North's data folder), so the
 * repository stays as the user left it.
 */
export async function exportMarkdownFile(
    repoRoot: string,
    id: string,
    path: string | undefined,
    markdown: string,
    exportsDir: string
): Promise<Outcome> {
    const wanted = path?.trim();
    const lines = markdown.split("\n").length;
    if (!wanted) {
        const target = join(exportsDir, `north-${id}.md`);
        try {
            await mkdir(exportsDir, { recursive: true, mode: 0o700 });
            await writeFileAtomic(target, markdown);
        } catch (error) {
            return {
                message: `could not write ${target}: ${(error as Error).message}`,
                isError: true,
            };
        }
        return { message: `Exported the conversation to ${target} (${lines} lines).` };
    }
    const safe = await resolveWritablePath(repoRoot, wanted, { mustExist: false });
    if (!safe.ok) return { message: safe.error.message, isError: true };
    if (safe.data.relPath === ".") {
        return { message: `"${wanted}" is the project folder, not a file`, isError: true };
    }
    try {
        await mkdir(dirname(safe.data.absPath), { recursive: true });
        await writeFileAtomic(safe.data.absPath, markdown);
    } catch (error) {
        return {
            message: `could not write ${safe.data.relPath}: ${(error as Error).message}`,
            isError: true,
        };
    }
    return { message: `Exported the conversation to ${safe.data.relPath} (${lines} lines).` };
}
