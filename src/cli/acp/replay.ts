/**
 * A saved conversation as `session/update` payloads, oldest first, for
 * `session/load`: the user's prompts (images too), the model's text and
 * thinking, each tool call once with its result (completed or failed, with
 * the same title, kind, locations and bounded content as live), the to-do
 * list as a plan, an applied edit as the diff the log kept of it. Each
 * message is translated on its own (a call's result is looked up in the
 * message after it only), so nothing but the updates grows with the
 * conversation beyond the view records already loaded.
 */
import { isAbsolute, resolve } from "node:path";
import type {
    ContentBlock,
    SessionUpdate,
    ToolCallContent,
    ToolCallStatus,
} from "@agentclientprotocol/sdk";
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
import { webSearchSummary } from "../../providers/server-tools";
import { TODO_STATUSES, TODO_WRITE_TOOL, type TodoItem } from "../../tools/todo-write";
import type { FileDiff } from "../../tools/types";
import {
    appliedFiles,
    diffContents,
    diffLocations,
    NORTH_FILE_TOOL,
    fenced,
    locationsOf,
    resultText,
    textContent,
    toolKindOf,
    toolTitle,
} from "./tool-call-view";
import { planUpdate } from "./updates";

export interface ReplayDeps {
    repoRoot: string;
    toolDisplays: ToolDisplays;
}

/** An applied write's file as the log kept it (agent/conversation-log.ts compactWriteDiffs). */
type SavedDiff = FileDiff & { diffTruncated?: true };

function optionalText(value: unknown): boolean {
    return value === undefined || value === null || typeof value === "string";
}

/** The diffs of a `write_applied` view record, when the record is one and well formed. */
function savedWrite(
    record: Record<string, unknown>
): { id: string; toolName: unknown; diffs: SavedDiff[] } | null {
    const event = record.event as {
        type?: unknown;
        toolCallId?: unknown;
        toolName?: unknown;
        diffs?: unknown;
    } | null;
    if (record.type !== "engine" || event?.type !== "write_applied") return null;
    if (typeof event.toolCallId !== "string" || !Array.isArray(event.diffs)) return null;
    const valid = event.diffs.every((d: unknown) => {
        const file = d as Record<string, unknown> | null;
        return (
            typeof file?.path === "string" &&
            typeof file.diff === "string" &&
            optionalText(file.oldText) &&
            optionalText(file.newText) &&
            (file.absPath === undefined || typeof file.absPath === "string")
        );
    });
    return valid
        ? { id: event.toolCallId, toolName: event.toolName, diffs: event.diffs as SavedDiff[] }
        : null;
}

/** The engine's note that a NORTH_FILE block landed (agent/north-file-turn.ts). */
const ACCEPTED_NOTE = /^\[North\] NORTH_FILE (.+?): written \(\d+ lines?\) and accepted\./gm;

/**
 * The NORTH_FILE blocks a message after a model turn says were accepted,
 * counted by file (the engine's note to the model, agent/north-file-turn.ts;
 * a block without one was refused or failed, and nothing of it landed).
 */
function acceptedNorthFiles(next: Message | undefined, repoRoot: string): Map<string, number> {
    const accepted = new Map<string, number>();
    if (next?.role !== "user" || typeof next.content === "string") return accepted;
    for (const block of next.content) {
        if (block.type !== "text") continue;
        for (const note of block.text.matchAll(ACCEPTED_NOTE)) {
            const path = absolute(repoRoot, note[1] as string);
            accepted.set(path, (accepted.get(path) ?? 0) + 1);
        }
    }
    return accepted;
}

/**
 * The writes the log kept, handed to the edit calls that made them: by call
 * id, and a NORTH_FILE block's by its file (its ids restart each prompt).
 * Ids repeat and a summary drops old messages, not old view records, so
 * writes are matched from the end: the last write to the last call that
 * landed. A conversation older than these records has none to match.
 */
class SavedWrites {
    private readonly byKey = new Map<string, { skip: number; writes: SavedDiff[][] }>();

