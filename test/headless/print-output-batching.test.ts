import { describe, expect, it } from "vitest";
import { createBufferedSink, createPrintRenderer } from "../../src/headless/print-mode";

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("print-mode output batching", () => {
    it("writes the deltas of one network chunk with one write, and still streams chunk by chunk", async () => {
        const writes: string[] = [];
        const stdout = createBufferedSink({ write: (text) => writes.push(text) });
        const renderer = createPrintRenderer({
            format: "stream-json",
            sessionId: "s1",
            stdout,
            stderr: { write: () => undefined },
            progress: false,
        });
        for (const text of ["to", "k", "ens"]) renderer.onEvent({ type: "text_delta", text });
        expect(writes).toEqual([]);
        await nextTurn();
        expect(writes).toHaveLength(1);
        expect(
            writes[0]!
                .trim()
                .split("\n")
                .map((line) => JSON.parse(line).text)
        ).toEqual(["to", "k", "ens"]);
        renderer.onEvent({ type: "text_delta", text: " more" });
        await nextTurn();
        expect(writes).toHaveLength(2);
        expect(JSON.parse(writes[1]!).text).toBe(" more");
    });

    it("writes at once when the buffer fills, so a long chunk is not held back", () => {
        const writes: string[] = [];
        const sink = createBufferedSink({ write: (text) => writes.push(text) }, 10);
        sink.write("12345");
        expect(writes).toEqual([]);
        sink.write("678901");
        expect(writes).toEqual(["12345678901"]);
        sink.write("x");
        sink.flush();
        expect(writes).toEqual(["12345678901", "x"]);
    });
});
