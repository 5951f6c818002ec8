/**
 * One InvokeModelWithResponseStream answer as North's stream events: AWS
 * event-stream frames whose `chunk` events carry, base64 in JSON, the
 * Messages API's stream events, which `AnthropicStreamState` accumulates.
 * The loop is every provider's (`streamEvents`); only the framing is Bedrock's.
 */

import type { IncomingMessage } from "node:http";
import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import { incompleteStreamError } from "../errors";
import { type DecodedMessage, streamEvents } from "../sse-stream";
import type { ProviderError, StreamEvent } from "../types";
import { BEDROCK_LABEL, streamExceptionError } from "./bedrock-errors";
import {
    CorruptFrameError,
    EventStreamFramer,
    type EventStreamMessage,
    headerText,
} from "./event-stream-reader";

export interface BedrockStreamOptions {
    signal: AbortSignal;
    /** Sends the request; resolves with the 2xx response, its body unread (`streaming-post.ts`). */
    send: () => Promise<IncomingMessage>;
    classify: (error: unknown) => Promise<ProviderError>;
}

/** The connection closed with part of a frame read. */
class FrameCutOffError extends Error {}

export async function* streamBedrock(options: BedrockStreamOptions): AsyncGenerator<StreamEvent> {
    // Through the Anthropic provider's own split point: a static import would move
    // anthropic.ts into a chunk shared with Bedrock, one more file on every print run.
    const { AnthropicStreamState, anthropicAccumulator, parseStringDelta } =
        await import("../anthropic");
    yield* streamEvents<EventStreamMessage, RawMessageStreamEvent>({
        ...options,
        label: BEDROCK_LABEL,
        state: anthropicAccumulator(new AnthropicStreamState()),
        read: framesOf,
        decode: (message) => decodeFrame(message, parseStringDelta),
        readFailure: (error) =>
            error instanceof CorruptFrameError
                ? incompleteStreamError(
                      BEDROCK_LABEL,
                      `a corrupt event-stream frame (${error.message})`
                  )
                : error instanceof FrameCutOffError
                  ? incompleteStreamError(
                        BEDROCK_LABEL,
                        "connection closed inside an event-stream frame"
                    )
                  : undefined,
    });
}

/** The body's frames, one batch per read; bytes left at the end are a frame cut off. */
async function* framesOf(body: AsyncIterable<Buffer>): AsyncGenerator<EventStreamMessage[]> {
    const framer = new EventStreamFramer();
    for await (const chunk of body) yield framer.push(chunk);
    if (framer.pending > 0) throw new FrameCutOffError();
}

/** One frame: a Messages event, nothing (another event type), or the failure it reports. */
function decodeFrame(
    message: EventStreamMessage,
    /** Reads the common one-string delta without a JSON.parse (anthropic-delta.ts). */
    fastDelta: (json: string) => RawMessageStreamEvent | undefined
): DecodedMessage<RawMessageStreamEvent> {
    const kind = headerText(message, ":message-type");
    if (kind === "exception") {
        const type = headerText(message, ":exception-type") ?? "exception";
        return { failure: streamExceptionError(type, messageOf(message.body)) };
    }
    if (kind === "error") {
        const code = headerText(message, ":error-code") ?? "error";
        return { failure: streamExceptionError(code, headerText(message, ":error-message")) };
    }
    if (kind !== "event" || headerText(message, ":event-type") !== "chunk") return null;
    const bytes = chunkBytes(message.body);
    if (bytes === undefined) return null;
    const json = Buffer.from(bytes, "base64").toString("utf8");
    const event = (fastDelta(json) ?? JSON.parse(json)) as
        RawMessageStreamEvent | { type: "error"; error?: { type?: string; message?: string } };
    return event.type === "error" ? { streamError: event.error ?? {} } : event;
}

const CHUNK_PREFIX = Buffer.from('{"bytes":"');
const QUOTE = 34;

/**
 * The base64 `bytes` of a chunk payload. Bedrock writes `bytes` first; base64
 * has no quote or escape, so the value ends at the next quote, and only those
 * bytes are decoded to text. Any other layout is parsed whole.
 */
function chunkBytes(payload: Uint8Array): string | undefined {
    const prefix = CHUNK_PREFIX.length;
    if (startsWithPrefix(payload)) {
        const end = payload.indexOf(QUOTE, prefix);
        if (end > 0) return utf8(payload.subarray(prefix, end));
    }
    const parsed = JSON.parse(utf8(payload)) as { bytes?: unknown };
    return typeof parsed.bytes === "string" ? parsed.bytes : undefined;
}

function startsWithPrefix(payload: Uint8Array): boolean {
    if (payload.byteLength <= CHUNK_PREFIX.length) return false;
    for (let i = 0; i < CHUNK_PREFIX.length; i++) if (payload[i] !== CHUNK_PREFIX[i]) return false;
    return true;
}

function messageOf(body: Uint8Array): string | undefined {
    try {
        const parsed = JSON.parse(utf8(body)) as { message?: unknown; Message?: unknown };
        const message = parsed.message ?? parsed.Message;
        return typeof message === "string" ? message : undefined;
    } catch {
        return utf8(body) || undefined;
    }
}

// As Buffer.toString: a leading BOM is kept, not dropped.
const DECODER = new TextDecoder("utf-8", { ignoreBOM: true });

function utf8(bytes: Uint8Array): string {
    return DECODER.decode(bytes);
}
