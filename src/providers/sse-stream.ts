import {
    cancelledError,
    classifyStreamErrorBody,
    incompleteStreamError,
    responseTooLargeError,
} from "./errors";
import { SseEventTooLargeError, readSseBatches, type SseEvent } from "./sse";
import { pushCoalesced, snapshotMessage, untilAborted } from "./stream-utils";
import type { AssistantBlock, ProviderError, StopReason, StreamEvent, Usage } from "./types";

/** An error object sent inside a stream (`{type:"error", error:{...}}` or `{error:{...}}`). */
export interface StreamErrorBody {
    code?: string | null;
    type?: string | null;
    message?: string | null;
}

/** What a provider's per-API state machine offers the shared stream loop. */
export interface StreamAccumulator<E> {
    readonly blocks: AssistantBlock[];
    readonly usage: Usage;
    handle(event: E): Iterable<StreamEvent>;
    /** A failure the API reported inside the stream (e.g. `response.failed`). */
    failure(): ProviderError | undefined;
    /** Null once the API said the message is complete; otherwise what was left open. */
    incompleteDetail(): string | null;
    stopReason(): StopReason;
}

export interface SseStreamOptions<E> {
    label: string;
    signal: AbortSignal;
    /** Sends the request through the SDK (typed HTTP errors) and returns the raw response. */
    send: () => Promise<Response>;
    state: StreamAccumulator<E>;
    /** The API event in one SSE message: null to skip it, `{ streamError }` when it reports an error. */
    decode: (sse: SseEvent) => E | null | { streamError: StreamErrorBody };
    classify: (error: unknown) => ProviderError;
}

/**
 * The streaming loop shared by every provider: sends the request, parses the
 * SSE body a network chunk at a time (deltas that arrive together are passed
 * on as one), and always ends with `done` or `error`. Never throws.
 */
export async function* streamSse<E>(options: SseStreamOptions<E>): AsyncGenerator<StreamEvent> {
    const { label, signal, state } = options;
    const fail = (error: ProviderError): StreamEvent => ({
        type: "error",
        error,
        partial: snapshotMessage(state.blocks),
        usage: { ...state.usage },
    });
    try {
        if (signal.aborted) {
            yield fail(cancelledError(label));
            return;
        }
        const response = await options.send();
        if (!response.body) throw new Error("the response has no body");
        for await (const batch of untilAborted(readSseBatches(response.body), signal)) {
            const out: StreamEvent[] = [];
            for (const sse of batch) {
                const event = options.decode(sse);
                if (event === null) continue;
                if (typeof event === "object" && "streamError" in event) {
                    yield* out;
                    yield fail(classifyStreamErrorBody(label, event.streamError));
                    return;
                }
                for (const produced of state.handle(event)) pushCoalesced(out, produced);
                if (state.failure()) break;
            }
            yield* out;
            if (state.failure()) break;
        }
        const failure = state.failure();
        const incomplete = state.incompleteDetail();
        if (signal.aborted) yield fail(cancelledError(label));
        else if (failure) yield fail(failure);
        else if (incomplete !== null) yield fail(incompleteStreamError(label, incomplete));
        else {
            yield {
                type: "done",
                message: snapshotMessage(state.blocks),
                stopReason: state.stopReason(),
                usage: { ...state.usage },
            };
        }
    } catch (error) {
        yield fail(
            error instanceof SseEventTooLargeError
                ? responseTooLargeError(error.limit, "one streamed event")
                : options.classify(error)
        );
    }
}

/** A tool call still being generated when the connection closed, or the missing end event. */
export function incompleteDetail(openToolName: string | undefined, endEvent: string): string {
    return openToolName
        ? `connection closed while tool call "${openToolName}" was being generated`
        : `connection closed before ${endEvent}`;
}
