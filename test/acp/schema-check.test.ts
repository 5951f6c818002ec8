/**
 * The harness's schema check is what makes every other ACP test check the
 * wire: it must pass the messages ACP defines and catch the ones it does not,
 * by the method a response answers.
 */
import { describe, expect, it } from "vitest";
import { createAgentMessageChecker } from "../kit/acp-schema";

const checker = createAgentMessageChecker();
const sent: Record<string, string> = {
    "1": "initialize",
    "2": "session/prompt",
    "3": "session/new",
};
const check = (message: unknown): string[] =>
    checker.check(
        typeof message === "string" ? message : JSON.stringify(message),
        (id) => sent[String(id)]
    );

const update = (body: Record<string, unknown>) => ({
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId: "s-1", update: body },
});

describe("the ACP schema check", () => {
    it("passes messages the protocol defines", () => {
        expect(
            check({
                jsonrpc: "2.0",
                id: 1,
                result: {
                    protocolVersion: 1,
                    agentCapabilities: { loadSession: true },
                    authMethods: [],
                },
            })
        ).toEqual([]);
        expect(check({ jsonrpc: "2.0", id: 2, result: { stopReason: "cancelled" } })).toEqual([]);
        expect(
            check(
                update({
                    sessionUpdate: "agent_message_chunk",
                    content: { type: "text", text: "hi" },
                })
            )
        ).toEqual([]);
        expect(
            check(
                update({
                    sessionUpdate: "tool_call",
                    toolCallId: "t1",
                    title: "Editing src/a.ts",
                    kind: "edit",
                    status: "pending",
                    locations: [{ path: "/r/src/a.ts", line: 3 }],
                    content: [{ type: "diff", path: "/r/src/a.ts", oldText: "a", newText: "b" }],
                })
            )
        ).toEqual([]);
        expect(
            check({
                jsonrpc: "2.0",
                id: 0,
                method: "session/request_permission",
                params: {
                    sessionId: "s-1",
                    toolCall: { toolCallId: "t1" },
                    options: [{ optionId: "once", name: "Yes, once", kind: "allow_once" }],
                },
            })
        ).toEqual([]);
        expect(
            check({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })
        ).toEqual([]);
    });

    it("catches what the protocol does not define", () => {
        expect(check("Starting North…")).toEqual([expect.stringContaining("not JSON")]);
        expect(check({ jsonrpc: "2.0", id: 1, result: { protocolVersion: "1.0" } })).toEqual([
            expect.stringContaining("initialize result"),
        ]);
        expect(check({ jsonrpc: "2.0", id: 2, result: { stopReason: "done" } })).toEqual([
            expect.stringContaining("session/prompt result"),
        ]);
        // A session/new answer without its sessionId matches some other response's shape, not its own.
        expect(check({ jsonrpc: "2.0", id: 3, result: {} })).toEqual([
            expect.stringContaining("session/new result"),
        ]);
        expect(
            check(
                update({ sessionUpdate: "tool_call", toolCallId: "t", title: "x", kind: "reading" })
            )
        ).toEqual([expect.stringContaining("session/update params")]);
        expect(
            check(update({ sessionUpdate: "agent_message_chunk", content: { type: "txt" } }))
        ).toHaveLength(1);
        expect(check({ jsonrpc: "2.0", id: 9, result: {} })).toEqual([
            expect.stringContaining("a request never made"),
        ]);
        expect(check({ jsonrpc: "2.0", method: "north/debug", params: {} })).toEqual([
            expect.stringContaining("does not define"),
        ]);
        expect(check({ id: 2, result: { stopReason: "end_turn" } })).toEqual([
            expect.stringContaining("not an Agent message"),
        ]);
    });
});
