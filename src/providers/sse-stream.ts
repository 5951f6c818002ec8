import type { IncomingMessage } from "node:http";
import {
    cancelledError,
    classifyStreamErrorBody,
    incompleteStreamError,
    makeProviderError,
    responseTooLargeError,
} from "./errors";
import { SseEventTooLargeError, sseBatchesOf, type SseEvent } from "./sse";
import { snapshotMessage } from "./stream-utils";
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
    /**
     * Applies one API event and appends what it produced to `out`, the events
     * of the current network chunk (`pushTextDelta` / `pushToolCallDelta` merge
     * deltas): one array per chunk rather than an iterator per event.
     */
    handle(event: E, out: StreamEvent[]): void;
    /** A failure the API reported inside the stream (e.g. `response.failed`). */
    failure(): ProviderError | undefined;
    /** Null once the API said the message is complete; otherwise what was left open. */
    incompleteDetail(): string | null;
    stopReason(): StopReason;
}

export interface SseStreamOptions<E> {
    label: string;
    signal: AbortSignal;
    /** Sends the request and returns the 2xx response (`streaming-post.ts`); errors are the SDK's classes. */
    send: () => Promise<IncomingMessage>;
    state: StreamAccumulator<E>;
    /** The API event in one SSE message: null to skip it, `{ streamError }` when it reports an error. */
    decode: (sse: SseEvent) => E | null | { streamError: StreamErrorBody };
    /** May load the SDK (its error classes) first: failures only, off the success path. */
    classify: (error: unknown) => ProviderError | Promise<ProviderError>;
}

/** What one framed message of the body decodes to (`streamEvents`). */
export type DecodedMessage<E> =
    | E
    | null
    | { streamError: StreamErrorBody }
    /** A failure the framing itself reports (an AWS exception frame). */
    | { failure: ProviderError };

export interface EventStreamOptions<R, E> extends Omit<SseStreamOptions<E>, "decode"> {
    /** The body as batches of framed messages (SSE events, AWS event-stream frames), one per read. */
    read: (body: AsyncIterable<Buffer>) => AsyncIterable<R[]>;
    decode: (message: R) => DecodedMessage<E>;
    /** A failure of `read` the framing names itself (a corrupt or cut frame); others are classified. */
    readFailure?: (error: unknown) => ProviderError | undefined;
}

/** The SSE loop (`streamEvents` over `sseBatchesOf`) every SSE provider uses. */
export function streamSse<E>(options: SseStreamOptions<E>): AsyncGenerator<StreamEvent> {
    return streamEvents<SseEvent, E>({
        ...options,
        read: sseBatchesOf,
        readFailure: (error) =>
            error instanceof SseEventTooLargeError
                ? responseTooLargeError(error.limit, "one streamed event")
                : undefined,
    });
}

/**
 * The streaming loop shared by every provider, whatever frames its body
 * (SSE, AWS event stream): sends the request, decodes the body a network
 * chunk at a time (deltas that arrive together are passed on as one), and
 * always ends with `done` or `error`. Never throws.
 */
export async function* streamEvents<R, E>(
    options: EventStreamOptions<R, E>
): AsyncGenerator<StreamEvent> {
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
        const batches = readBody(response, signal, options.read);
        for await (const batch of batches) {
            const out: StreamEvent[] = [];
            for (const message of batch) {
                const event = options.decode(message);
                if (event === null) continue;
                if (typeof event === "object" && "streamError" in event) {
                    yield* out;
                    yield fail(classifyStreamErrorBody(label, event.streamError));
                    return;
                }
                if (typeof event === "object" && "failure" in event) {
                    yield* out;
                    yield fail(event.failure);
                    return;
                }
                state.handle(event, out);
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
            options.readFailure?.(error) ?? (await classifySafely(options.classify, error, label))
        );
    }
}

/** `classify`, kept from throwing (it may load a module): the stream still ends with `error`. */
async function classifySafely(
    classify: SseStreamOptions<unknown>["classify"],
    error: unknown,
    label: string
): Promise<ProviderError> {
    try {
        return await classify(error);
    } catch (failure) {
        const message = failure instanceof Error ? failure.message : String(failure);
        return makeProviderError("unknown", `${label} error: ${message}`);
    }
}

/**
 * The framed messages of a node:http response, one batch per read (all the
 * bytes that arrived since the last one): no web-stream adapters. Ends
 * quietly once `signal` aborts (the caller reports the cancel); stopping
 * early destroys the response, which closes the connection.
 */
async function* readBody<R>(
    res: IncomingMessage,
    signal: AbortSignal,
    read: (body: AsyncIterable<Buffer>) => AsyncIterable<R[]>
): AsyncGenerator<R[]> {
    const onAbort = (): void => {
        res.destroy();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
        yield* read(res as AsyncIterable<Buffer>);
    } catch (error) {
        if (!signal.aborted) throw error;
    } finally {
        signal.removeEventListener("abort", onAbort);
        if (!res.complete) res.destroy();
    }
}

/** A tool call still being generated when the connection closed, or the missing end event. */
export function incompleteDetail(openToolName: string | undefined, endEvent: string): string {
    return openToolName
        ? `connection closed while tool call "${openToolName}" was being generated`
        : `connection closed before ${endEvent}`;
}