    constructor(
        view: ReadonlyArray<Record<string, unknown>>,
        messages: readonly Message[],
        private readonly repoRoot: string
    ) {
        for (const record of view) {
            const write = savedWrite(record);
            if (!write) continue;
            const [only] = write.diffs;
            const key =
                write.toolName === NORTH_FILE_TOOL
                    ? only && write.diffs.length === 1
                        ? this.fileKey(only.path)
                        : null
                    : `call:${write.id}`;
            if (key === null) continue;
            const entry = this.byKey.get(key) ?? { skip: 0, writes: [] };
            entry.writes.push(write.diffs);
            this.byKey.set(key, entry);
        }
        if (this.byKey.size === 0) return;
        const landed = new Map<string, number>();
        const count = (key: string, n = 1) => landed.set(key, (landed.get(key) ?? 0) + n);
        messages.forEach((message, index) => {
            if (message.role !== "assistant") return;
            const next = messages[index + 1];
            const results = resultsOf(next);
            for (const block of message.content) {
                if (block.type === "tool_call" && landedEdit(block, results.get(block.id))) {
                    count(`call:${block.id}`);
                }
            }
            for (const [path, n] of acceptedNorthFiles(next, repoRoot)) count(`file:${path}`, n);
        });
        for (const [key, entry] of this.byKey) {
            const calls = landed.get(key) ?? 0;
            entry.writes.splice(0, Math.max(0, entry.writes.length - calls));
            entry.skip = Math.max(0, calls - entry.writes.length);
        }
    }

    private fileKey(path: string): string {
        return `file:${absolute(this.repoRoot, path)}`;
    }

    /** The write of the next landed edit call `id`, in conversation order. */
    take(id: string): SavedDiff[] | undefined {
        return this.takeKey(`call:${id}`);
    }

    /** The write of the next accepted NORTH_FILE block to `path`, in conversation order. */
    takeFile(path: string): SavedDiff[] | undefined {
        return this.takeKey(this.fileKey(path));
    }

    private takeKey(key: string): SavedDiff[] | undefined {
        const entry = this.byKey.get(key);
        if (!entry) return undefined;
        if (entry.skip > 0) {
            entry.skip--;
            return undefined;
        }
        return entry.writes.shift();
    }
}

function landedEdit(call: ToolCallBlock, result: ToolResultBlock | undefined): boolean {
    return toolKindOf(call.name) === "edit" && result !== undefined && !result.isError;
}

function absolute(repoRoot: string, path: string): string {
    return isAbsolute(path) ? path : resolve(repoRoot, path);
}

/** Whether a saved write changed every file the call names (else it is not this call's). */
function writeFits(repoRoot: string, input: unknown, diffs: readonly SavedDiff[]): boolean {
    const changed = new Set<string>();
    for (const d of diffs) {
        changed.add(absolute(repoRoot, d.path));
        if (d.absPath !== undefined) changed.add(d.absPath);
    }
    return locationsOf(repoRoot, input).every((l) => changed.has(l.path));
}

/** A saved write as the editor draws it: native diffs where both texts were kept, else the unified diff. */
function savedDiffContents(repoRoot: string, diffs: readonly SavedDiff[]): ToolCallContent[] {
    return diffs.flatMap((file) =>
        file.diffTruncated
            ? [
                  textContent(
                      `${fenced(file.diff, "diff")}\n\n… (the rest of this diff was not kept)`
                  ),
              ]
            : diffContents(repoRoot, [file])
    );
}

/** An edit's result as "path +N −M" lines (its JSON answer to the model), when it reads as one. */
function appliedSummary(content: string): string | undefined {
    let parsed: unknown;
    try {
        parsed = JSON.parse(content);
    } catch {
        return undefined;
    }
    const files = appliedFiles(parsed);
    return files?.map((f) => `${f.path} +${f.linesAdded} −${f.linesRemoved}`).join("\n");
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

/** A completed NORTH_FILE block's saved write, when the engine's note says it was accepted. */
function acceptedWrite(
    path: string,
    repoRoot: string,
    accepted: Map<string, number>,
    saved: SavedWrites
): SavedDiff[] | undefined {
    const key = absolute(repoRoot, path);
    const left = accepted.get(key) ?? 0;
    if (left === 0) return undefined;
    accepted.set(key, left - 1);
    return saved.takeFile(path);
}

/**
 * The model's text as the editor saw it live: NORTH_FILE blocks are not
 * shown as text but as the edit calls they were (`id` names each one, from
 * the message's place in the conversation).
 */
function textUpdates(
    text: string,
    id: string,
    repoRoot: string,
    accepted: Map<string, number>,
    saved: SavedWrites
): SessionUpdate[] {
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
                const diffs =
                    event.type === "session_complete"
                        ? acceptedWrite(event.path, repoRoot, accepted, saved)
                        : undefined;
                updates.push({
                    sessionUpdate: "tool_call",
                    toolCallId: `${id}-${blocks++}`,
                    title: `Writing ${event.path} (${lines} line${lines === 1 ? "" : "s"})`,
                    kind: "edit",
                    status: event.type === "session_complete" ? "completed" : "failed",
                    rawInput: input,
                    ...(diffs ? { content: savedDiffContents(repoRoot, diffs) } : {}),
                    locations: diffs
                        ? diffLocations(repoRoot, diffs)
                        : locationsOf(repoRoot, input),
                });
                break;
            }
            default:
                event satisfies never;
        }
    }
    return updates;
}

