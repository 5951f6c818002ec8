/**
 * The composer's editing for daily use (issue 18, part 7): word wrapping with
 * Up/Down over the wrapped rows, large pastes as a chip sent whole, undo/redo
 * in word-sized steps.
 */
import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import {
    type ComposerResult,
    type ComposerState,
    clearComposer,
    composerKey,
    createComposerState,
    expandChips,
} from "../../src/ui/composer/composer-state";
import { layoutComposer, visualRows } from "../../src/ui/composer/composer-layout";
import { editorOf } from "../../src/ui/composer/editor";
import { chipLabels } from "../../src/ui/composer/paste-chips";
import { PASTE_END, PASTE_START, parseInput } from "../../src/ui/input/keys";

const UP = "\x1b[A";
const DOWN = "\x1b[B";
const UNDO = "\x1f";
const CTRL_Z = "\x1a";
const CTRL_Y = "\x19";

/** Feeds raw input strings (each one Ink chunk) at `width` columns. */
function type(inputs: string[], from = createComposerState(), width = 20) {
    let state: ComposerState = from;
    const effects: NonNullable<ComposerResult["effect"]>[] = [];
    for (const input of inputs) {
        for (const event of parseInput(input)) {
            const result = composerKey(state, event, () => [], undefined, width);
            state = result.state;
            if (result.effect) effects.push(result.effect);
        }
    }
    return { state, effects };
}

/** One input string per character, as typed. */
const keys = (text: string): string[] => [...text];

const plain = (lines: string[]): string[] => lines.map((l) => stripVTControlCharacters(l));

describe("composer wrapping", () => {
    it("wraps at word boundaries and breaks a word longer than the row", () => {
        const text = "the quick brown fox jumps";
        const { lines } = layoutComposer(editorOf(text), 13, 10, false);
        expect(plain(lines)).toEqual(["the quick ", "brown fox ", "jumps"]);
        const long = layoutComposer(editorOf("abcdefghijklmnopqrstuvwxyz"), 11, 10, false);
        expect(plain(long.lines)).toEqual(["abcdefghij", "klmnopqrst", "uvwxyz"]);
    });

    it("never draws a row wider than the width, the cursor at a row's end included", () => {
        for (const text of ["aaaa bbbb cccc dddd", "aaaaaaaaa bbb", "a b c d e f g h i j"]) {
            for (let cursor = 0; cursor <= text.length; cursor++) {
                const { lines } = layoutComposer({ text, cursor }, 10, 10, true);
                for (const line of lines) expect(plain([line])[0]!.length).toBeLessThanOrEqual(10);
            }
        }
    });

    it("moves Up and Down over wrapped rows, keeping the column, then into the history", () => {
        const sent = type(["earlier\r"]).state;
        // Rows at 20 columns: "alpha beta gamma ", "delta epsilon zeta ", "eta"
        const typed = type(["alpha beta gamma delta epsilon zeta eta"], sent).state;
        const rows = visualRows(typed.editor.text, 20);
        expect(rows.map((r) => r.map((c) => (c.end ? "" : c.text)).join(""))).toEqual([
            "alpha beta gamma ",
            "delta epsilon zeta ",
            "eta",
        ]);
        // The cursor is at column 3 of the last row.
        const up = type([UP], typed).state;
        expect(up.editor.text.slice(up.editor.cursor)).toBe("ta epsilon zeta eta");
        const top = type([UP], up).state;
        expect(top.editor.text.slice(top.editor.cursor)).toBe(
            "ha beta gamma delta epsilon zeta eta"
        );
        expect(top.historyIndex).toBeNull();
        expect(type([UP], top).state.editor.text).toBe("earlier");
        const down = type([DOWN, DOWN], top).state;
        expect(down.editor.cursor).toBe(down.editor.text.length);
        expect(down.historyIndex).toBeNull();
    });
});

