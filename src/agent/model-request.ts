import { responseTooLargeError } from "../providers/errors";
import type {
    AssistantMessage,
    ProviderError,
    StopReason,
    StreamEvent,
    ToolCallBlock,
    Usage,
} from "../providers/types";
import {
    CHARS_PER_OUTPUT_TOKEN,
    MAX_RESPONSE_CHARS,
    MAX_TOOL_INPUT_BYTES,
    RESPONSE_CHARS_PER_TOKEN,
} from "../tools/limits";

/** The cap on one response's text, thinking and tool arguments, from the model's output limits. */
export function responseCharLimit(maxOutputTokens: number, thinkingBudgetTokens = 0): number {
    const tokens = maxOutputTokens + thinkingBudgetTokens;
    return Math.min(MAX_RESPONSE_CHARS, tokens * RESPONSE_CHARS_PER_TOKEN);
}

/**
 * `usage` on a failed or cancelled request is what was billed before it
 * ended (output estimated from the streamed text when the provider had not
 * reported it yet); absent when nothing was.
 */
export type RequestOutcome =
    | { kind: "done"; message: AssistantMessage; stopReason: StopReason; usage: Usage }
    | { kind: "failed"; error: ProviderError; usage?: Usage }
    | { kind: "cancelled"; usage?: Usage };

/**
 * Reads one model response to its end: deltas go to `onDelta`, the last
 * event becomes the outcome. The SDK timeouts cover the wait for headers
 * only, so a stream that then stalls is cut by an idle watchdog (one timer
 * for the whole stream, not one per event: it fires once a full period
 * passed without events) and reported as a retryable timeout.
 *
 * A response whose text, thinking and tool arguments pass `maxChars` is cut
 * off the same way (the HTTP stream is closed) and fails, not retried: an
 * endless answer must not grow memory without bound. Tool calls over the
 * tool input limit come back as placeholders (see `withRefusedInputs`).
 */
export async function consumeModelStream(
    open: (signal: AbortSignal) => AsyncIterable<StreamEvent>,
    signal: AbortSignal,
    idleMs: number,
    onDelta: (event: StreamEvent) => Promise<void> | void,
    maxChars: number = MAX_RESPONSE_CHARS
): Promise<RequestOutcome> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    let idle = false;
    let tooLarge = false;
    let chars = 0;
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
    let reported: Usage | undefined;
    try {
        for await (const event of open(controller.signal)) {
            eventsSeen++;
            if (event.type === "done") {
                outcome = {
                    kind: "done",
                    message: withRefusedInputs(event.message),
                    stopReason: event.stopReason,
                    usage: event.usage,
                };
            } else if (event.type === "error") {
                reported = event.usage;
                outcome =
                    event.error.kind === "cancelled"
                        ? { kind: "cancelled" }
                        : { kind: "failed", error: event.error };
            } else {
                chars += deltaChars(event);
                if (chars > maxChars) {
                    tooLarge = true;
                    controller.abort();
                    break;
                }
                await onDelta(event);
            }
        }
    } finally {
        clearInterval(idleTimer);
        signal.removeEventListener("abort", onAbort);
    }
    const billed = partialUsage(reported, chars);
    if (tooLarge && !signal.aborted) {
        return {
            kind: "failed",
            error: responseTooLargeError(maxChars, "its text, thinking and tool arguments"),
            ...billed,
        };
    }
    if (idle && !signal.aborted) {
        return {
            kind: "failed",
            ...billed,
            error: {
                kind: "timeout",
                message: `the response stream was idle for ${Math.round(idleMs / 1000)}s`,
                retryable: true,
            },
        };
    }
    if (outcome) return outcome.kind === "done" ? outcome : { ...outcome, ...billed };
    return signal.aborted
        ? { kind: "cancelled", ...billed }
        : {
              kind: "failed",
              ...billed,
              error: {
                  kind: "incomplete_stream",
                  message: "the response stream ended without a result",
                  retryable: true,
              },
          };
}

/** What a cut response cost: the provider's figures, output at least what streamed. */
function partialUsage(reported: Usage | undefined, chars: number): { usage?: Usage } {
    const streamed = Math.ceil(chars / CHARS_PER_OUTPUT_TOKEN);
    if (!reported && streamed === 0) return {};
    const base = reported ?? {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
    };
    const usage = { ...base, outputTokens: Math.max(base.outputTokens, streamed) };
    const total =
        usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    return total > 0 ? { usage } : {};
}

function deltaChars(event: StreamEvent): number {
    if (event.type === "text_delta" || event.type === "thinking_delta") return event.text.length;
    if (event.type === "tool_call_delta") return event.partialJson.length;
    return 0;
}

/**
 * Tool calls whose arguments are over the tool input limit, with a short
 * placeholder in place of the arguments: the call is refused anyway, and the
 * history (sent again with every request, and saved) must not carry them.
 * The placeholder is a JSON object, valid wherever the call is replayed.
 */
export function withRefusedInputs(message: AssistantMessage): AssistantMessage {
    if (!message.content.some((b) => b.type === "tool_call" && isOversized(b))) return message;
    return {
        ...message,
        content: message.content.map((block) =>
            block.type === "tool_call" && isOversized(block) ? refused(block) : block
        ),
    };
}

function isOversized(call: ToolCallBlock): boolean {
    if (call.inputRefused !== undefined) return false;
    if (Buffer.byteLength(call.rawInput, "utf8") > MAX_TOOL_INPUT_BYTES) return true;
    // Re-serialized, as the registry measures it (numbers like 1e20 grow).
    if (call.inputError !== undefined) return false;
    return Buffer.byteLength(JSON.stringify(call.input) ?? "", "utf8") > MAX_TOOL_INPUT_BYTES;
}

function refused(call: ToolCallBlock): ToolCallBlock {
    const size = call.rawInput.length.toLocaleString("en-US");
    const limit = `${MAX_TOOL_INPUT_BYTES / 1024} KB`;
    const input = {
        _north_omitted: `input of ${size} characters refused: over the ${limit} limit`,
    };
    return {
        type: "tool_call",
        id: call.id,
        name: call.name,
        input,
        rawInput: JSON.stringify(input),
        inputRefused:
            `The input for ${call.name} was ${size} characters; the limit is ${limit}, so the call ` +
            "was refused and its input not kept. Split the work into smaller calls. To write a " +
            'large file, put its content in plain assistant text as <NORTH_FILE path="...">...' +
            "</NORTH_FILE> instead of a tool argument.",
        // Gemini 3 refuses the replayed call without the signature it came with.
        ...(call.thoughtSignature ? { thoughtSignature: call.thoughtSignature } : {}),
    };
}
