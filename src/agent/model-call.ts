import type { ModelInfo } from "../providers/catalogue";
import { wireModelId } from "../providers/catalogue";
import type { Message, Provider, StreamEvent, StreamRequest, ToolSchema } from "../providers/types";
import { EMPTY_USAGE } from "../providers/types";
import type { Logger } from "../storage/logger";
import type { Conversation } from "./conversation";
import type { EngineEvent } from "./events";
import { lastMessageHasImages, noImagesWarning, withoutImages } from "./image-fallback";
import { type RequestOutcome, consumeModelStream, responseCharLimit } from "./model-request";
import type { NorthFileRouter } from "./north-file-turn";
import { citationsOf, searchEventOf } from "./web-search-events";
import type { WebSearchPolicy } from "./web-search-policy";

/**
 * Streams one model response. Like a provider it never throws: a failure
 * ends the stream with an `error` event. Tests inject their own.
 */
export type StreamFn = (
    model: ModelInfo,
    request: StreamRequest,
    signal: AbortSignal
) => AsyncIterable<StreamEvent>;

export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 5 * 60_000;

/** Streams through the provider serving the model, built (or reused) lazily per request. */
export function streamFromProviders(
    providerFor: (model: ModelInfo) => Promise<Provider>
): StreamFn {
    return async function* (model, request, signal) {
        let provider: Provider;
        try {
            provider = await providerFor(model);
        } catch (error) {
            yield {
                type: "error",
                error: { kind: "unknown", message: (error as Error).message, retryable: false },
                partial: { role: "assistant", content: [] },
                usage: { ...EMPTY_USAGE },
            };
            return;
        }
        yield* provider.stream(request, signal);
    };
}

/** What a model request needs from the session. */
export interface ModelCallDeps {
    sessionId: string;
    conversation: Conversation;
    stream: StreamFn;
    logger: Logger;
    emit: (event: EngineEvent) => void;
    /** A stream with no event for this long is cut (and retried by the loop). */
    streamIdleTimeoutMs: number;
    /** The small fast model for side jobs (summaries); unset: the conversation's model. */
    sideModel?: ModelInfo;
    /** The provider's server-side web search, when the user turned it on; absent: never offered. */
    webSearch?: WebSearchPolicy;
}

export interface CallOptions {
    maxOutputTokens?: number;
    thinking?: false;
    /** Nothing streamed is shown (a summary request). */
    quiet?: true;
    /** Text goes through the NORTH_FILE parser while the run may write files. */
    northFile?: NorthFileRouter | null;
    /** Another model than the conversation's (a side job's small fast model). */
    model?: ModelInfo;
}

/** One request to the conversation's model, read to its end; deltas become events. */
export async function callModel(
    deps: ModelCallDeps,
    system: string,
    tools: ToolSchema[],
    messages: Message[],
    signal: AbortSignal,
    options: CallOptions = {}
): Promise<RequestOutcome> {
    const { conversation, logger, emit } = deps;
    const model = options.model ?? conversation.model;
    const requestId = conversation.nextRequestId();
    const started = performance.now();
    logger.info("model_request_start", { requestId, model: model.id });
    const maxOutputTokens = options.maxOutputTokens ?? model.maxOutputTokens;
    const northFile = options.northFile ?? null;
    if (!model.images && lastMessageHasImages(messages)) {
        emit({ type: "warning", message: noImagesWarning(model) });
    }
    const sent = model.images ? messages : withoutImages(messages, model);
    // Side requests (summaries) never search.
    const search = options.quiet ? {} : (deps.webSearch?.forRequest(model) ?? {});
    if (search.notice) emit({ type: "warning", message: search.notice });
    const outcome = await consumeModelStream(
        (requestSignal) =>
            deps.stream(
                model,
                {
                    apiModelId: wireModelId(model),
                    system,
                    messages: sent,
                    tools,
                    maxOutputTokens,
                    thinking:
                        model.thinkingBudget && options.thinking !== false
                            ? { budgetTokens: model.thinkingBudget }
                            : undefined,
                    promptCacheKey: `north-${deps.sessionId}`,
                    ...(search.params ? { webSearch: search.params } : {}),
                },
                requestSignal
            ),
        signal,
        deps.streamIdleTimeoutMs,
        async (event) => {
            if (options.quiet) return;
            if (event.type === "text_delta") {
                if (northFile) await northFile.feed(event.text, emit);
                else emit({ type: "text_delta", text: event.text });
            } else if (event.type === "thinking_delta") {
                emit({ type: "thinking_delta", text: event.text });
            } else if (event.type === "tool_call_start") {
                emit({ type: "tool_call_start", id: event.id, name: event.name });
            } else if (event.type === "web_search") {
                emit(searchEventOf(event.search));
            }
        },
        responseCharLimit(maxOutputTokens, model.thinkingBudget)
    );
    if (outcome.kind === "done" && !options.quiet) {
        const citations = citationsOf(outcome.message);
        if (citations.length > 0) emit({ type: "citations", citations });
    }
    // A cancelled or failed response was still billed for what it streamed.
    if (outcome.kind !== "done" && outcome.usage) conversation.addUsage(outcome.usage, model);
    logger.info("model_request_complete", {
        requestId,
        durationMs: Math.round(performance.now() - started),
        outcome: outcome.kind,
        ...(outcome.kind === "failed"
            ? { errorKind: outcome.error.kind, status: outcome.error.status }
            : {}),
    });
    return outcome;
}
