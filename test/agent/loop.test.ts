import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/agent/summary-text";
import { Conversation } from "../../src/agent/conversation";
import { OutputCache } from "../../src/agent/digest";
import type { EngineEvent } from "../../src/agent/events";
import { type LoopDeps, runLoop } from "../../src/agent/loop";
import type { StreamFn } from "../../src/agent/model-call";
import { NorthFileRouter } from "../../src/agent/north-file-turn";
import { DEFAULT_RETRY_POLICY } from "../../src/agent/retry";
import { type RunOptions, createRunContext } from "../../src/agent/run-state";
import type { ToolRunner } from "../../src/agent/tool-executor";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import type {
    AssistantBlock,
    Message,
    ProviderError,
    StreamEvent,
    StreamRequest,
    Usage,
} from "../../src/providers/types";
import { silentLogger } from "../../src/storage/logger";
import type { AnyToolDefinition } from "../../src/tools/types";
import { inputSchema, toolInput } from "../../src/tools/tool-input";

const sonnet = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!;
const NO_USAGE: Usage = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
};

/** One scripted response of the fake stream. */
type Reply =
    | { blocks: AssistantBlock[]; usage?: Partial<Usage> }
    | { error: ProviderError }
    | { partialThenHang: string };

/** A StreamFn replaying replies in order, recording each request; no provider, no HTTP. */
function fakeStream(replies: Reply[]): { stream: StreamFn; requests: StreamRequest[] } {
    const requests: StreamRequest[] = [];
    const partial = { role: "assistant" as const, content: [] };
    async function* stream(
        _model: unknown,
        request: StreamRequest,
        signal: AbortSignal
    ): AsyncGenerator<StreamEvent> {
        requests.push(structuredClone(request));
        const reply = replies.shift();
        if (!reply) throw new Error("the test scripted no more replies");
        if ("error" in reply) {
            yield { type: "error", error: reply.error, partial, usage: NO_USAGE };
            return;
        }
        if ("partialThenHang" in reply) {
            yield { type: "text_delta", text: reply.partialThenHang };
            // As a provider does: the stream ends only when the request is aborted.
            await new Promise<void>((resolve) => {
                if (signal.aborted) resolve();
                else signal.addEventListener("abort", () => resolve(), { once: true });
            });
            const error = { kind: "cancelled" as const, message: "aborted", retryable: false };
            yield { type: "error", error, partial, usage: NO_USAGE };
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
            stopReason: hasCalls ? "tool_use" : "end_turn",
            usage: { ...NO_USAGE, ...reply.usage },
        };
    }
    return { stream, requests };
}

const readNote: AnyToolDefinition = {
    name: "read_note",
    description: "reads a note",
    input: toolInput((z) => z.object({ name: z.string() })),
    approvalPolicy: "none",
    readOnly: true,
    execute: async (input: { name: string }) => ({
        ok: true,
        data: { name: input.name, text: "retries: 3, backoff 1s" },
    }),
};

function runner(tools: AnyToolDefinition[]): ToolRunner & { executed: string[] } {
    const executed: string[] = [];
    return {
        executed,
        list: () => tools,
        schemas: (filter) =>
            tools
                .filter((t) => !filter || filter(t))
                .map((t) => ({ name: t.name, description: t.description, inputSchema: {} })),
        async execute(name, rawInput, ctx) {
            executed.push(name);
            const found = tools.find((t) => t.name === name)!;
            return found.execute(inputSchema(found.input).parse(rawInput), ctx);
        },
    };
}

