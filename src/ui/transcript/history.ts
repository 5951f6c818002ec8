/**
 * A resumed conversation as transcript actions, so the user sees it as it
 * was. Conversations keep what the chat showed (`view` records: tool results
 * with their details, reviews, thinking, a cancelled answer); the parts
 * written before North kept them are rebuilt from the messages.
 */
import type { EngineEvent } from "../../agent/events";
import type { Message, ToolCallBlock } from "../../providers/types";
import { EMPTY_USAGE } from "../../providers/types";
import { imageLabel } from "../../project/images";
import type { TranscriptAction } from "./reducer";
import { citationsOf, searchEventOf } from "../../agent/web-search-events";

/** Messages rebuilt at most from a conversation without view records; older ones are counted in one line. */
export const HISTORY_LIMIT = 200;

/** A stored conversation, as the engine hands it to the chat. */
export interface StoredHistory {
    view: ReadonlyArray<Record<string, unknown>>;
    messages: readonly Message[];
    /** Messages written before the first view record. */
    messagesBeforeView: number;
}

const ACTION_TYPES = new Set(["engine", "user", "notice", "review", "command"]);

/** A view record as an action, or null when it is not one this version draws. */
function actionOf(record: Record<string, unknown>): TranscriptAction | null {
    if (typeof record.type !== "string" || !ACTION_TYPES.has(record.type)) return null;
    if (record.type === "engine") {
        const event = record.event as { type?: unknown } | null | undefined;
        if (typeof event !== "object" || event === null || typeof event.type !== "string")
            return null;
    }
    return record as unknown as TranscriptAction;
}

/** The actions that draw `history`: rebuilt messages first, then the recorded view. */
export function storedHistoryActions(history: StoredHistory): TranscriptAction[] {
    const actions = historyActions(history.messages.slice(0, history.messagesBeforeView));
    let open = false;
    for (const record of history.view) {
        const action = actionOf(record);
        if (!action) continue;
        if (action.type === "engine" && action.event.type === "run_start") open = true;
        if (action.type === "engine" && action.event.type === "run_end") open = false;
        actions.push(action);
    }
    // North stopped in the middle of an answer (a kill): show that run as ended.
    if (open) actions.push({ type: "engine", event: interruptedRunEnd() });
    return actions;
}

function interruptedRunEnd(): EngineEvent {
    return {
        type: "run_end",
        result: {
            subtype: "cancelled",
            isError: true,
            text: "",
            error: "North stopped before this answer finished",
            numTurns: 0,
            durationMs: 0,
            usage: { ...EMPTY_USAGE },
            costUsd: null,
            toolCalls: [],
        },
    };
}

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
                else if (block.type === "image") texts.push(imageLabel(block));
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
            } else if (block.type === "web_search") {
                actions.push({ type: "engine", event: searchEventOf(block) });
            } else if (block.type === "tool_call") {
                const call = block as ToolCallBlock;
                names.set(call.id, call.name);
                actions.push({
                    type: "engine",
                    event: { type: "tool_call", id: call.id, name: call.name, input: call.input },
                });
            }
        }
        const citations = citationsOf(message);
        if (citations.length > 0)
            actions.push({ type: "engine", event: { type: "citations", citations } });
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