/** What a finished call shows: an applied edit's saved diff, else its result as live. */
function callContent(
    call: ToolCallBlock,
    result: ToolResultBlock | undefined,
    deps: ReplayDeps,
    saved: SavedWrites
): { content: ToolCallContent[]; diffs?: readonly SavedDiff[] } {
    const { repoRoot, toolDisplays } = deps;
    if (!result) return { content: [textContent("No result was saved for this call.")] };
    if (landedEdit(call, result)) {
        const diffs = saved.take(call.id);
        if (diffs && diffs.length > 0 && writeFits(repoRoot, call.input, diffs)) {
            return { content: savedDiffContents(repoRoot, diffs), diffs };
        }
        const summary = appliedSummary(result.content);
        if (summary !== undefined) return { content: [textContent(summary)] };
    }
    const text = resultText(
        toolDisplays,
        call.name,
        call.input,
        !result.isError,
        result.content,
        undefined
    );
    return { content: [textContent(text)] };
}

function callUpdates(
    call: ToolCallBlock,
    result: ToolResultBlock | undefined,
    deps: ReplayDeps,
    saved: SavedWrites
): SessionUpdate[] {
    const { repoRoot, toolDisplays } = deps;
    // A call without a result was cut off (cancelled, or North stopped): it did not complete.
    const status: ToolCallStatus = result && !result.isError ? "completed" : "failed";
    const { content, diffs } = callContent(call, result, deps, saved);
    // An applied edit's locations are where it changed its files (the line too).
    const locations = diffs ? diffLocations(repoRoot, diffs) : locationsOf(repoRoot, call.input);
    const updates: SessionUpdate[] = [
        {
            sessionUpdate: "tool_call",
            toolCallId: call.id,
            title: toolTitle(toolDisplays, call.name, call.input),
            kind: toolKindOf(call.name),
            status,
            rawInput: call.input,
            content,
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
    deps: ReplayDeps,
    saved: SavedWrites
): SessionUpdate[] {
    const results = resultsOf(next);
    const accepted = acceptedNorthFiles(next, deps.repoRoot);
    const updates: SessionUpdate[] = [];
    for (const [at, block] of message.content.entries()) {
        switch (block.type) {
            case "text":
                updates.push(
                    ...textUpdates(
                        block.text,
                        `nf-saved-${index}-${at}`,
                        deps.repoRoot,
                        accepted,
                        saved
                    )
                );
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
            case "web_search":
                updates.push(
                    chunk("agent_message_chunk", {
                        type: "text",
                        text: `${webSearchSummary(block)}\n\n`,
                    })
                );
                break;
            case "tool_call":
                updates.push(...callUpdates(block, results.get(block.id), deps, saved));
                break;
            default:
                block satisfies never;
        }
    }
    return updates;
}

/**
 * A saved conversation as the updates that draw it again, oldest first;
 * `view` (its view records) holds what its applied edits changed.
 */
export function replayUpdates(
    messages: readonly Message[],
    deps: ReplayDeps,
    view: ReadonlyArray<Record<string, unknown>> = []
): SessionUpdate[] {
    const saved = new SavedWrites(view, messages, deps.repoRoot);
    const updates: SessionUpdate[] = [];
    messages.forEach((message, index) => {
        const more =
            message.role === "user"
                ? userUpdates(message)
                : assistantUpdates(message, index, messages[index + 1], deps, saved);
        for (const update of more) updates.push(update);
    });
    return updates;
}
