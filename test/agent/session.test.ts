import { describe, expect, it, vi } from "vitest";
import type { ApprovalRequest, Approver } from "../../src/agent/approvals";
import type { EngineEvent } from "../../src/agent/events";
import { AgentSession, type ToolRunner } from "../../src/agent/session";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import type { Message, ToolResultBlock } from "../../src/providers/types";
import type { AnyToolDefinition, ToolResult } from "../../src/tools/types";
import { z } from "zod";
import { ScriptedProvider, type ScriptedReply, call, text } from "../kit/scripted-provider";

const sonnet = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!;

function tool(name: string, readOnly: boolean, run?: (input: unknown, signal: AbortSignal) => Promise<ToolResult>): AnyToolDefinition {
    return {
        name,
        description: `${name} tool`,
        input: z.object({}).passthrough(),
        approvalPolicy: readOnly ? "none" : "write",
        readOnly,
        execute: (input, ctx) => (run ? run(input, ctx.signal) : Promise.resolve({ ok: true, data: { from: name, input } })),
    };
}

function runner(tools: AnyToolDefinition[]): ToolRunner & { executed: string[] } {
    const executed: string[] = [];
    return {
        executed,
        list: () => tools,
        schemas: (filter) =>
            tools.filter((t) => !filter || filter(t)).map((t) => ({ name: t.name, description: t.description, inputSchema: {} })),
        async execute(name, rawInput, ctx) {
            executed.push(name);
            const found = tools.find((t) => t.name === name);
            if (!found) return { ok: false, error: { code: "unknown_tool", message: `unknown tool ${name}` } };
            return found.execute(rawInput, ctx);
        },
    };
}

function makeSession(replies: ScriptedReply[], tools: AnyToolDefinition[] = [], approver?: Approver) {
    const provider = new ScriptedProvider(replies);
    const registry = runner(tools);
    const sleeps: number[] = [];
    const session = new AgentSession({
        sessionId: "abc123",
        repoRoot: "/repo",
        model: sonnet,
        providerFor: async () => provider,
        tools: registry,
        approver: approver ?? (async () => ({ outcome: "deny", reason: "no front-end" })),
        sleep: async (ms) => {
            sleeps.push(ms);
        },
        random: () => 0.5,
    });
    const events: EngineEvent[] = [];
    session.subscribe((e) => events.push(e));
    return { session, provider, registry, events, sleeps };
}

