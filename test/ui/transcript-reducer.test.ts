import { describe, expect, it } from "vitest";
import { toolDisplaysOf } from "../../src/agent/tool-displays";
import {
    createTranscriptState,
    replayActions,
    transcriptReducer,
} from "../../src/ui/transcript/reducer";
import type { Entry, ToolEntry } from "../../src/ui/transcript/types";
import { builtinDisplays, ev, reduce, runResult } from "./helpers";

const start = ev({
    type: "run_start",
    sessionId: "s",
    model: "m",
    mode: "agent",
    tools: [],
    cwd: "/r",
});

const kinds = (entries: Entry[]) => entries.map((e) => e.kind);

describe("transcript reducer", () => {
    it("streams text into one assistant entry and settles it at turn end", () => {
        const state = reduce([
            { type: "user", text: "hi" },
            start,
            ev({ type: "turn_start", turn: 1 }),
            ev({ type: "text_delta", text: "Hel" }),
            ev({ type: "text_delta", text: "lo" }),
        ]);
        expect(kinds(state.entries)).toEqual(["user", "assistant"]);
        const answer = state.entries[1]!;
        expect(answer).toMatchObject({ kind: "assistant", text: "Hello", streaming: true });
        expect(answer.version).toBe(1);
        expect(state.busy).toBe(true);
        const done = reduce(
            [
                ev({
                    type: "turn_end",
                    turn: 1,
                    stopReason: "end_turn",
                    usage: {
                        inputTokens: 1,
                        outputTokens: 1,
                        cacheReadTokens: 0,
                        cacheWriteTokens: 0,
                    },
                    costUsd: 0,
                }),
                ev({ type: "run_end", result: runResult("success") }),
            ],
            state
        );
        expect(done.entries[1]).toMatchObject({ streaming: false });
        expect(done.busy).toBe(false);
    });

    it("keeps ids stable and bumps versions only for changed entries", () => {
        const a = reduce([
            { type: "user", text: "one" },
            start,
            ev({ type: "text_delta", text: "x" }),
        ]);
        const b = reduce([ev({ type: "text_delta", text: "y" })], a);
        expect(b.entries[0]).toBe(a.entries[0]);
        expect(b.entries[1]!.id).toBe(a.entries[1]!.id);
        expect(b.entries[1]!.version).toBe(a.entries[1]!.version + 1);
    });

    it("names tools per the spec and adds result counts", () => {
        const state = reduce([
            start,
            ev({ type: "tool_call_start", id: "t1", name: "read_file" }),
            ev({
                type: "tool_call",
                id: "t1",
                name: "read_file",
                input: { path: "src/ui/app.tsx" },
            }),
            ev({ type: "tool_call", id: "t2", name: "list_root", input: {} }),
            ev({
                type: "tool_result",
                id: "t2",
                name: "list_root",
                ok: true,
                content: "",
                details: { entries: ["a", "b"], totalEntries: 12, truncated: false },
                durationMs: 1,
            }),
            ev({ type: "tool_call", id: "t3", name: "find_files", input: { pattern: "*.ts" } }),
            ev({
                type: "tool_result",
                id: "t3",
                name: "find_files",
                ok: true,
                content: "",
                details: { files: ["a.ts", "b.ts"], totalMatches: 80, truncated: true },
                durationMs: 1,
            }),
        ]);
        const tools = state.entries.filter((e): e is ToolEntry => e.kind === "tool");
        expect(tools.map((t) => t.title)).toEqual([
            "Reading app.tsx",
            "Listing project files - 12 entries",
            "Finding *.ts - 2+ files",
        ]);
        expect(tools.map((t) => t.status)).toEqual(["running", "done", "done"]);
    });

    it("shows edit stats once an edit is applied", () => {
        const state = reduce([
            start,
            ev({
                type: "tool_call",
                id: "e1",
                name: "edit_replace_exact",
                input: { path: "src/a.ts", old_text: "x", new_text: "y" },
            }),
            ev({
                type: "tool_result",
                id: "e1",
                name: "edit_replace_exact",
                ok: true,
                content: "",
                details: {
                    applied: true,
                    files: [{ path: "src/a.ts", linesAdded: 3, linesRemoved: 1 }],
                },
                durationMs: 1,
            }),
            ev({ type: "tool_call", id: "e2", name: "edit_apply_batch", input: { edits: [] } }),
            ev({
                type: "tool_result",
                id: "e2",
                name: "edit_apply_batch",
                ok: true,
                content: "",
                details: {
                    applied: true,
                    files: [
                        { path: "a.ts", linesAdded: 1, linesRemoved: 0 },
                        { path: "b.ts", linesAdded: 2, linesRemoved: 5 },
                    ],
                },
                durationMs: 1,
            }),
            ev({
                type: "tool_call",
                id: "e3",
                name: "edit_create_file",
                input: { path: "new.md", content: "x" },
            }),
        ]);
        const titles = state.entries.map((e) => (e.kind === "tool" ? e.title : ""));
        expect(titles).toEqual([
            "Editing a.ts (+3/-1)",
            "Editing 2 files (+3/-5)",
            "Creating new.md",
        ]);
    });

    it("reports NORTH_FILE writes as one updating entry", () => {
        const state = reduce([
            start,
            ev({ type: "file_write", path: "docs/big.md", linesWritten: 10, status: "writing" }),
            ev({ type: "file_write", path: "docs/big.md", linesWritten: 250, status: "writing" }),
            ev({ type: "file_write", path: "docs/big.md", linesWritten: 300, status: "written" }),
        ]);
        expect(state.entries).toHaveLength(1);
        expect(state.entries[0]).toMatchObject({
            kind: "tool",
            title: "Writing docs/big.md (300 lines)",
            status: "done",
        });
    });

    it("marks failures, denials and shell output", () => {
        const state = reduce([
            start,
            ev({ type: "tool_call", id: "a", name: "read_file", input: { path: "nope.ts" } }),
            ev({
                type: "tool_result",
                id: "a",
                name: "read_file",
                ok: false,
                content: "",
                error: { code: "not_found", message: "nope.ts does not exist" },
                durationMs: 1,
            }),
            ev({ type: "tool_call", id: "b", name: "shell_run", input: { command: "npm test" } }),
            ev({
                type: "tool_result",
                id: "b",
                name: "shell_run",
                ok: false,
                content: "",
                error: { code: "denied", message: "the user denied this command" },
                durationMs: 1,
            }),
            ev({ type: "tool_call", id: "c", name: "shell_run", input: { command: "ls" } }),
            ev({
                type: "tool_result",
                id: "c",
                name: "shell_run",
                ok: true,
                content: "",
                details: {
                    command: "ls",
                    exitCode: 0,
                    output: "a\nb\n",
                    durationMs: 1200,
                    timedOut: false,
                    cancelled: false,
                },
                durationMs: 1,
            }),
        ]);
        const [a, b, c] = state.entries as ToolEntry[];
        expect(a).toMatchObject({ status: "failed", detail: ["nope.ts does not exist"] });
        expect(b).toMatchObject({ status: "denied", title: "Running npm test" });
        expect(c!.detail).toEqual(["exit 0 · 1.2s", "a", "b"]);
    });

    it("appends [Cancelled] to the answer being streamed", () => {
        const state = reduce([
            { type: "user", text: "go" },
            start,
            ev({ type: "text_delta", text: "partial" }),
            ev({ type: "run_end", result: runResult("cancelled", "cancelled by the user") }),
        ]);
        expect(state.entries[1]).toMatchObject({
            kind: "assistant",
            cancelled: true,
            streaming: false,
        });
    });

    it("adds a [Cancelled] line when the run is cancelled outside an answer", () => {
        const state = reduce([
            { type: "user", text: "go" },
            start,
            ev({ type: "tool_call", id: "t", name: "shell_run", input: { command: "sleep 9" } }),
            ev({ type: "run_end", result: runResult("cancelled") }),
        ]);
        expect(state.entries.at(-1)).toMatchObject({ kind: "notice", text: "[Cancelled]" });
        expect(state.entries[1]).toMatchObject({ kind: "tool", status: "cancelled" });
    });

    it("records errors, warnings, retries (coalesced) and resolved reviews", () => {
        const retry = (attempt: number) =>
            ev({
                type: "retry",
                attempt,
                maxAttempts: 5,
                delayMs: 2000,
                error: { kind: "overloaded", message: "overloaded", retryable: true },
            });
        const state = reduce([
            start,
            retry(1),
            retry(2),
            ev({ type: "warning", message: "careful" }),
            {
                type: "review",
                review: { kind: "write", summary: "Editing a.ts (+1 −1)", status: "accepted" },
            },
            ev({ type: "run_end", result: runResult("error_during_execution", "boom") }),
        ]);
        expect(kinds(state.entries)).toEqual(["notice", "notice", "review", "notice"]);
        expect(state.entries[0]).toMatchObject({ text: expect.stringContaining("attempt 2/5") });
        expect(state.entries[3]).toMatchObject({ level: "error", text: "Error: boom" });
    });

    it("clear starts a new epoch of ids", () => {
        const a = reduce([{ type: "user", text: "x" }]);
        const b = reduce([{ type: "clear" }, { type: "user", text: "y" }], a);
        expect(b.entries).toHaveLength(1);
        expect(b.entries[0]!.id).not.toBe(a.entries[0]!.id);
    });
});

