import { beforeAll, describe, expect, it } from "vitest";
import { createAnsi } from "../../src/ui/render/ansi";
import { foldOf } from "../../src/ui/render/entry-lines";
import { createLineCache } from "../../src/ui/render/line-cache";
import { loadMarkdown } from "../../src/ui/render/markdown";
import { EXIT_TRANSCRIPT_ROWS, exitTranscript } from "../../src/ui/exit-transcript";
import { allLines, createTranscriptView, renderUnfolded } from "../../src/ui/transcript-view-state";
import type { Entry, ToolEntry } from "../../src/ui/transcript/types";
import type { KeyEvent } from "../../src/ui/input/keys";

beforeAll(() => loadMarkdown());

const ansi = createAnsi(false);
const text = (t: string): KeyEvent => ({ type: "text", text: t });
const key = (name: "return" | "escape" | "home" | "end" | "up"): KeyEvent => ({
    type: "key",
    name,
    ctrl: false,
    meta: false,
    shift: false,
});

function answer(i: number): Entry {
    return {
        kind: "assistant",
        id: `a${i}`,
        version: 0,
        text: `Answer ${i}.`,
        streaming: false,
        cancelled: false,
    };
}

function command(i: number, lines: number): ToolEntry {
    const output = Array.from({ length: lines }, (_, n) => `out ${i}-${n}`);
    return {
        kind: "tool",
        id: `t${i}`,
        version: 0,
        callId: `c${i}`,
        name: "shell_run",
        title: `Running job ${i}`,
        status: "done",
        detail: ["exit 0", ...output.slice(-4)],
        fullDetail: ["exit 0", ...output],
    };
}

function prompt(i: number): Entry {
    return { kind: "user", id: `u${i}`, version: 0, text: `prompt ${i}`, attachments: [] };
}

const setup = (entries: Entry[], height = 10) => {
    const cache = createLineCache(ansi, renderUnfolded);
    const view = createTranscriptView(cache);
    const at = { entries, width: 60, height };
    return { cache, view, at };
};

describe("fold hints", () => {
    it("say hidden lines are above a tail (under its status line) and below a head", () => {
        expect(foldOf(["exit 0", "8", "9"], ["exit 0", "1", "2", "3", "8", "9"])).toEqual({
            at: 1,
            hint: "… 3 earlier lines above · Ctrl+O transcript",
        });
        expect(foldOf(["a", "b"], ["a", "b", "c"])).toEqual({
            at: 2,
            hint: "… 1 more line below · Ctrl+O transcript",
        });
        expect(foldOf(["a"], ["a"])).toBeNull();
    });
});

describe("the transcript view's state", () => {
    it("opens with the latest folded entry's first line at the top, its whole output below", () => {
        const entries = [prompt(0), command(1, 30), answer(2), command(3, 8), answer(4)];
        const { view, at, cache } = setup(entries);
        view.open(at);
        const state = view.get();
        expect(state.open).toBe(true);
        // From command 3 on: its title, 9 output lines, a gap and the answer = 12 lines, 10 shown.
        const below = allLines(entries.slice(3), cache, 60).length;
        expect(state.offset).toBe(below - 10);
        expect(state.frozen).toBe(entries);
    });

    it("opens at the end, following, when nothing is folded", () => {
        const { view, at } = setup([prompt(0), answer(1)]);
        view.open(at);
        expect(view.get()).toMatchObject({ open: true, offset: 0, frozen: null });
    });

    it("searches up from the bottom of the view; n and N go on, wrapping; no match is said", () => {
        const entries = [command(1, 30), answer(2), command(3, 30), answer(4)];
        const { view, at } = setup(entries);
        view.open(at);
        view.key(key("end"), at);
        view.key(text("/out 1-2"), at); // typed at once: opens the search, then fills it
        expect(view.get().search).toMatchObject({ editing: true, query: "out 1-2" });
        view.key(key("return"), at);
        const found = view.get().search!;
        // "out 1-2" and "out 1-20" … "out 1-29": eleven lines, the one nearest the end shown first.
        expect(found.matches).toHaveLength(11);
        expect(found.current).toBe(0);
        view.key(text("n"), at);
        expect(view.get().search!.current).toBe(1);
        view.key(text("N"), at);
        expect(view.get().search!.current).toBe(0);
        view.key(text("N"), at);
        expect(view.get().search!.current).toBe(10);
        expect(view.get().note).toBe("from the top again");
        view.key(text("/zzz"), at);
        view.key(key("return"), at);
        expect(view.get().note).toBe('no match for "zzz"');
        view.key(key("escape"), at);
        expect(view.get()).toMatchObject({ open: true, search: null });
        view.key(key("escape"), at);
        expect(view.get().open).toBe(false);
    });

    it("searches from the end up only as far as the nearest match", () => {
        const entries: Entry[] = [];
        for (let i = 0; i < 1000; i++) entries.push(prompt(i), answer(i));
        const { view, at, cache } = setup(entries, 30);
        view.open(at);
        view.key(text("/Answer 995."), at);
        view.key(key("return"), at);
        expect(view.get().search).toMatchObject({ current: 0, complete: false, scanned: 9 });
        expect(cache.stats().misses).toBe(9);
    });

    it("opens fast over 2,000 entries: only the entries from the folded one on are wrapped", () => {
        const entries: Entry[] = [];
        for (let i = 0; i < 1000; i++) entries.push(prompt(i), answer(i));
        entries.push(command(2000, 50), answer(2001));
        const { view, at, cache } = setup(entries, 30);
        view.open(at);
        expect(view.get().offset).toBeGreaterThan(0);
        expect(cache.stats().misses).toBe(2);
    });
});

describe("the exit transcript", () => {
    it("is empty when nothing was asked", () => {
        expect(exitTranscript([answer(0)], ansi, { width: 60 })).toBe("");
    });

    it("keeps prompts and answers, one line per tool call, no outputs", () => {
        const out = exitTranscript([prompt(0), command(1, 30), answer(2)], ansi, { width: 60 });
        expect(out).toContain("❯ prompt 0");
        expect(out).toContain("Running job 1");
        expect(out).toContain("● Answer 2.");
        expect(out).not.toContain("out 1-");
    });

    it("is bounded, naming how to read the rest", () => {
        const entries: Entry[] = [];
        for (let i = 0; i < 400; i++) entries.push(prompt(i), answer(i));
        const out = exitTranscript(entries, ansi, { width: 60, conversationId: "abc123" });
        const rows = out.split("\n");
        expect(rows.length).toBeLessThanOrEqual(EXIT_TRANSCRIPT_ROWS + 4);
        expect(out).toContain("… earlier entries: north resume abc123");
        expect(out).toContain("● Answer 399.");
        expect(out).not.toContain("prompt 0\n");
    });
});
