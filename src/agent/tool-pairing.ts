import type { Message, ToolResultBlock, UserMessage } from "../providers/types";

const INTERRUPTED =
    "No result: this tool call was interrupted before it finished (cancelled or the process stopped).";

/**
 * Every tool call must be answered by exactly one tool result in the next user
 * message, or the APIs reject the whole request. Returns messages where missing
 * results are filled with an "interrupted" error and stray or duplicate results
 * are dropped; the input is not modified.
 */
export function repairToolPairing(messages: readonly Message[]): {
    messages: Message[];
    repaired: number;
} {
    const out: Message[] = [];
    let repaired = 0;
    for (let i = 0; i < messages.length; i++) {
        const message = messages[i]!;
        if (message.role === "user") {
            // Results here belong to the assistant message just before; pairing is handled there.
            if (typeof message.content !== "string" && hasToolResults(message)) {
                const previous = out[out.length - 1];
                if (previous?.role !== "assistant") {
                    const kept = message.content.filter((b) => b.type !== "tool_result");
                    repaired += message.content.length - kept.length;
                    if (kept.length > 0) out.push({ role: "user", content: kept });
                    continue;
                }
            }
            out.push(message);
            continue;
        }
        out.push(message);
        const callIds = message.content.flatMap((b) => (b.type === "tool_call" ? [b.id] : []));
        const next = messages[i + 1];
        const nextBlocks =
            next?.role === "user" && typeof next.content !== "string" ? next.content : null;
        if (callIds.length === 0) {
            if (nextBlocks && next && hasToolResults(next as UserMessage)) {
                const kept = nextBlocks.filter((b) => b.type !== "tool_result");
                repaired += nextBlocks.length - kept.length;
                if (kept.length > 0) out.push({ role: "user", content: kept });
                i++;
            }
            continue;
        }
        const results = new Map<string, ToolResultBlock>();
        const others: UserMessage["content"] = [];
        if (nextBlocks) {
            for (const block of nextBlocks) {
                if (block.type !== "tool_result") others.push(block);
                else if (!callIds.includes(block.toolCallId) || results.has(block.toolCallId))
                    repaired++;
                else results.set(block.toolCallId, block);
            }
        }
        const paired: ToolResultBlock[] = callIds.map((id) => {
            const found = results.get(id);
            if (found) return found;
            repaired++;
            return { type: "tool_result", toolCallId: id, content: INTERRUPTED, isError: true };
        });
        if (nextBlocks) i++;
        else if (next?.role === "user" && typeof next.content === "string") {
            // A plain user message followed the calls: results go first, then the text.
            others.push({ type: "text", text: next.content });
            i++;
        }
        out.push({ role: "user", content: [...paired, ...others] });
    }
    return { messages: out, repaired };
}

function hasToolResults(message: UserMessage): boolean {
    return (
        typeof message.content !== "string" && message.content.some((b) => b.type === "tool_result")
    );
}