function harness(
    replies: Reply[],
    options: { messages?: Message[]; onEvent?: (event: EngineEvent) => void } = {}
) {
    const repoRoot = realpathSync(tmpdir());
    const events: EngineEvent[] = [];
    const emit = (event: EngineEvent): void => {
        events.push(event);
        options.onEvent?.(event);
    };
    const { stream, requests } = fakeStream(replies);
    const tools = runner([readNote]);
    const conversation = new Conversation({ model: sonnet, messages: options.messages, emit });
    const sleeps: number[] = [];
    const deps: LoopDeps = {
        sessionId: "loop01",
        repoRoot,
        conversation,
        stream,
        streamIdleTimeoutMs: 60_000,
        tools,
        approver: async () => ({ outcome: "deny", reason: "no front-end" }),
        settings: createNoStandingApprovals(),
        outputs: new OutputCache(),
        logger: silentLogger,
        emit,
        retryPolicy: DEFAULT_RETRY_POLICY,
        sleep: async (ms) => {
            sleeps.push(ms);
        },
        random: () => 0.5,
    };
    const run = (prompt: string, runOptions: RunOptions) =>
        runLoop(
            prompt,
            createRunContext(runOptions, {
                tools,
                repoRoot,
                context: {},
                northFile: () => new NorthFileRouter(repoRoot),
            }),
            deps
        );
    return { run, events, conversation, requests, tools, sleeps };
}

const types = (events: EngineEvent[]) => events.map((e) => e.type);

