import { describe, expect, it } from "vitest";
import { chooseCutIndex, parseSummary, withSummary } from "../../src/agent/summary-text";
import type { EngineEvent } from "../../src/agent/events";
import { AgentSession } from "../../src/agent/session";
import { BUILTIN_MODELS, type ModelInfo } from "../../src/providers/catalogue";
import type { Message } from "../../src/providers/types";
import type { AnyToolDefinition } from "../../src/tools/types";
import { ScriptedProvider, type ScriptedReply, call, text } from "../kit/scripted-provider";
import { toolInput } from "../../src/tools/tool-input";

const sonnet = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!;
const tiny: ModelInfo = { ...sonnet, alias: "tiny", id: "tiny-model", contextLimitTokens: 3_000 };

const SUMMARY_JSON = JSON.stringify({
    goal: "find the retry logic",
    decisions: ["looked at src/retry.ts"],
    constraints: [],
    openTasks: ["explain backoff"],
    importantFiles: ["src/retry.ts"],
});

function history(pairs: number, size = 400): Message[] {
    const out: Message[] = [];
    for (let i = 0; i < pairs; i++) {
        out.push({ role: "user", content: `question ${i} ${"x".repeat(size)}` });
        out.push({
            role: "assistant",
            content: [{ type: "text", text: `answer ${i} ${"y".repeat(size)}` }],
        });
    }
    return out;
}

function bigTool(chars: number): AnyToolDefinition {
    return {
        name: "big",
        description: "big output",
        input: toolInput((z) => z.object({}).passthrough()),
        approvalPolicy: "none",
        readOnly: true,
        execute: async () => ({ ok: true, data: { text: "z".repeat(chars) } }),
    };
}

function session(
    replies: ScriptedReply[],
    model: ModelInfo,
    messages: Message[] = [],
    tools: AnyToolDefinition[] = []
) {
    const provider = new ScriptedProvider(replies);
    const s = new AgentSession({
        sessionId: "ctx001",
        repoRoot: "/repo",
        model,
        providerFor: async () => provider,
        tools: {
            list: () => tools,
            schemas: () => [],
            execute: async (name, input, ctx) =>
                tools.find((t) => t.name === name)!.execute(input, ctx),
        },
        approver: async () => ({ outcome: "deny" }),
        sleep: async () => {},
        messages,
    });
    const events: EngineEvent[] = [];
    s.subscribe((e) => events.push(e));
    return { s, provider, events };
}

