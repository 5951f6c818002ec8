import { describe, expect, it } from "vitest";
import {
    consumeModelStream,
    responseCharLimit,
    withRefusedInputs,
} from "../../src/agent/model-request";
import { MAX_RESPONSE_CHARS } from "../../src/tools/limits";
import { makeToolCall } from "../../src/providers/stream-utils";
import type { AssistantMessage, StreamEvent } from "../../src/providers/types";
import { MAX_TOOL_INPUT_BYTES } from "../../src/tools/registry";

/** A provider that streams `event()` forever and records whether it was closed. */
function endless(event: (i: number) => StreamEvent) {
    const state = { closed: false, aborted: false, sent: 0 };
    const open = (signal: AbortSignal): AsyncIterable<StreamEvent> =>
        (async function* () {
            try {
                for (let i = 0; ; i++) {
                    if (signal.aborted) {
                        state.aborted = true;
                        return;
                    }
                    state.sent++;
                    yield event(i);
                }
            } finally {
                state.closed = true;
            }
        })();
    return { open, state };
}

describe("consumeModelStream caps one response", () => {
    it("ends an endless answer with response_too_large, closes the stream and does not retry", async () => {
        const { open, state } = endless(() => ({ type: "text_delta", text: "0123456789" }));
        let delivered = 0;
        const outcome = await consumeModelStream(
            open,
            new AbortController().signal,
            60_000,
            (e) => void (delivered += e.type === "text_delta" ? e.text.length : 0),
            1_000
        );
        expect(outcome).toMatchObject({
            kind: "failed",
            error: { kind: "response_too_large", retryable: false },
        });
        if (outcome.kind !== "failed") throw new Error("unreachable");
        expect(outcome.error.message).toContain("1,000 characters");
        expect(state.closed).toBe(true);
        expect(state.sent).toBe(101);
        expect(delivered).toBe(1_000);
    });

    it("counts thinking and tool arguments as well as text", async () => {
        const kinds: StreamEvent[] = [
            { type: "thinking_delta", text: "x".repeat(10) },
            { type: "tool_call_start", id: "t", name: "write_file" },
            { type: "tool_call_delta", id: "t", partialJson: "y".repeat(10) },
        ];
        const { open, state } = endless((i) => kinds[i % 3]!);
        const outcome = await consumeModelStream(
            open,
            new AbortController().signal,
            60_000,
            () => undefined,
            95
        );
        expect(outcome).toMatchObject({ kind: "failed", error: { kind: "response_too_large" } });
        // 10 characters per two events of three: the 15th event passes 95.
        expect(state.sent).toBe(15);
    });

    it("reports a cancel by the user as cancelled, not as too large", async () => {
        const controller = new AbortController();
        const { open } = endless(() => ({ type: "text_delta", text: "x" }));
        const outcome = await consumeModelStream(
            open,
            controller.signal,
            60_000,
            (e) => {
                if (e.type === "text_delta") controller.abort();
            },
            1_000_000
        );
        expect(outcome).toMatchObject({ kind: "cancelled" });
    });

    it("a cancelled response still carries what it was billed: the provider's input, the streamed output", async () => {
        const controller = new AbortController();
        async function* open(): AsyncIterable<StreamEvent> {
            yield { type: "text_delta", text: "x".repeat(400) };
            controller.abort();
            yield {
                type: "error",
                error: { kind: "cancelled", message: "cancelled", retryable: false },
                partial: { role: "assistant", content: [] },
                usage: {
                    inputTokens: 1200,
                    outputTokens: 0,
                    cacheReadTokens: 0,
                    cacheWriteTokens: 0,
                },
            };
        }
        const outcome = await consumeModelStream(open, controller.signal, 60_000, () => undefined);
        expect(outcome).toEqual({
            kind: "cancelled",
            usage: {
                inputTokens: 1200,
                outputTokens: 100,
                cacheReadTokens: 0,
                cacheWriteTokens: 0,
            },
        });
    });

    it("derives the cap from the model's output limit, bounded by a hard cap", () => {
        expect(responseCharLimit(64_000)).toBe(512_000);
        expect(responseCharLimit(32_000, 10_000)).toBe(336_000);
        expect(responseCharLimit(10_000_000)).toBe(MAX_RESPONSE_CHARS);
        expect(MAX_RESPONSE_CHARS).toBe(8 * 1024 * 1024);
    });
});

describe("tool calls over the input limit", () => {
    const message = (...content: AssistantMessage["content"]): AssistantMessage => ({
        role: "assistant",
        content,
    });

    it("keep a short placeholder instead of the refused arguments", () => {
        const huge = JSON.stringify({ path: "big.txt", content: "z".repeat(200_000) });
        const small = makeToolCall("t2", "read_file", '{"path":"a.ts"}');
        const out = withRefusedInputs(
            message(
                { type: "text", text: "writing" },
                makeToolCall("t1", "write_file", huge),
                small
            )
        );
        const [text, refused, kept] = out.content;
        expect(text).toEqual({ type: "text", text: "writing" });
        expect(kept).toBe(small);
        if (refused?.type !== "tool_call") throw new Error("expected a tool call");
        expect(refused).toMatchObject({ id: "t1", name: "write_file" });
        expect(refused.input).toEqual({
            _north_omitted: `input of ${huge.length.toLocaleString("en-US")} characters refused: over the 50 KB limit`,
        });
        // Valid wherever it is replayed: an object (Anthropic), a JSON string (OpenAI).
        expect(JSON.parse(refused.rawInput)).toEqual(refused.input);
        expect(refused.rawInput.length).toBeLessThan(200);
        expect(refused.inputRefused).toContain("NORTH_FILE");
        expect(refused.inputError).toBeUndefined();
    });

    it("refuse arguments that are too large even when they are not valid JSON", () => {
        const raw = `{"content": "${"z".repeat(MAX_TOOL_INPUT_BYTES)}`;
        const out = withRefusedInputs(message(makeToolCall("t1", "write_file", raw)));
        const [call] = out.content;
        if (call?.type !== "tool_call") throw new Error("expected a tool call");
        expect(call.inputRefused).toBeDefined();
        expect(call.rawInput.length).toBeLessThan(200);
    });

    it("leave a message with calls within the limit untouched", () => {
        const within = message(
            makeToolCall("t1", "write_file", JSON.stringify({ content: "z".repeat(50_000) }))
        );
        expect(withRefusedInputs(within)).toBe(within);
    });
});
