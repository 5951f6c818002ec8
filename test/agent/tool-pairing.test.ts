import { describe, expect, it } from "vitest";
import { repairToolPairing } from "../../src/agent/tool-pairing";
import type { Message } from "../../src/providers/types";

const callBlock = (id: string) => ({
    type: "tool_call" as const,
    id,
    name: "read_file",
    input: {},
    rawInput: "{}",
});
const result = (id: string) => ({
    type: "tool_result" as const,
    toolCallId: id,
    content: "{}",
    isError: false,
});

describe("repairToolPairing", () => {
    it("leaves a well-formed transcript alone", () => {
        const messages: Message[] = [
            { role: "user", content: "hi" },
            { role: "assistant", content: [callBlock("a")] },
            { role: "user", content: [result("a")] },
        ];
        expect(repairToolPairing(messages)).toEqual({ messages, repaired: 0 });
    });

    it("fills a missing result (process killed mid-tool) with an interrupted error", () => {
        const messages: Message[] = [
            { role: "user", content: "hi" },
            { role: "assistant", content: [callBlock("a"), callBlock("b")] },
            { role: "user", content: [result("a")] },
        ];
        const { messages: fixed, repaired } = repairToolPairing(messages);
        expect(repaired).toBe(1);
        const last = fixed[2]!;
        expect(
            last.role === "user" &&
                typeof last.content !== "string" &&
                last.content.map((b) => b.type === "tool_result" && [b.toolCallId, b.isError])
        ).toEqual([
            ["a", false],
            ["b", true],
        ]);
    });

    it("answers calls left dangling before a new prompt, keeping the prompt", () => {
        const messages: Message[] = [
            { role: "assistant", content: [callBlock("a")] },
            { role: "user", content: "next question" },
        ];
        const { messages: fixed } = repairToolPairing(messages);
        expect(fixed).toHaveLength(2);
        const user = fixed[1]!;
        expect(user.role).toBe("user");
        expect(typeof user.content !== "string" && user.content.map((b) => b.type)).toEqual([
            "tool_result",
            "text",
        ]);
    });

    it("drops orphan and duplicate results", () => {
        const messages: Message[] = [
            { role: "assistant", content: [callBlock("a")] },
            { role: "user", content: [result("a"), result("a"), result("zzz")] },
        ];
        const { messages: fixed, repaired } = repairToolPairing(messages);
        expect(repaired).toBe(2);
        const user = fixed[1]!;
        expect(typeof user.content !== "string" && user.content).toHaveLength(1);
    });
});
