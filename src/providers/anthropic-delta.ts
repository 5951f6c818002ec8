/**
 * A fast path for the event that is nearly every event of an Anthropic
 * stream: a `content_block_delta` carrying one string, which the API sends
 * in one compact form (`{"type":"content_block_delta","index":0,"delta":
 * {"type":"text_delta","text":"…"}}`). Reading that form by position skips
 * a general JSON.parse per token; anything else (other spacing, key order,
 * extra fields, a malformed value) returns undefined and is parsed whole, so
 * the result is always what JSON.parse would give.
 */
import type { RawContentBlockDeltaEvent } from "@anthropic-ai/sdk/resources/messages";

/**
 * The compact form, whole: a JSON integer index, one of the four string
 * delta types with its field, and a JSON string body (any character but a
 * quote, a backslash or a control character, or a valid escape). One native
 * match per event.
 */
const COMPACT_DELTA =
    // The control characters are the point: JSON forbids them unescaped in a string.
    // eslint-disable-next-line no-control-regex
    /^\{"type":"content_block_delta","index":(0|[1-9]\d{0,8}),"delta":\{"type":"(text_delta","text|thinking_delta","thinking|input_json_delta","partial_json|signature_delta","signature)":"((?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*)"\}\}$/;

/**
 * Deltas are a few characters; past this a regular expression gains nothing
 * over JSON.parse and a long enough body would overflow its backtrack stack.
 */
const MAX_FAST_CHARS = 16 * 1024;

/** The second letter of each delta type, which tells the four apart. */
const TEXT = 101; // "e" of text_delta
const THINKING = 104; // "h" of thinking_delta
const INPUT_JSON = 110; // "n" of input_json_delta

/** The event in `data` when it has the compact one-string delta form, else undefined. */
export function parseStringDelta(data: string): RawContentBlockDeltaEvent | undefined {
    if (data.length > MAX_FAST_CHARS) return undefined;
    const match = COMPACT_DELTA.exec(data);
    if (match === null) return undefined;
    const body = match[3]!;
    // Escapes are valid (the pattern checked them); only JSON knows how to read them.
    const value = body.includes("\\") ? (JSON.parse(`"${body}"`) as string) : body;
    const index = Number(match[1]);
    switch (match[2]!.charCodeAt(1)) {
        case TEXT:
            return {
                type: "content_block_delta",
                index,
                delta: { type: "text_delta", text: value },
            };
        case THINKING:
            return {
                type: "content_block_delta",
                index,
                delta: { type: "thinking_delta", thinking: value },
            };
        case INPUT_JSON:
            return {
                type: "content_block_delta",
                index,
                delta: { type: "input_json_delta", partial_json: value },
            };
        default:
            return {
                type: "content_block_delta",
                index,
                delta: { type: "signature_delta", signature: value },
            };
    }
}
