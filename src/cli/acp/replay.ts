/**
 * A saved conversation as `session/update` payloads, oldest first, for
 * `session/load`: the user's prompts (images too), the model's text and
 * thinking, each tool call once with its result (completed or failed, with
 * the same title, kind, locations and bounded content as live), the to-do
 * list as a plan. Each message is translated on its own (a call's result is
 * looked up in the message after it only), so nothing but the updates grows
 * with the conversation.
 */
import type { ContentBlock, SessionUpdate, ToolCallStatus } from "@agentclientprotocol/sdk";
import { isPromptEntry } from "../../agent/conversation-log";
import type { ToolDisplays } from "../../agent/tool-displays";
import type {
    AssistantMessage,
    ImageBlock,
    Message,
    ToolCallBlock,
    ToolResultBlock,
    UserMessage,
} from "../../providers/types";
import { FileBlockParser } from "../../tools/north-file/parser";
import { TODO_STATUSES, TODO_WRITE_TOOL, type TodoItem } from "../../tools/todo-write";
import { locationsOf, resultText, textContent, toolKindOf, toolTitle } from "./tool-call-view";
import { planUpdate } from "./updates";

export interface ReplayDeps {
    repoRoot: string;
    toolDisplays: ToolDisplays;
}

function imageContent(image: ImageBlock): ContentBlock {
    return { type: "image", data: image.data, mimeType: image.mediaType };
}

function chunk(
    kind: "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk",
    content: ContentBlock
): SessionUpdate {
    return { sessionUpdate: kind, content };
}

/** What the user typed (and attached); North's own messages (tool results, notes, a Stop hook's reason) are not theirs. */
function userUpdates(message: UserMessage): SessionUpdate[] {
    if (!isPromptEntry(message as unknown as Record<string, unknown>)) return [];
    if (typeof message.content === "string") {
        return message.content === ""
            ? []
            : [chunk("user_message_chunk", { type: "text", text: message.content })];
    }
    const updates: SessionUpdate[] = [];
    for (const block of message.content) {
        if (block.type === "text" && block.text !== "") {
            updates.push(chunk("user_message_chunk", { type: "text", text: block.text }));
        } else if (block.type === "image") {
            updates.push(chunk("user_message_chunk", imageContent(block)));
        }
    }
    return updates;
}

/** The results the message after a model turn holds, by call id. */
function resultsOf(next: Message | undefined): Map<string, ToolResultBlock> {
    const results = new Map<string, ToolResultBlock>();
    if (next?.role !== "user" || typeof next.content === "string") return results;
    for (const block of next.content) {
        if (block.type === "tool_result") results.set(block.toolCallId, block);
    }
    return results;
}

function todoItems(input: unknown): TodoItem[] | undefined {
    const items = (input as { items?: unknown } | null)?.items;
    if (!Array.isArray(items)) return undefined;
    const statuses: readonly string[] = TODO_STATUSES;
    return items.filter(
        (item): item is TodoItem =>
            typeof item === "object" &&
            item !== null &&
            typeof (item as TodoItem).content === "string" &&
            statuses.includes((item as TodoItem).status)
    );
}

/**
 * The model's text as the editor saw it live: NORTH_FILE blocks are not
 * shown as text but as the edit calls they were (`id` names each one, from
 * the message's place in the conversation).
 */
function textUpdates(text: string, id: string, repoRoot: string): SessionUpdate[] {
    const parser = new FileBlockParser();
    const updates: SessionUpdate[] = [];
    let lines = 0;
    let blocks = 0;
    for (const event of [...parser.push(text), ...parser.end()]) {
        switch (event.type) {
            case "display_text":
                updates.push(chunk("agent_message_chunk", { type: "text", text: event.text }));
                break;
            case "session_start":
                lines = 0;
                break;
            case "session_content":
                lines += event.text.split("\n").length - 1;
                break;
            case "session_complete":
            case "session_incomplete": {
                const input = { path: event.path };
                updates.push({
                    sessionUpdate: "tool_call",
                    toolCallId: `${id}-${blocks++}`,
                    title: `Writing ${event.path} (${lines} line${lines === 1 ? "" : "s"})`,
                    kind: "edit",
                    status: event.type === "session_complete" ? "completed" : "failed",
                    rawInput: input,
                    locations: locationsOf(repoRoot, input),
                });
                break;
            }
            default:
                event satisfies never;
        }
    }
    return updates;
}

function callUpdates(
    call: ToolCallBlock,
    result: ToolResultBlock | undefined,
    deps: ReplayDeps
): SessionUpdate[] {
    const { repoRoot, toolDisplays } = deps;
    // A call without a result was cut off (cancelled, or North stopped): it did not complete.
    const status: ToolCallStatus = result && !result.isError ? "completed" : "failed";
    const locations = locationsOf(repoRoot, call.input);
    const text = result
        ? resultText(
              toolDisplays,
              call.name,
              call.input,
              !result.isError,
              result.content,
              undefined
          )
        : "No result was saved for this call.";
    const updates: SessionUpdate[] = [
        {
            sessionUpdate: "tool_call",
            toolCallId: call.id,
            title: toolTitle(toolDisplays, call.name, call.input),
            kind: toolKindOf(call.name),
            status,
            rawInput: call.input,
            content: [textContent(text)],
            ...(locations.length > 0 ? { locations } : {}),
        },
    ];
    const items =
        call.name === TODO_WRITE_TOOL && status === "completed" ? todoItems(call.input) : undefined;
    if (items) updates.push(planUpdate(items));
    return updates;
}

function assistantUpdates(
    message: AssistantMessage,
    index: number,
    next: Message | undefined,
    deps: ReplayDeps
): SessionUpdate[] {
    const results = resultsOf(next);
    const updates: SessionUpdate[] = [];
    for (const [at, block] of message.content.entries()) {
        switch (block.type) {
            case "text":
                updates.push(...textUpdates(block.text, `nf-saved-${index}-${at}`, deps.repoRoot));
                break;
            case "thinking":
                if (block.thinking !== "") {
                    updates.push(
                        chunk("agent_thought_chunk", { type: "text", text: block.thinking })
                    );
                }
                break;
            case "reasoning":
                if (block.summary !== "") {
                    updates.push(
                        chunk("agent_thought_chunk", { type: "text", text: block.summary })
                    );
                }
                break;
            case "redacted_thinking":
                break;
            case "tool_call":
                updates.push(...callUpdates(block, results.get(block.id), deps));
                break;
            default:
                block satisfies never;
        }
    }
    return updates;
}

/** A saved conversation as the updates that draw it again, oldest first. */
export function replayUpdates(messages: readonly Message[], deps: ReplayDeps): SessionUpdate[] {
    const updates: SessionUpdate[] = [];
    messages.forEach((message, index) => {
        const more =
            message.role === "user"
                ? userUpdates(message)
                : assistantUpdates(message, index, messages[index + 1], deps);
        for (const update of more) updates.push(update);
    });
    return updates;
}
