import type {
    AssistantBlock,
    Provider,
    ProviderError,
    StopReason,
    StreamEvent,
    StreamRequest,
    Usage,
} from "../../src/providers/types";

export type ScriptedReply =
    | { blocks: AssistantBlock[]; stopReason?: StopReason; usage?: Partial<Usage> }
    | { error: ProviderError }
    | { stallUntilAbort: true };

/** An in-memory provider replaying scripted replies; records every request. */
export class ScriptedProvider implements Provider {
    readonly api = "anthropic" as const;
    readonly requests: StreamRequest[] = [];
    private readonly replies: ScriptedReply[];

    constructor(replies: ScriptedReply[]) {
        this.replies = [...replies];
    }

    async *stream(request: StreamRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
        // Snapshot: the engine keeps mutating its transcript after the call.
        this.requests.push(structuredClone(request));
        const reply = this.replies.shift();
        const usage: Usage = {
            inputTokens: 0,
            outputTokens: 0,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
        };
        if (!reply) {
            yield {
                type: "error",
                error: {
                    kind: "bad_request",
                    message: "scripted provider: no reply left",
                    retryable: false,
                },
                partial: { role: "assistant", content: [] },
                usage,
            };
            return;
        }
        if ("error" in reply) {
            yield {
                type: "error",
                error: reply.error,
                partial: { role: "assistant", content: [] },
                usage,
            };
            return;
        }
        if ("stallUntilAbort" in reply) {
            await new Promise<void>((resolve) => {
                if (signal.aborted) resolve();
                signal.addEventListener("abort", () => resolve(), { once: true });
            });
            yield {
                type: "error",
                error: { kind: "cancelled", message: "aborted", retryable: false },
                partial: { role: "assistant", content: [] },
                usage,
            };
            return;
        }
        for (const block of reply.blocks) {
            if (block.type === "text") yield { type: "text_delta", text: block.text };
            if (block.type === "tool_call") {
                yield { type: "tool_call_start", id: block.id, name: block.name };
                yield { type: "tool_call_end", call: block };
            }
        }
        const hasCalls = reply.blocks.some((b) => b.type === "tool_call");
        yield {
            type: "done",
            message: { role: "assistant", content: reply.blocks },
            stopReason: reply.stopReason ?? (hasCalls ? "tool_use" : "end_turn"),
            usage: { ...usage, ...reply.usage },
        };
    }
}

export function text(value: string): AssistantBlock {
    return { type: "text", text: value };
}

export function call(
    id: string,
    name: string,
    input: unknown,
    inputError?: string
): AssistantBlock {
    return { type: "tool_call", id, name, input, rawInput: JSON.stringify(input), inputError };
}
