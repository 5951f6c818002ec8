/**
 * One InvokeModelWithResponseStream answer as North's stream events: AWS
 * event-stream frames whose `chunk` events carry, base64 in JSON, the
 * Messages API's stream events, which `AnthropicStreamState` accumulates.
 * Always ends with `done` or `error`; never throws.
 */

import type { IncomingMessage } from "node:http";
import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import type { AnthropicStreamState } from "../anthropic";
import {
    cancelledError,
    classifyStreamErrorBody,
    incompleteStreamError,
    makeProviderError,
} from "../errors";
import { incompleteDetail } from "../sse-stream";
import { snapshotMessage } from "../stream-utils";
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

export async function* streamBedrock(options: BedrockStreamOptions): AsyncGenerator<StreamEvent> {
    const { signal } = options;
    // Through the Anthropic provider's own split point: a static import would move
    // anthropic.ts into a chunk shared with Bedrock, one more file on every print run.
    const { AnthropicStreamState, parseStringDelta } = await import("../anthropic");
    const state = new AnthropicStreamState();
    const fail = (error: ProviderError): StreamEvent => ({
        type: "error",
        error,
        partial: snapshotMessage(state.blocks),
        usage: { ...state.usage },
    });
    if (signal.aborted) {
        yield fail(cancelledError(BEDROCK_LABEL));
        return;
    }
    let response: IncomingMessage | undefined;
    try {
        response = await options.send();
        const framer = new EventStreamFramer();
        for await (const chunk of bodyOf(response, signal)) {
            const out: StreamEvent[] = [];
            for (const message of framer.push(chunk)) {
                const failure = applyFrame(message, state, out, parseStringDelta);
                if (failure) {
                    yield* out;
                    yield fail(failure);
                    return;
                }
            }
            yield* out;
        }
        if (signal.aborted) yield fail(cancelledError(BEDROCK_LABEL));
        else if (framer.pending > 0) {
            yield fail(
                incompleteStreamError(
                    BEDROCK_LABEL,
                    "connection closed inside an event-stream frame"
                )
            );
        } else if (!state.stopped) {
            yield fail(
                incompleteStreamError(
                    BEDROCK_LABEL,
                    incompleteDetail(state.openToolName, "message_stop")
                )
            );
        } else {
            yield {
                type: "done",
                message: snapshotMessage(state.blocks),
                stopReason: state.stopReason,
                usage: { ...state.usage },
            };
        }
    } catch (error) {
        if (error instanceof CorruptFrameError) {
            yield fail(
                incompleteStreamError(
                    BEDROCK_LABEL,
                    `a corrupt event-stream frame (${error.message})`
                )
            );
        } else {
            yield fail(await classifySafely(options.classify, error));
        }
    } finally {
        if (response && !response.complete) response.destroy();
    }
}

/** Applies one frame; returns the failure it reports, if any. */
function applyFrame(
    message: EventStreamMessage,
    state: AnthropicStreamState,
    out: StreamEvent[],
    /** Reads the common one-string delta without a JSON.parse (anthropic-delta.ts). */
    fastDelta: (json: string) => RawMessageStreamEvent | undefined
): ProviderError | undefined {
    const kind = headerText(message, ":message-type");
    if (kind === "exception") {
        const type = headerText(message, ":exception-type") ?? "exception";
        return streamExceptionError(type, messageOf(message.body));
    }
    if (kind === "error") {
        return streamExceptionError(
            headerText(message, ":error-code") ?? "error",
            headerText(message, ":error-message")
        );
    }
    if (kind !== "event" || headerText(message, ":event-type") !== "chunk") return undefined;
    const bytes = chunkBytes(message.body);
    if (bytes === undefined) return undefined;
    const json = Buffer.from(bytes, "base64").toString("utf8");
    const event = (fastDelta(json) ?? JSON.parse(json)) as
        RawMessageStreamEvent | { type: "error"; error?: { type?: string; message?: string } };
    if (event.type === "error") return classifyStreamErrorBody(BEDROCK_LABEL, event.error ?? {});
    state.handle(event, out);
    return undefined;
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

/** The response's bytes; ends quietly once `signal` aborts (the caller reports the cancel). */
async function* bodyOf(res: IncomingMessage, signal: AbortSignal): AsyncGenerator<Buffer> {
    const onAbort = (): void => {
        res.destroy();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
        yield* res as AsyncIterable<Buffer>;
    } catch (error) {
        if (!signal.aborted) throw error;
    } finally {
        signal.removeEventListener("abort", onAbort);
    }
}

async function classifySafely(
    classify: BedrockStreamOptions["classify"],
    error: unknown
): Promise<ProviderError> {
    try {
        return await classify(error);
    } catch (failure) {
        const message = failure instanceof Error ? failure.message : String(failure);
        return makeProviderError("unknown", `${BEDROCK_LABEL} error: ${message}`);
    }
}
