import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it, vi } from "vitest";
import {
    type ApprovalRequest,
    type ApprovalSettings,
    type Approver,
    createNoStandingApprovals,
} from "../../src/agent/approvals";
import type { EngineEvent } from "../../src/agent/events";
import { AgentSession, type ToolRunner } from "../../src/agent/session";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import type { Message, ToolResultBlock } from "../../src/providers/types";
import type { AnyToolDefinition, PreparedWrite, ToolResult } from "../../src/tools/types";
import { ScriptedProvider, type ScriptedReply, call, text } from "../kit/scripted-provider";
import { inputSchema, toolInput } from "../../src/tools/tool-input";

const sonnet = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!;

function tool(
    name: string,
    readOnly: boolean,
    run?: (input: unknown, signal: AbortSignal) => Promise<ToolResult>
): AnyToolDefinition {
    return {
        name,
        description: `${name} tool`,
        input: toolInput((z) => z.object({}).passthrough()),
        approvalPolicy: readOnly ? "none" : "write",
        readOnly,
        execute: (input, ctx) =>
            run
                ? run(input, ctx.signal)
                : Promise.resolve({ ok: true, data: { from: name, input } }),
    };
}

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
            const found = tools.find((t) => t.name === name);
            if (!found)
                return {
                    ok: false,
                    error: { code: "unknown_tool", message: `unknown tool ${name}` },
                };
            const parsed = inputSchema(found.input).safeParse(rawInput);
            if (!parsed.success)
                return { ok: false, error: { code: "invalid_args", message: "bad arguments" } };
            return found.execute(parsed.data, ctx);
        },
    };
}