describe("resumed history", () => {
    it("replays prompts, answers and tool calls as settled entries", async () => {
        const { historyActions } = await import("../../src/ui/transcript/history");
        const state = reduce(
            historyActions([
                { role: "user", content: "where is retry?" },
                {
                    role: "assistant",
                    content: [
                        { type: "text", text: "Looking." },
                        {
                            type: "tool_call",
                            id: "t1",
                            name: "read_file",
                            input: { path: "src/retry.ts" },
                            rawInput: "",
                        },
                    ],
                },
                {
                    role: "user",
                    content: [
                        { type: "tool_result", toolCallId: "t1", content: "{}", isError: false },
                    ],
                },
                { role: "assistant", content: [{ type: "text", text: "In src/retry.ts." }] },
            ])
        );
        expect(state.entries.map((e) => e.kind)).toEqual([
            "user",
            "assistant",
            "tool",
            "assistant",
        ]);
        expect(state.entries[2]).toMatchObject({ title: "Reading retry.ts", status: "done" });
        expect(state.entries.every((e) => !("streaming" in e) || e.streaming === false)).toBe(true);
        expect(state.busy).toBe(false);
    });
});

describe("tool titles", () => {
    it("names the engine's own propose_plan call, which no tool set lists", () => {
        const state = reduce([
            ev({ type: "tool_call", id: "p1", name: "propose_plan", input: { plan: "1. Do it" } }),
        ]);
        expect(state.entries[0]).toMatchObject({ kind: "tool", title: "Proposing a plan" });
    });
});

