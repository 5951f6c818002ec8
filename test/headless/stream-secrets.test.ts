import { describe, expect, it } from "vitest";
import { parseInputLine } from "../../src/headless/stream-input";

describe("secret_response lines", () => {
    it("carries the password, or null to decline", () => {
        expect(parseInputLine('{"type":"secret_response","id":"secret-1","secret":"pw"}')).toEqual({
            type: "secret_response",
            id: "secret-1",
            secret: "pw",
        });
        expect(parseInputLine('{"type":"secret_response","id":"secret-1","secret":null}')).toEqual({
            type: "secret_response",
            id: "secret-1",
            secret: null,
        });
    });

    it("names what is wrong without quoting the value, which may be the password", () => {
        const error = (line: unknown) => {
            const parsed = parseInputLine(JSON.stringify(line));
            return parsed?.type === "invalid" ? parsed.error : parsed;
        };
        expect(error({ type: "secret_response", secret: "pw" })).toContain('"id"');
        const wrong = error({ type: "secret_response", id: "secret-1", secret: 12345678 });
        expect(wrong).toBe('"secret" must be a string (the password) or null (declined)');
        expect(wrong).not.toContain("12345678");
        expect(error({ type: "secret_response", id: "secret-1" })).toContain('"secret"');
        expect(error({ type: "answer" })).toContain('"secret_response"');
    });
});