describe("paste chips", () => {
    const pasted = Array.from({ length: 15 }, (_, i) => `log line ${i}`).join("\n");

    it("shows a large paste as one chip and sends (and keeps) its whole text", () => {
        const { state } = type(["see ", PASTE_START, pasted, PASTE_END, " please"]);
        const chips = chipLabels(state.editor.text, state.pastes);
        const { lines } = layoutComposer(state.editor, 60, 5, true, undefined, chips);
        expect(plain(lines).join("\n")).toContain("see [Pasted 15 lines] please");
        expect(plain(lines).join("\n")).not.toContain("log line");
        const { effects, state: after } = type(["\r"], state);
        expect(effects).toEqual([
            { type: "submit", text: `see ${pasted} please`, attachments: [] },
        ]);
        expect(after.history.at(-1)).toBe(`see ${pasted} please`);
    });

    it("keeps a small paste as text, chips a long single line, and an unbracketed large paste", () => {
        expect(type([PASTE_START, "two\nlines", PASTE_END]).state.editor.text).toBe("two\nlines");
        const line = "x".repeat(2500);
        const long = type([PASTE_START, line, PASTE_END]).state;
        expect([...chipLabels(long.editor.text, long.pastes).values()]).toEqual([
            "[Pasted 2,500 characters]",
        ]);
        const raw = type([pasted]).state;
        expect([...raw.editor.text]).toHaveLength(1);
    });

    it("treats the chip as one character: Backspace removes it whole, Ctrl+O opens it", () => {
        const { state } = type(["a", PASTE_START, pasted, PASTE_END]);
        expect(type(["\x7f"], state).state.editor.text).toBe("a");
        const opened = expandChips(type(["b"], state).state);
        expect(opened?.editor.text).toBe(`a${pasted}b`);
        expect(opened?.editor.cursor).toBe(`a${pasted}b`.length);
        expect(expandChips(type(["plain"]).state)).toBeNull();
        // Undo closes it again.
        const closed = type([UNDO], opened!).state;
        expect(chipLabels(closed.editor.text, closed.pastes).size).toBe(1);
    });

    it("keeps chips through Ctrl+C and Up", () => {
        const { state } = type([PASTE_START, pasted, PASTE_END]);
        const cleared = clearComposer(state)!;
        expect(cleared.editor.text).toBe("");
        const back = type([UP], cleared).state;
        expect(type(["\r"], back).effects).toEqual([
            { type: "submit", text: pasted, attachments: [] },
        ]);
    });
});

describe("composer undo", () => {
    it("undoes a word at a time and redoes with Ctrl+Y", () => {
        const typed = type(keys("hello big world")).state;
        const once = type([CTRL_Z], typed).state;
        expect(once.editor.text).toBe("hello big ");
        const twice = type([UNDO], once).state;
        expect(twice.editor.text).toBe("hello ");
        expect(type([CTRL_Y, CTRL_Y], twice).state.editor.text).toBe("hello big world");
        // Ctrl+Shift+Z where the terminal reports it (kitty keyboard protocol).
        expect(type(["\x1b[122;6u"], twice).state.editor.text).toBe("hello big ");
    });

    it("undoes a paste in one step and a run of Backspaces in one step", () => {
        const pasted = type(["ab ", PASTE_START, "one two three", PASTE_END]).state;
        expect(type([UNDO], pasted).state.editor.text).toBe("ab ");
        const deleted = type(["\x7f", "\x7f", "\x7f", "\x7f"], pasted).state;
        expect(deleted.editor.text).toBe("ab one two t");
        expect(type([UNDO], deleted).state.editor.text).toBe("ab one two three");
    });

    it("starts a new step after the cursor moved, and a new edit drops the redo", () => {
        const typed = type(keys("abc"), undefined).state;
        const moved = type(["\x1b[D", "X"], typed).state;
        expect(moved.editor.text).toBe("abXc");
        expect(type([UNDO], moved).state.editor.text).toBe("abc");
        const undone = type([UNDO, UNDO], moved).state;
        expect(undone.editor.text).toBe("");
        const fresh = type(["z"], undone).state;
        expect(type([CTRL_Y], fresh).state.editor.text).toBe("z");
        // Nothing to undo: the key does nothing.
        expect(type([UNDO], createComposerState()).state.editor.text).toBe("");
    });
});
