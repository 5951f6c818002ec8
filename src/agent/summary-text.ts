import type { Message, TextBlock, UserMessage } from "../providers/types";
import { webSearchAsText } from "../providers/server-tools";

/** The rolling summary that stands in for trimmed messages. */
export interface StructuredSummary {
    goal: string;
    decisions: string[];
    constraints: string[];
    openTasks: string[];
    importantFiles: string[];
}

export function renderSummary(summary: StructuredSummary): string {
    const list = (title: string, items: string[]): string =>
        items.length === 0 ? "" : `\n## ${title}\n${items.map((i) => `- ${i}`).join("\n")}\n`;
    return (
        `# Summary of the earlier conversation\n` +
        `(Older messages were replaced by this summary to save context.)\n\n## Goal\n${summary.goal}\n` +
        list("Decisions", summary.decisions) +
        list("Constraints", summary.constraints) +
        list("Open tasks", summary.openTasks) +
        list("Important files", summary.importantFiles)
    );
}

function isToolResultMessage(message: Message): boolean {
    return (
        message.role === "user" &&
        typeof message.content !== "string" &&
        message.content.some((b) => b.type === "tool_result")
    );
}

/**
 * Where to cut so that at least `keepLast` messages stay verbatim and no
 * tool_use is separated from its tool_result: the kept part starts at an
 * assistant message or at a user prompt, never at tool results. Returns 0 when
 * nothing can be cut.
 */
export function chooseCutIndex(messages: readonly Message[], keepLast: number): number {
    for (let i = Math.max(0, messages.length - keepLast); i > 0; i--) {
        if (!isToolResultMessage(messages[i]!)) return i;
    }
    return 0;
}

/**
 * The messages as sent, in the spec's context order: (rules and profile are in
 * the system prompt) attached files, then the rolling summary, then the
 * transcript. The leading blocks join the first user message; when the kept
 * transcript starts with an assistant turn they form a user message of their
 * own, so the conversation still opens with the user.
 */
export function withSummary(
    messages: readonly Message[],
    summary: StructuredSummary | null,
    attachedFiles?: string
): Message[] {
    const leading: TextBlock[] = [];
    if (attachedFiles) leading.push({ type: "text", text: attachedFiles });
    if (summary) leading.push({ type: "text", text: renderSummary(summary) });
    if (leading.length === 0) return [...messages];
    const first = messages[0];
    if (first?.role === "user" && !isToolResultMessage(first)) {
        const rest: UserMessage["content"] =
            typeof first.content === "string"
                ? [{ type: "text", text: first.content }]
                : first.content;
        return [{ role: "user", content: [...leading, ...rest] }, ...messages.slice(1)];
    }
    return [{ role: "user", content: leading }, ...messages];
}

/** A plain-text rendering of messages for the summariser, capped at `maxChars` (oldest cut first). */
export function renderForSummary(messages: readonly Message[], maxChars: number): string {
    const lines: string[] = [];
    for (const message of messages) {
        if (typeof message.content === "string") {
            lines.push(`${message.role.toUpperCase()}: ${message.content}`);
            continue;
        }
        for (const block of message.content) {
            if (block.type === "text") lines.push(`${message.role.toUpperCase()}: ${block.text}`);
            else if (block.type === "tool_call")
                lines.push(`TOOL CALL ${block.name} ${block.rawInput.slice(0, 500)}`);
            else if (block.type === "web_search")
                lines.push(`WEB SEARCH ${webSearchAsText(block)}`);
            else if (block.type === "tool_result") {
                const text =
                    block.content.length > 1500
                        ? `${block.content.slice(0, 1500)}… [cut]`
                        : block.content;
                lines.push(`TOOL RESULT${block.isError ? " (error)" : ""}: ${text}`);
            }
        }
    }
    const text = lines.join("\n");
    return text.length > maxChars
        ? `[earliest part cut]\n${text.slice(text.length - maxChars)}`
        : text;
}

const SUMMARY_FIELDS = ["decisions", "constraints", "openTasks", "importantFiles"] as const;

/** Parses the summariser's answer (bare JSON or fenced); null when it is not a usable summary. */
export function parseSummary(text: string): StructuredSummary | null {
    const start = text.indexOf("{");
    const end = text.lastIndexOf("}");
    if (start < 0 || end <= start) return null;
    let raw: unknown;
    try {
        raw = JSON.parse(text.slice(start, end + 1));
    } catch {
        return null;
    }
    if (typeof raw !== "object" || raw === null) return null;
    const record = raw as Record<string, unknown>;
    if (typeof record.goal !== "string") return null;
    const summary: StructuredSummary = {
        goal: record.goal,
        decisions: [],
        constraints: [],
        openTasks: [],
        importantFiles: [],
    };
    for (const field of SUMMARY_FIELDS) {
        const value = record[field];
        if (value === undefined) continue;
        if (!Array.isArray(value)) return null;
        summary[field] = value.map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
    }
    return summary;
}

export const SUMMARY_SYSTEM_PROMPT = `You condense a coding conversation so it can continue with less context. Reply with one JSON object and nothing else:
{"goal": string, "decisions": string[], "constraints": string[], "openTasks": string[], "importantFiles": string[]}
goal: what the user is trying to achieve. decisions: what was decided or done, with file paths. constraints: rules and preferences the user stated. openTasks: what remains. importantFiles: repo-relative paths that matter. Be specific and brief.`;
