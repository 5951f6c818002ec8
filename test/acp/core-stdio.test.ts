/**
 * `north acp`'s input side: lines are split with a byte cap before the SDK
 * reads them, an over-long line is skipped to its newline (never held whole)
 * and answered with an error naming its request id when the line's start
 * has one.
 */
import { describe, expect, it } from "vitest";
import {
    BoundedLineSplitter,
    MAX_MESSAGE_BYTES,
    tooLargeResponse,
    topLevelIdOf,
} from "../../src/cli/acp/stdio";

function splitter(maxBytes: number) {
    const lines: string[] = [];
    const tooLarge: Array<{ bytes: number; head: string }> = [];
    const split = new BoundedLineSplitter(
        maxBytes,
        (line) => lines.push(line.toString("utf8")),
        (bytes, head) => tooLarge.push({ bytes, head: head.toString("utf8") })
    );
    return { split, lines, tooLarge };
}

describe("BoundedLineSplitter", () => {
    it("passes lines on whole, however the bytes arrive", () => {
        const { split, lines } = splitter(100);
        split.push(Buffer.from('{"a":1}\n{"b"'));
        split.push(Buffer.from(":2}\n\n"));
        split.push(Buffer.from('{"c":3}'));
        split.end();
        expect(lines).toEqual(['{"a":1}\n', '{"b":2}\n', "\n", '{"c":3}\n']);
    });

    it("skips a line over the cap to its newline and goes on with the next", () => {
        const { split, lines, tooLarge } = splitter(10);
        split.push(Buffer.from('{"id":7,"x":"'));
        split.push(Buffer.from("y".repeat(50)));
        split.push(Buffer.from('"}\n{"ok":1}\n'));
        expect(tooLarge).toEqual([{ bytes: 13 + 50 + 2, head: expect.stringContaining('"id":7') }]);
        expect(lines).toEqual(['{"ok":1}\n']);
    });

    it("counts a line as the SDK does: a CR before the newline is not part of it", () => {
        const { split, lines, tooLarge } = splitter(4);
        split.push(Buffer.from("abcd\r\nabcde\n"));
        expect(lines).toEqual(["abcd\r\n"]);
        expect(tooLarge).toHaveLength(1);
    });
});

describe("the request id of an over-long line", () => {
    it("is the top-level id, not one nested in params", () => {
        expect(topLevelIdOf('{"jsonrpc":"2.0","params":{"id":1},"id":42,"method":"x"')).toBe(42);
        expect(topLevelIdOf('{"id":"req-\\"7\\"","method":"session/prompt"')).toBe('req-"7"');
        expect(topLevelIdOf('{"method":"x","params":{"prompt":"id\\":3"}')).toBeNull();
        expect(topLevelIdOf('{"method":"x","params":{"text":"')).toBeNull();
    });

    it("is answered as a JSON-RPC error naming the limit", () => {
        const line = JSON.parse(tooLargeResponse(64 * 1024 * 1024, '{"id":9,"method":"m"'));
        expect(line).toMatchObject({ jsonrpc: "2.0", id: 9, error: { code: -32600 } });
        expect(line.error.message).toContain("64 MiB");
        expect(line.error.message).toContain(`${MAX_MESSAGE_BYTES / 1024 / 1024} MiB`);
    });
});