describe("the engine's tool displays", () => {
    const listCall = [
        ev({ type: "tool_call", id: "t1", name: "list_root", input: {} }),
        ev({
            type: "tool_result",
            id: "t1",
            name: "list_root",
            ok: true,
            content: "",
            details: { entries: ["a"], totalEntries: 12, truncated: false },
            durationMs: 1,
        }),
    ];

    it("calls drawn before the engine is up read as their names, then get their titles", () => {
        const early = reduce(
            [
                ...listCall,
                ev({ type: "tool_call", id: "t2", name: "read_file", input: { path: "a.ts" } }),
            ],
            createTranscriptState()
        );
        expect(early.entries.map((e) => (e as ToolEntry).title)).toEqual([
            "list_root",
            "read_file",
        ]);
        const titled = reduce([{ type: "tool_displays", displays: builtinDisplays }], early);
        expect(titled.entries.map((e) => (e as ToolEntry).title)).toEqual([
            "Listing project files - 12 entries",
            "Reading a.ts",
        ]);
        expect(titled.entries.every((e) => (e as ToolEntry).untitled === undefined)).toBe(true);
        // Later calls read right at once, and a clear keeps the table.
        const after = reduce([{ type: "clear" }, ...listCall], titled);
        expect((after.entries[0] as ToolEntry).title).toBe("Listing project files - 12 entries");
    });

    it("an MCP tool reads as the session's registry says", () => {
        const displays = toolDisplaysOf({
            list: () => [
                { name: "mcp__github__create_issue", display: { title: () => "Filing an issue" } },
            ],
        });
        const state = reduce(
            [ev({ type: "tool_call", id: "m1", name: "mcp__github__create_issue", input: {} })],
            createTranscriptState(0, displays)
        );
        expect((state.entries[0] as ToolEntry).title).toBe("Filing an issue");
    });

    it("the reducer never changes the state it is given; a replay changes only its own copy", () => {
        const before = reduce([{ type: "user", text: "x" }, ...listCall]);
        const entries = before.entries.slice();
        const toolIndex = { ...before.toolIndex };
        transcriptReducer(before, { type: "user", text: "y" });
        replayActions(before, [{ type: "user", text: "z" }, ...listCall]);
        expect(before.entries).toEqual(entries);
        expect(before.toolIndex).toEqual(toolIndex);
    });
});