function makeSession(
    replies: ScriptedReply[],
    tools: AnyToolDefinition[] = [],
    approver?: Approver,
    approvalSettings?: ApprovalSettings
) {
    const provider = new ScriptedProvider(replies);
    const registry = runner(tools);
    const sleeps: number[] = [];
    const session = new AgentSession({
        sessionId: "abc123",
        // Writes are judged against the disk before review: the root must exist.
        repoRoot: realpathSync(tmpdir()),
        model: sonnet,
        providerFor: async () => provider,
        tools: registry,
        approver: approver ?? (async () => ({ outcome: "deny", reason: "no front-end" })),
        approvalSettings,
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
        const { session, events } = makeSession([
            { blocks: [text("Hello there")], usage: { inputTokens: 10, outputTokens: 5 } },
        ]);
        const result = await session.run("hi", { mode: "agent" });
        expect(result.subtype).toBe("success");
        expect(result.text).toBe("Hello there");
        expect(result.numTurns).toBe(1);
        expect(result.usage.inputTokens).toBe(10);
        // $3/M in, $15/M out
        expect(result.costUsd).toBeCloseTo((10 * 3 + 5 * 15) / 1e6, 10);
        // The estimate of the prompt before the request, the provider's figure after it.
        expect(events.map((e) => e.type)).toEqual([
            "run_start",
            "turn_start",
            "context",
            "text_delta",
            "context",
            "turn_end",
            "run_end",
        ]);
    });

    it("runs tools until the model stops and pairs every call with its result", async () => {
        const { session, provider, registry } = makeSession(
            [
                {
                    blocks: [
                        text("Looking."),
                        call("t1", "read_a", { path: "a" }),
                        call("t2", "read_b", {}),
                    ],
                },
                { blocks: [text("Done: found it.")] },
            ],
            [tool("read_a", true), tool("read_b", true)]
        );
        const result = await session.run("where?", { mode: "ask" });
        expect(result.subtype).toBe("success");
        expect(result.text).toBe("Done: found it.");
        expect(registry.executed).toEqual(["read_a", "read_b"]);
        expect(result.toolCalls.map((c) => [c.name, c.ok])).toEqual([
            ["read_a", true],
            ["read_b", true],
        ]);
        const second = provider.requests[1]!;
        const results = toolResults(second.messages.at(-1));
        expect(results.map((r) => r.toolCallId)).toEqual(["t1", "t2"]);
        expect(JSON.parse(results[0]!.content)).toEqual({ from: "read_a", input: { path: "a" } });
    });

    it("turns malformed tool arguments into an error result without running the tool", async () => {
        const { session, provider, registry } = makeSession(
            [
                { blocks: [call("t1", "read_a", {}, "Unexpected token } in JSON")] },
                { blocks: [text("retrying differently")] },
            ],
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

    it("reviews prepared writes: a rejection discards and reaches the model as denied, an approval applies", async () => {
        const seen: ApprovalRequest[] = [];
        const applied: string[] = [];
        const discarded: string[] = [];
        const editTool: AnyToolDefinition = {
            name: "edit_x",
            description: "edit",
            input: toolInput((z) => z.object({ path: z.string() })),
            approvalPolicy: "write",
            readOnly: false,
            execute: async (input: { path: string }) => ({
                ok: true,
                data: {
                    kind: "prepared_write",
                    summary: `Editing ${input.path}`,
                    diffs: [
                        {
                            path: input.path,
                            diff: "@@",
                            linesAdded: 1,
                            linesRemoved: 0,
                            isNewFile: false,
                        },
                    ],
                    apply: async () => {
                        applied.push(input.path);
                        return { ok: true, data: { applied: true } };
                    },
                    discard: async () => {
                        discarded.push(input.path);
                    },
                } satisfies PreparedWrite,
            }),
        };
        const approver: Approver = async (request) => {
            seen.push(request);
            return seen.length === 1
                ? { outcome: "deny", reason: "not now" }
                : { outcome: "approve" };
        };
        const { session, provider } = makeSession(
            [
                { blocks: [call("t1", "edit_x", { path: "a.ts" })] },
                { blocks: [call("t2", "edit_x", { path: "b.ts" })] },
                { blocks: [call("t3", "edit_x", { wrong: 1 })] },
                { blocks: [text("ok")] },
            ],
            [editTool],
            approver
        );
        await session.run("edit", { mode: "agent" });
        expect(seen.map((r) => [r.kind, r.summary, r.diffs?.[0]?.path])).toEqual([
            ["write", "Editing a.ts", "a.ts"],
            ["write", "Editing b.ts", "b.ts"],
        ]);
        expect(applied).toEqual(["b.ts"]);
        expect(discarded).toEqual(["a.ts"]);
        const [rejected] = toolResults(provider.requests[1]!.messages.at(-1));
        expect(JSON.parse(rejected!.content)).toEqual({ denied: true, message: "not now" });
        const [ok] = toolResults(provider.requests[2]!.messages.at(-1));
        expect(JSON.parse(ok!.content)).toEqual({ applied: true });
        // invalid arguments never reach the user
        const [invalid] = toolResults(provider.requests[3]!.messages.at(-1));
        expect(invalid!.isError).toBe(true);
    });

    it("shell calls: auto-approve, then the exact allowlist, then the user; 'always' stores the exact string", async () => {
        const allow = new Set<string>(["npm test"]);
        let auto = false;
        const settings: ApprovalSettings = {
            ...createNoStandingApprovals(),
            isShellAutoApproved: () => auto,
            isCommandAllowed: (c) => allow.has(c),
            allowCommand: (c) => void allow.add(c),
            approveAllCommandsForSession: () => {
                auto = true;
            },
        };
        const asked: string[] = [];
        const approver: Approver = async (request) => {
            asked.push(request.command!);
            return request.command === "ls"
                ? { outcome: "approve", remember: "exact" }
                : { outcome: "approve", remember: "all" };
        };
        const shell: AnyToolDefinition = {
            name: "shell_run",
            description: "run",
            input: toolInput((z) => z.object({ command: z.string() })),
            approvalPolicy: "shell",
            readOnly: false,
            approval: (input: { command: string }) => ({
                summary: input.command,
                rememberKey: input.command,
                command: input.command,
            }),
            execute: async (input: { command: string }) => ({
                ok: true,
                data: { ran: input.command },
            }),
        };
        const { session, registry } = makeSession(
            [
                { blocks: [call("t1", "shell_run", { command: "npm test" })] },
                { blocks: [call("t2", "shell_run", { command: "ls" })] },
                { blocks: [call("t3", "shell_run", { command: "ls" })] },
                { blocks: [call("t4", "shell_run", { command: "git status" })] },
                { blocks: [call("t5", "shell_run", { command: "rm -rf build" })] },
                { blocks: [text("done")] },
            ],
            [shell],
            approver,
            settings
        );
        await session.run("run things", { mode: "agent" });
        expect(asked).toEqual(["ls", "git status"]);
        expect([...allow]).toEqual(["npm test", "ls"]);
        expect(auto).toBe(true);
        expect(registry.executed).toHaveLength(5);
    });

    it("stops at --max-turns with error_max_turns", async () => {
        const loop: ScriptedReply[] = Array.from({ length: 5 }, (_, i) => ({
            blocks: [call(`t${i}`, "read_a", {})],
        }));
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
            {
                error: {
                    kind: "rate_limit",
                    status: 429,
                    message: "Anthropic API 429: slow down",
                    retryable: true,
                    retryAfterMs: 2000,
                },
            },
            { blocks: [text("fine")] },
        ]);
        const result = await session.run("hi", { mode: "agent" });
        expect(result.subtype).toBe("success");
        expect(sleeps).toEqual([2000]);
        expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
    });

    it("backs off exponentially on 5xx and gives up after 3 retries", async () => {
        const err = {
            error: {
                kind: "server" as const,
                status: 500,
                message: "API 500: boom",
                retryable: true,
            },
        };
        const { session, provider, sleeps } = makeSession([
            err,
            err,
            err,
            err,
            { blocks: [text("never")] },
        ]);
        const result = await session.run("hi", { mode: "agent" });
        expect(result.subtype).toBe("error_during_execution");
        expect(result.error).toContain("boom");
        expect(provider.requests).toHaveLength(4);
        expect(sleeps).toEqual([1000, 2000, 4000]);
    });

    it("cuts a stream that goes idle and retries it", async () => {
        const provider = new ScriptedProvider([
            { stallUntilAbort: true },
            { blocks: [text("second try")] },
        ]);
        const session = new AgentSession({
            sessionId: "abc123",
            repoRoot: "/repo",
            model: sonnet,
            providerFor: async () => provider,
            tools: runner([]),
            approver: async () => ({ outcome: "deny" }),
            sleep: async () => {},
            streamIdleTimeoutMs: 30,
        });
        const retries: EngineEvent[] = [];
        session.subscribe((e) => e.type === "retry" && retries.push(e));
        const result = await session.run("hi", { mode: "agent" });
        expect(result.subtype).toBe("success");
        expect(result.text).toBe("second try");
        expect(retries).toHaveLength(1);
    });

    it("fails at once on 401 with the provider's message", async () => {
        const { session, provider, sleeps } = makeSession([
            {
                error: {
                    kind: "auth",
                    status: 401,
                    message: "Anthropic API 401: invalid x-api-key",
                    retryable: false,
                },
            },
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
            return Promise.resolve(
                signal.aborted
                    ? { ok: false, error: { code: "cancelled", message: "stopped" } }
                    : { ok: true, data: 1 }
            );
        });
        const { session, provider, registry } = makeSession(
            [
                { blocks: [call("t1", "slow", {}), call("t2", "slow", {})] },
                { blocks: [text("after")] },
            ],
            [slow]
        );
        const result = await session.run("go", { mode: "agent", signal: controller.signal });
        expect(result.subtype).toBe("cancelled");
        expect(registry.executed).toEqual(["slow"]);
        const last = session.messages.at(-1)!;
        expect(toolResults(last).map((r) => [r.toolCallId, r.isError])).toEqual([
            ["t1", true],
            ["t2", true],
        ]);
        const next = await session.run("continue", { mode: "agent" });
        expect(next.subtype).toBe("success");
        const sent = provider.requests[1]!.messages;
        // tool results, then the new prompt merged after them or as its own message: every call answered once
        const calls = sent.flatMap((m) =>
            m.role === "assistant" ? m.content.filter((b) => b.type === "tool_call") : []
        );
        const answered = sent.flatMap((m) => toolResults(m));
        expect(answered.map((r) => r.toolCallId).sort()).toEqual(
            calls.map((c) => (c as { id: string }).id).sort()
        );
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
