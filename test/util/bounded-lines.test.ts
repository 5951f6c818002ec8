import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { type OversizedLine, readBoundedLines } from "../../src/util/bounded-lines";

/** Feeds `chunks` in order, then ends; collects what the reader yields. */
async function linesOf(
    chunks: Array<string | Buffer>,
    maxBytes: number
): Promise<Array<string | OversizedLine>> {
    const input = new PassThrough();
    const reader = readBoundedLines(input, maxBytes);
    for (const chunk of chunks) input.write(chunk);
    input.end();
    const out: Array<string | OversizedLine> = [];
    for await (const line of reader) out.push(line);
    return out;
}

describe("readBoundedLines", () => {
    it("splits lines across chunks, drops the CR of CRLF, keeps a last line without newline", async () => {
        expect(await linesOf(["ab", "c\r\nde", "f\n\ng", "h"], 100)).toEqual([
            "abc",
            "def",
            "",
            "gh",
        ]);
    });

    it("keeps a character whose UTF-8 bytes arrive in two chunks", async () => {
        const bytes = Buffer.from("é🎉\n", "utf8");
        expect(
            await linesOf([bytes.subarray(0, 1), bytes.subarray(1, 3), bytes.subarray(3)], 100)
        ).toEqual(["é🎉"]);
    });

    it("replaces a line over the limit, however it is chunked, and goes on with the next", async () => {
        const long = "x".repeat(25);
        const chunks = ["ok\n", ...long.match(/.{1,4}/g)!, "\nnext\n", "y".repeat(11)];
        expect(await linesOf(chunks, 10)).toEqual([
            "ok",
            { oversizedBytes: 25 },
            "next",
            { oversizedBytes: 11 },
        ]);
        // Exactly at the limit is still a line.
        expect(await linesOf(["x".repeat(10) + "\n"], 10)).toEqual(["x".repeat(10)]);
    });

    it("stops at close(): lines already read are still yielded", async () => {
        const input = new PassThrough();
        const reader = readBoundedLines(input, 100);
        input.write("first\nsecond\n");
        const seen: Array<string | OversizedLine> = [];
        for await (const line of reader) {
            seen.push(line);
            reader.close();
        }
        expect(seen).toEqual(["first", "second"]);
    });
});