describe("auto-summary", () => {
    it("summarises older messages at 92 % and keeps the last 10 verbatim", async () => {
        const { s, provider, events } = session(
            [{ blocks: [text(SUMMARY_JSON)] }, { blocks: [text("answer")] }],
            tiny,
            history(10)
        );
        const result = await s.run("and now?", { mode: "ask" });
        expect(result.subtype).toBe("success");
        const [summaryRequest, request] = provider.requests;
        expect(summaryRequest!.system).toContain("condense a coding conversation");
        expect(summaryRequest!.tools).toEqual([]);
        // the last 10 messages verbatim, after the summary as a user message of its own
        expect(request!.messages).toHaveLength(11);
        expect(JSON.stringify(request!.messages[0])).toContain(
            "Summary of the earlier conversation"
        );
        expect(JSON.stringify(request!.messages[0])).toContain("find the retry logic");
        expect(s.rollingSummary?.openTasks).toEqual(["explain backoff"]);
        const summary = events.find((e) => e.type === "summary");
        expect(summary).toMatchObject({ trigger: "auto", ok: true, removedMessages: 11 });
        expect(s.state().contextUsedTokens).toBeLessThan(tiny.contextLimitTokens);
    });

    it("keeps the transcript, warns and still sends when the summary is not JSON but the request fits", async () => {
        const { s, provider, events } = session(
            [
                { blocks: [text("Sure! Here is a summary: the user wants things.")] },
                { blocks: [text("answer")] },
            ],
            sonnet,
            history(10)
        );
        // A window the conversation fills to about 95 %: past the summary threshold, not over.
        s.ensureContextFigure();
        const idle = s.state().contextUsedTokens;
        s.setModel({ ...tiny, contextLimitTokens: Math.round(idle / 0.95) });
        const result = await s.run("and now?", { mode: "ask" });
        expect(result.subtype).toBe("success");
        expect(provider.requests[1]!.messages).toHaveLength(21);
        expect(
            events.some((e) => e.type === "warning" && e.message.includes("not valid JSON"))
        ).toBe(true);
        expect(s.rollingSummary).toBeNull();
    });

    it("refuses to send, and takes the prompt back, when no summary brings the request under the window", async () => {
        const { s, provider } = session(
            [
                { blocks: [text("Sure! Here is a summary: the user wants things.")] },
                { blocks: [text("still not a summary")] },
                { blocks: [text("never sent")] },
            ],
            tiny,
            history(10)
        );
        const before = s.messages.length;
        const result = await s.run("and now?", { mode: "ask" });
        expect(result.subtype).toBe("error_during_execution");
        expect(result.error).toMatch(
            /^not sent: with this prompt \(about \d+ tokens\) the conversation is about \d+ tokens, \d+% of /
        );
        expect(result.error).toContain("The prompt was not kept");
        // The conversation is too large even without the prompt: start over.
        expect(result.error).toContain("/new");
        // Two summary attempts (the usual one, then keeping only the last messages); no answer request.
        expect(provider.requests).toHaveLength(2);
        expect(provider.requests.every((r) => r.system.includes("condense"))).toBe(true);
        expect(s.messages.length).toBe(before);
        expect(s.state().contextUsage).toBeGreaterThan(1);
    });

    it("summarises once when the provider rejects the request for context length, and never loops", async () => {
        const overflow: ScriptedReply = {
            error: {
                kind: "context_length",
                status: 400,
                message: "prompt is too long",
                retryable: false,
            },
        };
        const { s, provider } = session(
            [overflow, { blocks: [text(SUMMARY_JSON)] }, overflow],
            sonnet,
            history(8, 10)
        );
        const result = await s.run("hi", { mode: "ask" });
        expect(result.subtype).toBe("error_during_execution");
        expect(result.error).toContain("prompt is too long");
        expect(provider.requests).toHaveLength(3);
        expect(provider.requests[1]!.system).toContain("condense");
    });

    it("recovers from a context-length rejection when the summary frees enough room", async () => {
        const overflow: ScriptedReply = {
            error: {
                kind: "context_length",
                status: 400,
                message: "prompt is too long",
                retryable: false,
            },
        };
        const { s, provider } = session(
            [overflow, { blocks: [text(SUMMARY_JSON)] }, { blocks: [text("fits now")] }],
            sonnet,
            history(8, 10)
        );
        const result = await s.run("hi", { mode: "ask" });
        expect(result.text).toBe("fits now");
        expect(provider.requests[2]!.messages.length).toBeLessThan(
            provider.requests[0]!.messages.length
        );
    });

    it("summarises after a switch to a model with a smaller context", async () => {
        const { s, provider } = session(
            [
                { blocks: [text("first")] },
                { blocks: [text(SUMMARY_JSON)] },
                { blocks: [text("second")] },
            ],
            sonnet,
            history(10)
        );
        await s.run("one", { mode: "ask" });
        expect(provider.requests[0]!.messages).toHaveLength(21);
        s.setModel(tiny);
        const result = await s.run("two", { mode: "ask" });
        expect(result.text).toBe("second");
        expect(provider.requests[1]!.system).toContain("condense");
        expect(provider.requests[2]!.messages.length).toBeLessThanOrEqual(11);
    });

    it("cuts a single tool result larger than the context window", async () => {
        const { s, provider } = session(
            [{ blocks: [call("t1", "big", {})] }, { blocks: [text("ok")] }],
            tiny,
            [],
            [bigTool(1_000_000)]
        );
        await s.run("go", { mode: "ask" });
        const last = provider.requests[1]!.messages.at(-1)!;
        const content = JSON.stringify(last);
        expect(content.length).toBeLessThan(5_000);
        expect(content).toContain("more than a quarter of the context window");
    });

    it("a prompt larger than the window alone is refused before sending, and not kept", async () => {
        const { s, provider, events } = session([{ blocks: [text("still here")] }], tiny);
        const result = await s.run(`HUGE${"x".repeat(20_000)}`, { mode: "ask" });
        expect(result.subtype).toBe("error_during_execution");
        expect(result.error).toMatch(
            /^not sent: the prompt is about \d+ tokens; with the system prompt and tools \(about \d+\) the request would be about \d+ tokens, more than .*'s 3000-token window\. The prompt was not kept/
        );
        // No summary asked for nothing, no request, nothing in the transcript.
        expect(provider.requests).toHaveLength(0);
        expect(events.some((e) => e.type === "summary")).toBe(false);
        expect(s.messages).toHaveLength(0);
        // The next prompt is sent without it.
        const next = await s.run("a small question", { mode: "ask" });
        expect(next.text).toBe("still here");
        expect(JSON.stringify(provider.requests[0]!.messages)).not.toContain("HUGE");
    });

    it("takes back a prompt that fits alone but not with what must be kept, and goes on", async () => {
        // The last answer is kept verbatim by any summary; with it the prompt is over the window.
        const answered: Message[] = [
            { role: "user", content: "first" },
            { role: "assistant", content: [{ type: "text", text: "y".repeat(5_000) }] },
        ];
        const { s, provider } = session(
            [{ blocks: [text(SUMMARY_JSON)] }, { blocks: [text("answered")] }],
            tiny,
            answered
        );
        const result = await s.run(`BIG${"x".repeat(5_000)}`, { mode: "ask" });
        expect(result.error).toMatch(
            /^not sent: with this prompt \(about \d+ tokens\) the conversation is about \d+ tokens/
        );
        // Without the prompt the conversation fits: the advice is a smaller prompt.
        expect(result.error).toContain("The prompt was not kept");
        expect(result.error).toContain("Send a smaller part");
        // The answer stays (the summary made on the way stays too); the prompt does not.
        expect(s.messages.at(-1)).toEqual(answered[1]);
        expect(s.messages.some((m) => JSON.stringify(m).includes("BIG"))).toBe(false);
        const next = await s.run("short", { mode: "ask" });
        expect(next.text).toBe("answered");
        const sent = JSON.stringify(provider.requests.at(-1)!.messages);
        expect(sent).not.toContain("BIG");
        expect(sent).toContain("short");
    });

    it("takes back a prompt the provider refuses for its size, summary or not", async () => {
        const overflow: ScriptedReply = {
            error: {
                kind: "context_length",
                status: 400,
                message: "prompt is too long",
                retryable: false,
            },
        };
        const { s, provider } = session(
            [overflow, { blocks: [text(SUMMARY_JSON)] }, overflow, { blocks: [text("ok")] }],
            sonnet,
            history(8, 10)
        );
        const before = [...s.messages];
        const result = await s.run("REFUSED", { mode: "ask" });
        expect(result.error).toBe(
            "prompt is too long. The prompt was not kept; the conversation goes on without it. " +
                "Send a smaller part (one file, a narrower diff), or pick a model with a larger window (/model in the chat, --model)."
        );
        expect(s.messages.some((m) => JSON.stringify(m).includes("REFUSED"))).toBe(false);
        // The summary made before the refusal stays.
        expect(s.messages.length).toBeLessThan(before.length);
        await s.run("next", { mode: "ask" });
        expect(JSON.stringify(provider.requests.at(-1)!.messages)).not.toContain("REFUSED");
    });
});

