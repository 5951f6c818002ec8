import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/agent/events";
import {
    type OutputFormat,
    createPrintRenderer,
    streamJsonLine,
} from "../../src/headless/print-mode";
import { runResult } from "../ui/helpers";

function render(format: OutputFormat, progress: boolean, events: EngineEvent[]) {
    const out: string[] = [];
    const err: string[] = [];
    const renderer = createPrintRenderer({
        format,
        sessionId: "s1",
        stdout: { write: (t) => out.push(t), flush: () => {} },
        stderr: { write: (t) => err.push(t) },
        progress,
    });
    for (const event of events) renderer.onEvent(event);
    return { out: out.join(""), err: err.join("") };
}

const retry: EngineEvent = {
    type: "retry",
    attempt: 1,
    maxAttempts: 3,
    delayMs: 2000,
    error: { kind: "rate_limit", message: "429 slow down", retryable: true },
};
const events: EngineEvent[] = [
    { type: "turn_start", turn: 1 },
    { type: "tool_call_start", id: "t1", name: "read_file" },
    { type: "tool_call", id: "t1", name: "read_file", input: { path: "a.ts" } },
    retry,
    { type: "context", usedTokens: 10, limitTokens: 100, usage: 0.1 },
    { type: "file_write", path: "b.ts", linesWritten: 3, status: "written" },
    { type: "warning", message: "NORTH_FILE block for b.ts was cut off" },
    { type: "text_delta", text: "answer" },
];

describe("print mode output", () => {
    it("stream-json: one line per contract event, none for TUI-only ones", () => {
        const types = events.map((e) => streamJsonLine(e, "s1")?.type ?? null);
        expect(types).toEqual([
            "turn_start",
            null,
            "tool_call",
            "retry",
            null,
            null,
            "warning",
            "text_delta",
        ]);
        const { out, err } = render("stream-json", true, events);
        expect(out.trim().split("\n")).toHaveLength(5);
        expect(err).toBe("");
    });

    it("text on a terminal: tool progress, retries and warnings on stderr; nothing on stdout until the end", () => {
        const { out, err } = render("text", true, events);
        expect(out).toBe("");
        expect(err).toBe(
            "⚡ read_file a.ts\n" +
                "↻ 429 slow down — retrying in 2.0s (1/3)\n" +
                "north: warning: NORTH_FILE block for b.ts was cut off\n"
        );
    });

    it("json, or text without a terminal: only warnings on stderr", () => {
        for (const [format, progress] of [
            ["json", true],
            ["text", false],
        ] as const) {
            const { out, err } = render(format, progress, events);
            expect(out).toBe("");
            expect(err).toBe("north: warning: NORTH_FILE block for b.ts was cut off\n");
        }
    });

    it("prints the answer once, at the end", () => {
        const stdout: string[] = [];
        const renderer = createPrintRenderer({
            format: "text",
            sessionId: "s1",
            stdout: { write: (t) => stdout.push(t), flush: () => {} },
            stderr: { write: () => {} },
            progress: false,
        });
        for (const event of events) renderer.onEvent(event);
        renderer.finish({ ...runResult("success"), text: "answer" });
        expect(stdout.join("")).toBe("answer\n");
    });
});
