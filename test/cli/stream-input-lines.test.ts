import { describe, expect, it } from "vitest";
import { MAX_REFUSAL_REASON_CHARS, parseInputLine } from "../../src/headless/stream-input";

describe("parseInputLine", () => {
    it("reads Claude Code's user line, with string or text-block content", () => {
        expect(
            parseInputLine('{"type":"user","message":{"role":"user","content":"fix the test"}}')
        ).toEqual({ type: "prompt", text: "fix the test" });
        const blocks = JSON.stringify({
            type: "user",
            message: {
                role: "user",
                content: [
                    { type: "text", text: "first" },
                    { type: "text", text: "second" },
                ],
            },
        });
        expect(parseInputLine(blocks)).toEqual({ type: "prompt", text: "first\n\nsecond" });
    });

    it("skips blank lines and reads a line that ends in CR", () => {
        expect(parseInputLine("   ")).toBeNull();
        expect(parseInputLine('{"type":"user","message":{"content":"hi"}}\r')).toEqual({
            type: "prompt",
            text: "hi",
        });
    });

    it("names what is wrong with a line it cannot use", () => {
        const error = (line: unknown) => {
            const parsed = parseInputLine(typeof line === "string" ? line : JSON.stringify(line));
            return parsed?.type === "invalid" ? parsed.error : parsed;
        };
        expect(error("[1, 2]")).toBe("not a JSON object");
        expect(error({ type: "user", message: { role: "assistant", content: "x" } })).toContain(
            'message.role must be "user"'
        );
        expect(
            error({ type: "user", message: { content: [{ type: "image", source: {} }] } })
        ).toContain("(got image)");
        expect(error({ type: "user", message: { content: "  " } })).toBe(
            "message.content is empty"
        );
        expect(error({ type: "approval_response", id: "a1", decision: "maybe" })).toContain(
            '"approve" or "deny"'
        );
        expect(error({ type: "approval_response", decision: "approve" })).toContain('"id"');
    });

    it("refuses a denial's reason that is not a string or longer than 2,000 characters, keeping none of it", () => {
        const line = (reason: unknown) =>
            parseInputLine(
                JSON.stringify({ type: "approval_response", id: "a1", decision: "deny", reason })
            );
        expect(line(42)).toEqual({ type: "invalid", error: '"reason" must be a string' });
        expect(line("x".repeat(MAX_REFUSAL_REASON_CHARS + 1))).toEqual({
            type: "invalid",
            error: `"reason" is ${MAX_REFUSAL_REASON_CHARS + 1} characters; at most ${MAX_REFUSAL_REASON_CHARS} are read`,
        });
        const longest = "y".repeat(MAX_REFUSAL_REASON_CHARS);
        expect(line(longest)).toEqual({
            type: "approval_response",
            id: "a1",
            decision: { outcome: "deny", reason: longest },
        });
    });

    it("reads approval answers, with a denial's reason", () => {
        expect(
            parseInputLine('{"type":"approval_response","id":"a1","decision":"deny","reason":"no"}')
        ).toEqual({
            type: "approval_response",
            id: "a1",
            decision: { outcome: "deny", reason: "no" },
        });
    });
});
