/** Small helpers shared by the provider implementations. No SDK imports. */

import type { AssistantBlock, AssistantMessage, StreamEvent, ToolCallBlock, Usage } from "./types";

export function emptyUsage(): Usage {
    return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

/**
 * Parses streamed tool arguments. Empty text means `{}`; anything that is not
 * a JSON object yields `input: {}` plus an `inputError` the model can read.
 */
export function parseToolInput(raw: string): { input: unknown; inputError?: string } {
    if (raw.trim() === "") return { input: {} };
    let parsed: unknown;
    try {
        parsed = JSON.parse(raw);
    } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        return { input: {}, inputError: `Tool arguments are not valid JSON (${reason})` };
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        const got = parsed === null ? "null" : Array.isArray(parsed) ? "an array" : typeof parsed;
        return { input: {}, inputError: `Tool arguments must be a JSON object, got ${got}` };
    }
    return { input: parsed };
}

export function makeToolCall(id: string, name: string, rawInput: string): ToolCallBlock {
    const { input, inputError } = parseToolInput(rawInput);
    const call: ToolCallBlock = { type: "tool_call", id, name, input, rawInput };
    if (inputError !== undefined) call.inputError = inputError;
    return call;
}

/** Copies the blocks so later mutation of the accumulator cannot leak into emitted messages. */
export function snapshotMessage(blocks: AssistantBlock[]): AssistantMessage {
    return { role: "assistant", content: blocks.map((block) => ({ ...block })) };
}

/**
 * Appends a text or thinking delta to one network chunk's events, merged into
 * the previous event when it is a delta of the same kind. Those events are
 * built here for this batch only, so extending them in place is safe.
 */
export function pushTextDelta(
    out: StreamEvent[],
    type: "text_delta" | "thinking_delta",
    text: string
): void {
    const last = out[out.length - 1];
    if (last?.type === type) last.text += text;
    else out.push({ type, text });
}

/** Appends a tool-argument delta, merged into the previous one for the same call. */
export function pushToolCallDelta(out: StreamEvent[], id: string, partialJson: string): void {
    const last = out[out.length - 1];
    if (last?.type === "tool_call_delta" && last.id === id) last.partialJson += partialJson;
    else out.push({ type: "tool_call_delta", id, partialJson });
}

/**
 * Parses the JSON events of an SSE body a network chunk at a time (via
 * `readSseBatches`): `[DONE]` and pings are skipped, and a body with a
 * top-level `error` is handed to `onError`.
 */
export function parseSseJson(data: string): unknown {
    return data.startsWith("[DONE]") ? null : JSON.parse(data);
}
