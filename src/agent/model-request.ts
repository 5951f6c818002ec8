import type {
    AssistantMessage,
    ProviderError,
    StopReason,
    StreamEvent,
    Usage,
} from "../providers/types";

export type RequestOutcome =
    | { kind: "done"; message: AssistantMessage; stopReason: StopReason; usage: Usage }
    | { kind: "failed"; error: ProviderError }
    | { kind: "cancelled" };

/**
 * Reads one model response to its end: deltas go to `onDelta`, the last
 * event becomes the outcome. The SDK timeouts cover the wait for headers
 * only, so a stream that then stalls is cut by an idle watchdog (one timer
 * for the whole stream, not one per event: it fires once a full period
 * passed without events) and reported as a retryable timeout.
 */
export async function consumeModelStream(
    open: (signal: AbortSignal) => AsyncIterable<StreamEvent>,
    signal: AbortSignal,
    idleMs: number,
    onDelta: (event: StreamEvent) => Promise<void> | void
): Promise<RequestOutcome> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    let idle = false;
    let eventsSeen = 0;
    let eventsAtLastTick = -1;
    const idleTimer = setInterval(() => {
        if (eventsSeen === eventsAtLastTick) {
            idle = true;
            controller.abort();
        }
        eventsAtLastTick = eventsSeen;
    }, idleMs);
    let outcome: RequestOutcome | undefined;
    try {
        for await (const event of open(controller.signal)) {
            eventsSeen++;
            if (event.type === "done") {
                outcome = {
                    kind: "done",
                    message: event.message,
                    stopReason: event.stopReason,
                    usage: event.usage,
                };
            } else if (event.type === "error") {
                outcome =
                    event.error.kind === "cancelled"
                        ? { kind: "cancelled" }
                        : { kind: "failed", error: event.error };
            } else await onDelta(event);
        }
    } finally {
        clearInterval(idleTimer);
        signal.removeEventListener("abort", onAbort);
    }
    if (idle && !signal.aborted) {
        return {
            kind: "failed",
            error: {
                kind: "timeout",
                message: `the response stream was idle for ${Math.round(idleMs / 1000)}s`,
                retryable: true,
            },
        };
    }
    if (outcome) return outcome;
    return signal.aborted
        ? { kind: "cancelled" }
        : {
              kind: "failed",
              error: {
                  kind: "incomplete_stream",
                  message: "the response stream ended without a result",
                  retryable: true,
              },
          };
}
