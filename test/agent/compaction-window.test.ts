/**
 * The automatic summary near a full context says one true thing once: a
 * short conversation of huge messages is not "summarised" (nor announced as
 * "nothing to summarise" and then summarised); the user is told what fills
 * the context, once, and no model call is spent each turn.
 */
import { describe, expect, it } from "vitest";
import { fitToWindow } from "../../src/agent/compaction";
import { Conversation } from "../../src/agent/conversation";
import type { EngineEvent } from "../../src/agent/events";
import type { StreamFn } from "../../src/agent/model-call";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import type { Message, StreamEvent } from "../../src/providers/types";
import { silentLogger } from "../../src/storage/logger";
import { CHARS_PER_TOKEN } from "../../src/tools/limits";

const LIMIT = 10_000;
const model = { ...BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!, contextLimitTokens: LIMIT };
const NO_USAGE = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

const SUMMARY = JSON.stringify({
    goal: "g",
    decisions: [],
    constraints: [],
    openTasks: [],
    importantFiles: [],
});

/** Text of about `tokens` estimated tokens. */
const sized = (tokens: number): string => "x".repeat(Math.floor(tokens * CHARS_PER_TOKEN));

function setUp(messages: Message[], reply = SUMMARY) {
    const events: EngineEvent[] = [];
    const emit = (event: EngineEvent): void => void events.push(event);
    let calls = 0;
    const stream: StreamFn = async function* (): AsyncGenerator<StreamEvent> {
        calls++;
        yield {
            type: "done",
            message: { role: "assistant", content: [{ type: "text", text: reply }] },
            stopReason: "end_turn",
            usage: NO_USAGE,
        };
    };
    const conversation = new Conversation({ model, messages, emit });
    const deps = {
        sessionId: "c1",
        conversation,
        stream,
        logger: silentLogger,
        emit,
        streamIdleTimeoutMs: 60_000,
    };
    const fit = () => fitToWindow(deps, "", [], undefined, new AbortController().signal);
    const said = () =>
        events.flatMap((e) =>
            e.type === "warning" || e.type === "summary" ? [`${e.type}: ${e.message}`] : []
        );
    return { fit, said, calls: () => calls, conversation };
}

/** `pairs` question/answer pairs, the last answer followed by a tool output of `bigTokens`. */
function history(pairs: number, bigTokens: number, eachTokens = 10): Message[] {
    const messages: Message[] = [];
    for (let i = 0; i < pairs; i++) {
        messages.push({ role: "user", content: sized(eachTokens) });
        messages.push({ role: "assistant", content: [{ type: "text", text: sized(eachTokens) }] });
    }
    messages.push({ role: "user", content: sized(bigTokens) });
    return messages;
}

describe("the automatic summary near a full context", () => {
    it("at 93 % with a short conversation of one huge message: says so once, summarises nothing", async () => {
        const { fit, said, calls } = setUp(history(3, LIMIT * 0.85));
        expect((await fit()).kind).toBe("fits");
        expect(said()).toHaveLength(1);
        expect(said()[0]).toMatch(/^warning: context 9\d% full, mostly with the latest messages/);
        expect(said()[0]).toContain("/new starts a fresh conversation");
        expect(said().join("\n")).not.toContain("nothing to summarise");
        // The next turn: nothing new to say, no model call.
        await fit();
        await fit();
        expect(said()).toHaveLength(1);
        expect(calls()).toBe(0);
    });

    it('over the window with few messages: one summary, no "nothing to summarise" before it', async () => {
        const { fit, said, calls } = setUp(history(3, LIMIT * 0.5, LIMIT * 0.1));
        expect((await fit()).kind).toBe("fits");
        expect(calls()).toBe(1);
        expect(said()).toEqual(["summary: summarised 5 earlier messages"]);
    });

    it("with older messages worth summarising: summarises them and says only that", async () => {
        const { fit, said, calls } = setUp(history(12, LIMIT * 0.2, 330));
        await fit();
        expect(calls()).toBe(1);
        expect(said()).toEqual(["summary: summarised 15 earlier messages"]);
    });

    it("a summary that failed says why, and only that", async () => {
        const { fit, said } = setUp(history(12, LIMIT * 0.25, 250), "not json");
        await fit();
        expect(said()).toEqual([
            "summary: the summary was not valid JSON; keeping the conversation as is",
            "warning: the summary was not valid JSON; keeping the conversation as is",
        ]);
    });
});