describe("the context figure between requests", () => {
    it("a new conversation shows what its first request will send: system prompt and tools", () => {
        const { s } = session([], sonnet);
        expect(s.state().contextUsedTokens).toBe(0);
        // The chat asks for the figure; print mode never pays for it.
        s.ensureContextFigure();
        const figure = s.state().contextUsedTokens;
        // North's system prompt alone is hundreds of tokens; "0 (0%)" was wrong.
        expect(figure).toBeGreaterThan(200);
        expect(s.state().contextUsage).toBeCloseTo(figure / sonnet.contextLimitTokens);
    });

    it("after /summarize the figure still counts the system prompt and tools", async () => {
        const fresh = session([], sonnet).s;
        fresh.ensureContextFigure();
        const empty = fresh.state().contextUsedTokens;
        const { s, events } = session([{ blocks: [text(SUMMARY_JSON)] }], sonnet, history(10));
        expect(await s.summarise({ keepLast: 2 })).toBe(true);
        const figure = s.state().contextUsedTokens;
        expect(figure).toBeGreaterThan(empty);
        expect(events.findLast((e) => e.type === "context")).toMatchObject({ usedTokens: figure });
    });
});

describe("context order", () => {
    it("sends rules, then the profile, then attached files, then the summary, then the transcript", async () => {
        const provider = new ScriptedProvider([
            { blocks: [text("ok")] },
            { blocks: [text("again")] },
        ]);
        const s = new AgentSession({
            sessionId: "ord001",
            repoRoot: "/repo",
            model: sonnet,
            providerFor: async () => provider,
            tools: {
                list: () => [],
                schemas: () => [],
                execute: async () => ({ ok: true, data: null }),
            },
            approver: async () => ({ outcome: "deny" }),
            messages: history(2, 5),
            rollingSummary: {
                goal: "GOAL-MARK",
                decisions: [],
                constraints: [],
                openTasks: [],
                importantFiles: [],
            },
            context: { rules: "RULES-MARK", profile: "PROFILE-MARK" },
        });
        await s.run("PROMPT-MARK", { mode: "ask", attachedContext: "ATTACHED-MARK" });
        const request = provider.requests[0]!;
        const system = request.system;
        expect(system.indexOf("RULES-MARK")).toBeGreaterThan(0);
        expect(system.indexOf("PROFILE-MARK")).toBeGreaterThan(system.indexOf("RULES-MARK"));
        const sent = JSON.stringify(request.messages);
        const order = ["ATTACHED-MARK", "GOAL-MARK", "question 0", "PROMPT-MARK"].map((m) =>
            sent.indexOf(m)
        );
        expect(order.every((at) => at >= 0)).toBe(true);
        expect([...order].sort((a, b) => a - b)).toEqual(order);
        // attachments belong to the run they came with
        await s.run("NEXT", { mode: "ask" });
        expect(JSON.stringify(provider.requests[1]!.messages)).not.toContain("ATTACHED-MARK");
        // the system prompt (the cached prefix) is byte-identical across runs
        expect(provider.requests[1]!.system).toBe(system);
    });
});