describe("runLoop with an injected stream", () => {
    it("runs the tool the model calls, sends its result back, and ends with the answer", async () => {
        const h = harness([
            {
                blocks: [
                    { type: "text", text: "Let me look." },
                    {
                        type: "tool_call",
                        id: "c1",
                        name: "read_note",
                        input: { name: "retry" },
                        rawInput: '{"name":"retry"}',
                    },
                ],
                usage: { inputTokens: 100, outputTokens: 20 },
            },
            { blocks: [{ type: "text", text: "Three retries, 1 s apart." }] },
        ]);
        const result = await h.run("how do retries work?", { mode: "agent" });

        expect(result).toMatchObject({
            subtype: "success",
            isError: false,
            text: "Three retries, 1 s apart.",
            numTurns: 2,
            toolCalls: [{ id: "c1", name: "read_note", input: { name: "retry" }, ok: true }],
        });
        expect(result.usage).toMatchObject({ inputTokens: 100, outputTokens: 20 });
        expect(h.tools.executed).toEqual(["read_note"]);
        expect(types(h.events)).toEqual([
            "run_start",
            "turn_start",
            "context",
            "text_delta",
            "tool_call_start",
            "context",
            "turn_end",
            "tool_call",
            "tool_result",
            "turn_start",
            "context",
            "text_delta",
            "context",
            "turn_end",
            "run_end",
        ]);
        const shown = h.events.find((e) => e.type === "tool_result");
        expect(shown).toMatchObject({ id: "c1", ok: true, details: { name: "retry" } });
        // The transcript: prompt, the call, its paired result, the answer.
        const [prompt, asked, results, answer] = h.conversation.messages;
        expect(h.conversation.messages).toHaveLength(4);
        expect(prompt).toEqual({ role: "user", content: "how do retries work?" });
        expect(asked?.role).toBe("assistant");
        expect(results).toEqual({
            role: "user",
            content: [
                {
                    type: "tool_result",
                    toolCallId: "c1",
                    content: JSON.stringify({ name: "retry", text: "retries: 3, backoff 1s" }),
                    isError: false,
                },
            ],
        });
        expect(answer).toEqual({
            role: "assistant",
            content: [{ type: "text", text: "Three retries, 1 s apart." }],
        });
        // The second request carried the result the tool produced.
        expect(h.requests[1]!.messages.at(-1)).toEqual(results);
        expect(h.requests[0]!.tools.map((t) => t.name)).toEqual(["read_note"]);
    });

    it("stops at once when cancelled mid-stream and keeps no half answer", async () => {
        const controller = new AbortController();
        const h = harness([{ partialThenHang: "The retry logic is in" }], {
            onEvent: (event) => {
                if (event.type === "text_delta") controller.abort();
            },
        });
        const result = await h.run("where is the retry logic?", {
            mode: "agent",
            signal: controller.signal,
        });

        expect(result).toMatchObject({
            subtype: "cancelled",
            isError: true,
            error: "cancelled by the user",
            numTurns: 1,
            text: "",
        });
        expect(types(h.events)).toEqual([
            "run_start",
            "turn_start",
            "context",
            "text_delta",
            "run_end",
        ]);
        expect(h.conversation.messages).toEqual([
            { role: "user", content: "where is the retry logic?" },
        ]);
        // What streamed before the cut was still billed (21 characters, ~4 a token).
        expect(h.conversation.totalUsage.outputTokens).toBe(6);
        expect(h.requests).toHaveLength(1);
    });

    it("ends with the provider's error when it cannot be retried, after retrying one that can", async () => {
        const h = harness([
            {
                error: {
                    kind: "overloaded",
                    status: 529,
                    message: "overloaded",
                    retryable: true,
                },
            },
            {
                error: {
                    kind: "auth",
                    status: 401,
                    message: "invalid x-api-key",
                    retryable: false,
                },
            },
        ]);
        const result = await h.run("hi", { mode: "ask" });

        expect(result).toMatchObject({
            subtype: "error_during_execution",
            isError: true,
            error: "invalid x-api-key",
            numTurns: 1,
        });
        expect(types(h.events)).toEqual([
            "run_start",
            "turn_start",
            "context",
            "retry",
            "context",
            "run_end",
        ]);
        expect(h.events.find((e) => e.type === "retry")).toMatchObject({
            attempt: 1,
            maxAttempts: 3,
            delayMs: 1_000,
            error: { kind: "overloaded" },
        });
        expect(h.sleeps).toEqual([1_000]);
        expect(h.requests).toHaveLength(2);
        expect(h.conversation.messages).toEqual([{ role: "user", content: "hi" }]);
    });

    it("summarises the older messages once when the provider reports an overflow, then answers", async () => {
        const history: Message[] = [];
        for (let i = 0; i < 12; i++) {
            history.push({ role: "user", content: `question ${i}` });
            history.push({ role: "assistant", content: [{ type: "text", text: `answer ${i}` }] });
        }
        const summary = {
            goal: "understand the retry logic",
            decisions: ["read src/retry.ts"],
            constraints: [],
            openTasks: [],
            importantFiles: ["src/retry.ts"],
        };
        const h = harness(
            [
                {
                    error: {
                        kind: "context_length",
                        status: 400,
                        message: "prompt is too long",
                        retryable: false,
                    },
                },
                { blocks: [{ type: "text", text: JSON.stringify(summary) }] },
                { blocks: [{ type: "text", text: "It backs off exponentially." }] },
            ],
            { messages: history }
        );
        const result = await h.run("and the backoff?", { mode: "ask" });

        expect(result).toMatchObject({
            subtype: "success",
            text: "It backs off exponentially.",
            numTurns: 1,
        });
        const summaries = h.events.filter((e) => e.type === "summary");
        expect(summaries).toEqual([
            {
                type: "summary",
                trigger: "overflow",
                ok: true,
                removedMessages: 15,
                message: "summarised 15 earlier messages",
            },
        ]);
        // An overflow is not a retry the user waits for.
        expect(types(h.events)).not.toContain("retry");
        expect(types(h.events)).not.toContain("warning");
        // The summariser got the older messages and no tools; its reply was not shown.
        expect(h.requests[1]!.system).toBe(SUMMARY_SYSTEM_PROMPT);
        expect(h.requests[1]!.tools).toEqual([]);
        const deltas = h.events.flatMap((e) => (e.type === "text_delta" ? [e.text] : []));
        expect(deltas).toEqual(["It backs off exponentially."]);
        // The retried request opens with the summary, then the kept messages.
        const resent = h.requests[2]!.messages;
        expect(JSON.stringify(resent[0])).toContain("understand the retry logic");
        expect(resent).toHaveLength(11);
        // The transcript keeps the last 10 messages plus the answer; the summary holds the rest.
        expect(h.conversation.summary).toEqual(summary);
        expect(h.conversation.messages).toHaveLength(11);
        expect(h.conversation.messages[0]).toEqual({
            role: "assistant",
            content: [{ type: "text", text: "answer 7" }],
        });
        expect(h.conversation.messages.at(-2)).toEqual({
            role: "user",
            content: "and the backoff?",
        });
    });
});
