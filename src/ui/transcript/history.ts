/**
 * A resumed conversation's messages as transcript actions, so the user sees
 * where they left off: prompts, answers and tool calls (without their
 * display details, which are not stored).
 */
import type { Message, ToolCallBlock } from "../../providers/types";
import { EMPTY_USAGE } from "../../providers/types";
import type { TranscriptAction } from "./reducer";

/** Messages shown at most; older ones are summarised in one line. */
export const HISTORY_LIMIT = 200;

export function historyActions(messages: readonly Message[]): TranscriptAction[] {
    const actions: TranscriptAction[] = [];
    const shown = messages.slice(-HISTORY_LIMIT);
    if (messages.length > shown.length) {
        actions.push({
            type: "notice",
            level: "info",
            text: `… ${messages.length - shown.length} earlier messages not shown`,
        });
    }
    const names = new Map<string, string>();
    for (const message of shown) {
        if (message.role === "user") {
            if (typeof message.content === "string") {
                actions.push({ type: "user", text: message.content });
                continue;
            }
            const texts: string[] = [];
            for (const block of message.content) {
                if (block.type === "text") texts.push(block.text);
                else {
                    actions.push({
                        type: "engine",
                        event: {
                            type: "tool_result",
                            id: block.toolCallId,
                            name: names.get(block.toolCallId) ?? "tool",
                            ok: !block.isError,
                            content: block.content,
                            error: block.isError ? { code: "internal", message: "" } : undefined,
                            durationMs: 0,
                        },
                    });
                }
            }
            // Text beside tool results is North's own notes to the model, not the user's.
            const hasResults = message.content.some((b) => b.type === "tool_result");
            if (!hasResults && texts.length > 0)
                actions.push({ type: "user", text: texts.join("\n") });
            continue;
        }
        for (const block of message.content) {
            if (block.type === "text" && block.text.trim() !== "") {
                actions.push({ type: "engine", event: { type: "text_delta", text: block.text } });
            } else if (block.type === "tool_call") {
                const call = block as ToolCallBlock;
                names.set(call.id, call.name);
                actions.push({
                    type: "engine",
                    event: { type: "tool_call", id: call.id, name: call.name, input: call.input },
                });
            }
        }
        actions.push({
            type: "engine",
            event: {
                type: "turn_end",
                turn: 0,
                stopReason: "end_turn",
                usage: { ...EMPTY_USAGE },
                costUsd: 0,
            },
        });
    }
    return actions;
}
