/**
 * An edit's diagnostics in the chat: under the edit's entry (pending, then
 * the introduced problems in their colour), or as a notice for a write
 * without an entry of its own (a NORTH_FILE block).
 */
import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/agent/events";
import type { LspDiagnostic } from "../../src/tools/lsp/types";
import { createAnsi } from "../../src/ui/render/ansi";
import { renderEntry } from "../../src/ui/render/entry-lines";
import type { Entry } from "../../src/ui/transcript/types";
import { builtinDisplays, ev, plain, reduce } from "./helpers";
import { createTranscriptState, replayActions } from "../../src/ui/transcript/reducer";

const PLAIN = createAnsi(false);
const lines = (entry: Entry, width = 100) =>
    renderEntry(entry, width, PLAIN).lines.map((line) => plain(line).trim());

const typeError: LspDiagnostic = {
    path: "src/a.ts",
    line: 3,
    column: 7,
    endLine: 3,
    endColumn: 8,
    severity: "error",
    message: "Type 'string' is not assignable to type 'number'.",
    source: "ts",
    code: "2322",
    server: "typescript",
};

function diagnostics(fields: Partial<Extract<EngineEvent, { type: "diagnostics" }>>): EngineEvent {
    return {
        type: "diagnostics",
        toolCallId: "c1",
        introduced: [],
        more: 0,
        fixed: 0,
        pending: false,
        baselineKnown: true,
        ...fields,
    };
}

const call = ev({
    type: "tool_call",
    id: "c1",
    name: "edit_replace_exact",
    input: { path: "src/a.ts", old_text: "1", new_text: "'1'" },
});
const result = ev({
    type: "tool_result",
    id: "c1",
    name: "edit_replace_exact",
    ok: true,
    content: "{}",
    details: { applied: true, files: [{ path: "src/a.ts", linesAdded: 1, linesRemoved: 1 }] },
    durationMs: 1,
});

describe("edit diagnostics in the transcript", () => {
    it("draws the introduced problems under the edit, with the count not listed and the fixed", () => {
        const state = reduce(
            [call, ev(diagnostics({ introduced: [typeError], more: 2, fixed: 1 })), result],
            createTranscriptState(0, builtinDisplays)
        );
        const drawn = lines(state.entries[0]!);
        expect(drawn.slice(1)).toEqual([
            "src/a.ts:3:7 error Type 'string' is not assignable to type 'number'. (ts 2322)",
            "and 2 more",
            "1 problem fixed",
        ]);
    });

    it("draws them again when a resumed conversation replays its log", () => {
        const state = replayActions(createTranscriptState(0, builtinDisplays), [
            call,
            ev(diagnostics({ introduced: [typeError] })),
            result,
        ]);
        expect(lines(state.entries[0]!).slice(1)).toEqual([
            "src/a.ts:3:7 error Type 'string' is not assignable to type 'number'. (ts 2322)",
        ]);
    });

    it("shows pending, then what the late answer brought", () => {
        const pending = reduce(
            [call, ev(diagnostics({ pending: true })), result],
            createTranscriptState(0, builtinDisplays)
        );
        expect(lines(pending.entries[0]!).slice(1)).toEqual([
            "… diagnostics pending (the language server is slow)",
        ]);
        const late = reduce([ev(diagnostics({ introduced: [typeError] }))], pending);
        expect(lines(late.entries[0]!).slice(1)).toEqual([
            "src/a.ts:3:7 error Type 'string' is not assignable to type 'number'. (ts 2322)",
        ]);
    });

    it("says when the server had not checked the file before the edit", () => {
        const state = reduce(
            [call, ev(diagnostics({ introduced: [typeError], baselineKnown: false })), result],
            createTranscriptState(0, builtinDisplays)
        );
        expect(lines(state.entries[0]!).slice(1)).toEqual([
            "src/a.ts:3:7 error Type 'string' is not assignable to type 'number'. (ts 2322)",
            "(the language server had not checked the file before the edit)",
        ]);
    });

    it("adds nothing under an edit that introduced nothing", () => {
        const state = reduce(
            [call, ev(diagnostics({})), result],
            createTranscriptState(0, builtinDisplays)
        );
        expect(lines(state.entries[0]!)).toHaveLength(1);
    });

    it("gives a write without an entry of its own a notice", () => {
        const state = reduce([ev(diagnostics({ toolCallId: "nf-1-0", introduced: [typeError] }))]);
        expect(state.entries).toHaveLength(1);
        expect(state.entries[0]).toMatchObject({ kind: "notice", level: "warning" });
        expect((state.entries[0] as { text: string }).text).toContain("src/a.ts:3:7 error");
    });
});