function toolResults(message: Message | undefined): ToolResultBlock[] {
    if (!message || message.role !== "user" || typeof message.content === "string") return [];
    return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

describe("AgentSession tool loop", () => {
    it("answers without tools", async () => {
        const { session, events } = makeSession([{ blocks: [text("Hello there")], usage: { inputTokens: 10, outputTokens: 5 } }]);
        const result = await session.run("hi", { mode: "agent" });
        expect(result.subtype).toBe("success");
        expect(result.text).toBe("Hello there");
        expect(result.numTurns).toBe(1);
        expect(result.usage.inputTokens).toBe(10);
        // $3/M in, $15/M out
        expect(result.costUsd).toBeCloseTo((10 * 3 + 5 * 15) / 1e6, 10);
        expect(events.map((e) => e.type)).toEqual(["run_start", "turn_start", "text_delta", "context", "turn_end", "run_end"]);
    });

    it("runs tools until the model stops and pairs every call with its result", async () => {
        const { session, provider, registry } = makeSession(
            [
                { blocks: [text("Looking."), call("t1", "read_a", { path: "a" }), call("t2", "read_b", {})] },
                { blocks: [text("Done: found it.")] },
            ],
            [tool("read_a", true), tool("read_b", true)]
        );
        const result = await session.run("where?", { mode: "ask" });
        expect(result.subtype).toBe("success");
        expect(result.text).toBe("Done: found it.");
        expect(registry.executed).toEqual(["read_a", "read_b"]);
        expect(result.toolCalls.map((c) => [c.name, c.ok])).toEqual([["read_a", true], ["read_b", true]]);
        const second = provider.requests[1]!;
        const results = toolResults(second.messages.at(-1));
        expect(results.map((r) => r.toolCallId)).toEqual(["t1", "t2"]);
        expect(JSON.parse(results[0]!.content)).toEqual({ from: "read_a", input: { path: "a" } });
    });

    it("turns malformed tool arguments into an error result without running the tool", async () => {
        const { session, provider, registry } = makeSession(
            [{ blocks: [call("t1", "read_a", {}, "Unexpected token } in JSON")] }, { blocks: [text("retrying differently")] }],
            [tool("read_a", true)]
        );
        const result = await session.run("go", { mode: "agent" });
        expect(result.subtype).toBe("success");
        expect(registry.executed).toEqual([]);
        const [res] = toolResults(provider.requests[1]!.messages.at(-1));
        expect(res!.isError).toBe(true);
        expect(res!.content).toContain("invalid_args");
        expect(res!.content).toContain("not valid JSON");
    });

    it("ask mode offers read-only tools only and refuses a write tool the model calls anyway", async () => {
        const { session, provider, registry } = makeSession(
            [{ blocks: [call("t1", "edit_x", { path: "a" })] }, { blocks: [text("ok")] }],
            [tool("read_a", true), tool("edit_x", false)]
        );
        await session.run("change it", { mode: "ask" });
        expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual(["read_a"]);
        expect(registry.executed).toEqual([]);
        const [res] = toolResults(provider.requests[1]!.messages.at(-1));
        expect(res!.content).toContain("not available in this mode");
    });

    it("asks the approver for write tools; a denial reaches the model as denied", async () => {
        const seen: ApprovalRequest[] = [];
        const approver: Approver = async (request) => {
            seen.push(request);
            return seen.length === 1 ? { outcome: "deny", reason: "not now" } : { outcome: "approve" };
        };
        const { session, provider, registry } = makeSession(
            [
                { blocks: [call("t1", "edit_x", { path: "a.ts" })] },
                { blocks: [call("t2", "edit_x", { path: "b.ts" })] },
                { blocks: [text("ok")] },
            ],
            [tool("edit_x", false)],
            approver
        );
        await session.run("edit", { mode: "agent" });
        expect(seen.map((r) => [r.kind, r.summary])).toEqual([["write", "a.ts"], ["write", "b.ts"]]);
        expect(registry.executed).toEqual(["edit_x"]);
        const [denied] = toolResults(provider.requests[1]!.messages.at(-1));
        expect(JSON.parse(denied!.content)).toEqual({ denied: true, message: "not now" });
    });

    it("stops at --max-turns with error_max_turns", async () => {
        const loop: ScriptedReply[] = Array.from({ length: 5 }, (_, i) => ({ blocks: [call(`t${i}`, "read_a", {})] }));
        const { session, provider } = makeSession(loop, [tool("read_a", true)]);
        const result = await session.run("loop", { mode: "agent", maxTurns: 2 });
        expect(result.subtype).toBe("error_max_turns");
        expect(result.isError).toBe(true);
        expect(provider.requests).toHaveLength(2);
        expect(result.numTurns).toBe(2);
    });
});

describe("AgentSession retries", () => {
    it("honours retry-after on 429 and then succeeds", async () => {
        const { session, sleeps, events } = makeSession([
            { error: { kind: "rate_limit", status: 429, message: "Anthropic API 429: slow down", retryable: true, retryAfterMs: 2000 } },
            { blocks: [text("fine")] },
        ]);
        const result = await session.run("hi", { mode: "agent" });
        expect(result.subtype).toBe("success");
        expect(sleeps).toEqual([2000]);
        expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
    });

    it("backs off exponentially on 5xx and gives up after 3 retries", async () => {
        const err = { error: { kind: "server" as const, status: 500, message: "API 500: boom", retryable: true } };
        const { session, provider, sleeps } = makeSession([err, err, err, err, { blocks: [text("never")] }]);
        const result = await session.run("hi", { mode: "agent" });
        expect(result.subtype).toBe("error_during_execution");
        expect(result.error).toContain("boom");
        expect(provider.requests).toHaveLength(4);
        expect(sleeps).toEqual([1000, 2000, 4000]);
    });

    it("fails at once on 401 with the provider's message", async () => {
        const { session, provider, sleeps } = makeSession([
            { error: { kind: "auth", status: 401, message: "Anthropic API 401: invalid x-api-key", retryable: false } },
        ]);
        const result = await session.run("hi", { mode: "agent" });
        expect(result.subtype).toBe("error_during_execution");
        expect(result.error).toBe("Anthropic API 401: invalid x-api-key");
        expect(provider.requests).toHaveLength(1);
        expect(sleeps).toEqual([]);
    });
});

describe("AgentSession cancellation", () => {
    it("cancels a running tool, answers every call, and the next request is well-formed", async () => {
        const controller = new AbortController();
        const slow = tool("slow", true, (_input, signal) => {
            controller.abort();
            return Promise.resolve(signal.aborted ? { ok: false, error: { code: "cancelled", message: "stopped" } } : { ok: true, data: 1 });
        });
        const { session, provider, registry } = makeSession(
            [{ blocks: [call("t1", "slow", {}), call("t2", "slow", {})] }, { blocks: [text("after")] }],
            [slow]
        );
        const result = await session.run("go", { mode: "agent", signal: controller.signal });
        expect(result.subtype).toBe("cancelled");
        expect(registry.executed).toEqual(["slow"]);
        const last = session.messages.at(-1)!;
        expect(toolResults(last).map((r) => [r.toolCallId, r.isError])).toEqual([["t1", true], ["t2", true]]);
        const next = await session.run("continue", { mode: "agent" });
        expect(next.subtype).toBe("success");
        const sent = provider.requests[1]!.messages;
        // tool results, then the new prompt merged after them or as its own message: every call answered once
        const calls = sent.flatMap((m) => (m.role === "assistant" ? m.content.filter((b) => b.type === "tool_call") : []));
        const answered = sent.flatMap((m) => toolResults(m));
        expect(answered.map((r) => r.toolCallId).sort()).toEqual(calls.map((c) => (c as { id: string }).id).sort());
    });

    it("aborting a stalled stream ends the run as cancelled promptly", async () => {
        const controller = new AbortController();
        const { session } = makeSession([{ stallUntilAbort: true }]);
        const pending = session.run("hi", { mode: "agent", signal: controller.signal });
        setTimeout(() => controller.abort(), 10);
        const result = await pending;
        expect(result.subtype).toBe("cancelled");
        expect(result.isError).toBe(true);
    });

    it("a throwing listener does not break the run", async () => {
        const { session } = makeSession([{ blocks: [text("ok")] }]);
        session.subscribe(() => {
            throw new Error("ui bug");
        });
        const spy = vi.fn();
        session.subscribe(spy);
        const result = await session.run("hi", { mode: "agent" });
        expect(result.subtype).toBe("success");
        expect(spy).toHaveBeenCalled();
    });
});