describe("context helpers", () => {
    const toolTurn = (id: string): Message[] => [
        {
            role: "assistant",
            content: [{ type: "tool_call", id, name: "read_file", input: {}, rawInput: "{}" }],
        },
        {
            role: "user",
            content: [{ type: "tool_result", toolCallId: id, content: "{}", isError: false }],
        },
    ];

    it("never cuts between a tool call and its result", () => {
        const messages: Message[] = [
            { role: "user", content: "go" },
            ...toolTurn("a"),
            ...toolTurn("b"),
            ...toolTurn("c"),
        ];
        for (let keep = 1; keep <= messages.length; keep++) {
            const cut = chooseCutIndex(messages, keep);
            expect(messages.length - cut).toBeGreaterThanOrEqual(Math.min(keep, messages.length));
            if (cut > 0) expect(messages[cut]!.role).toBe("assistant");
        }
    });

    it("puts the summary first even when the kept part starts with the assistant", () => {
        const summary = {
            goal: "g",
            decisions: [],
            constraints: [],
            openTasks: [],
            importantFiles: [],
        };
        const sent = withSummary(toolTurn("a"), summary);
        expect(sent[0]!.role).toBe("user");
        expect(sent).toHaveLength(3);
        const withPrompt = withSummary([{ role: "user", content: "hello" }], summary);
        expect(withPrompt).toHaveLength(1);
        expect(JSON.stringify(withPrompt[0])).toContain("hello");
    });

    it("parses fenced JSON summaries and rejects malformed ones", () => {
        expect(parseSummary("```json\n" + SUMMARY_JSON + "\n```")?.goal).toBe(
            "find the retry logic"
        );
        expect(parseSummary("{not json}")).toBeNull();
        expect(parseSummary('{"goal": 3}')).toBeNull();
        expect(parseSummary('{"goal": "g", "decisions": "not a list"}')).toBeNull();
    });
});
