import { describe, expect, it } from "vitest";
import type { EditorState } from "../../src/ui/composer/editor";
import {
    type VimState,
    VIM_INSERT,
    toNormal,
    vimModeLabel,
    vimTyped,
} from "../../src/ui/composer/vim";

const NORMAL: VimState = { ...VIM_INSERT, mode: "normal" };

/** `text` with the cursor at "|" (removed). */
function at(marked: string): EditorState {
    const cursor = marked.indexOf("|");
    return { text: marked.replace("|", ""), cursor };
}
const marked = (e: EditorState): string => e.text.slice(0, e.cursor) + "|" + e.text.slice(e.cursor);

function run(start: string, keys: string, vim: VimState = NORMAL) {
    const step = vimTyped(vim, at(start), keys);
    return { ...step, shown: marked(step.editor) };
}

describe("vim motions", () => {
    it.each([
        ["h moves left, not past the line's start", "ab|c", "hhh", "|abc"],
        ["l stops on the last character", "|abc", "llll", "ab|c"],
        ["w to the next word's start", "|foo bar.baz qux", "w", "foo |bar.baz qux"],
        ["w stops at punctuation (a word of its own)", "foo |bar.baz", "w", "foo bar|.baz"],
        ["3w counts", "|a b c d e", "3w", "a b c |d e"],
        ["e to the word's end", "|foo bar", "e", "fo|o bar"],
        ["e from a word's end goes to the next one's", "fo|o bar", "e", "foo ba|r"],
        ["b to the word's start, then the previous", "foo ba|r", "bb", "|foo bar"],
        ["0 to the line's start", "x\n  ab|c", "0", "x\n|  abc"],
        ["^ to the first non-blank", "x\n  ab|c", "^", "x\n  |abc"],
        ["$ to the last character", "|abc\nd", "$", "ab|c\nd"],
        ["j and k keep the column", "a|bc\ndef", "j", "abc\nd|ef"],
        ["2k", "abc\ndef\ng|hi", "2k", "a|bc\ndef\nghi"],
        ["gg to the first line", "abc\nd|ef", "gg", "|abc\ndef"],
        ["G to the last line", "a|bc\ndef", "G", "abc\n|def"],
    ])("%s", (_name, start, keys, expected) => {
        const step = run(start, keys);
        expect(step.shown).toBe(expected);
        expect(step.changed).toBe(false);
        expect(step.vim.mode).toBe("normal");
    });
});

describe("vim edits", () => {
    it.each([
        ["x deletes under the cursor", "a|bc", "x", "a|c"],
        ["3x deletes three, within the line", "a|bcd\ne", "3x", "|a\ne"],
        ["dw deletes to the next word", "|foo bar", "dw", "|bar"],
        ["dw on the last word stops at the line's end", "a |foo\nb", "dw", "a| \nb"],
        ["d2w and 2dw delete two words", "|a b c", "d2w", "|c"],
        ["2dw", "|a b c", "2dw", "|c"],
        ["de deletes to the word's end", "|foo bar", "de", "| bar"],
        ["db deletes back to the word's start", "foo ba|r", "db", "foo |r"],
        ["D deletes to the line's end", "ab|cd\ne", "D", "a|b\ne"],
        ["dd deletes the line", "a\nb|b\nc", "dd", "a\n|c"],
        ["dd on the last line takes the break before it", "a\nb|b", "dd", "|a"],
        ["2dd deletes two lines", "|a\nb\nc", "2dd", "|c"],
        ["d$", "a|bc", "d$", "|a"],
        ["d0", "ab|c", "d0", "|c"],
    ])("%s", (_name, start, keys, expected) => {
        const step = run(start, keys);
        expect(step.shown).toBe(expected);
        expect(step.changed).toBe(true);
        expect(step.vim.mode).toBe("normal");
    });

    it.each([
        ["cw changes to the word's end", "|foo bar", "cw", "| bar"],
        ["cc empties the line and keeps it", "a\nb|b\nc", "cc", "a\n|\nc"],
        ["C changes to the line's end", "ab|cd", "C", "ab|"],
        ["i inserts before", "a|b", "i", "a|b"],
        ["a appends after", "a|b", "a", "ab|"],
        ["I at the first non-blank", "  a|b", "I", "  |ab"],
        ["A at the line's end", "a|b\nc", "A", "ab|\nc"],
        ["o opens a line below", "a|b\nc", "o", "ab\n|\nc"],
        ["O opens a line above", "a\nb|c", "O", "a\n|\nbc"],
    ])("%s, then insert mode", (_name, start, keys, expected) => {
        const step = run(start, keys);
        expect(step.shown).toBe(expected);
        expect(step.vim.mode).toBe("insert");
    });

    it("yy then p puts the line below, P above; dw then p puts the word after the cursor", () => {
        const yanked = run("|one\ntwo", "yy");
        expect(yanked.changed).toBe(false);
        expect(yanked.vim.register).toEqual({ text: "one", linewise: true });
        expect(marked(vimTyped(yanked.vim, at("|one\ntwo"), "p").editor)).toBe("one\n|one\ntwo");
        expect(marked(vimTyped(yanked.vim, at("one\nt|wo"), "P").editor)).toBe("one\n|one\ntwo");
        const cut = run("|foo bar", "dw");
        expect(cut.vim.register).toEqual({ text: "foo ", linewise: false });
        expect(marked(vimTyped(cut.vim, cut.editor, "p").editor)).toBe("bfoo| ar");
        expect(marked(vimTyped(cut.vim, at("|x"), "2P").editor)).toBe("foo foo| x");
    });

    it("u asks the composer to undo, once per count", () => {
        expect(run("ab|c", "u").undo).toBe(1);
        expect(run("ab|c", "3u").undo).toBe(3);
    });

    it("hands back what was typed after a key that entered insert mode", () => {
        const step = run("a|b", "ahello");
        expect(step.vim.mode).toBe("insert");
        expect(step.shown).toBe("ab|");
        expect(step.rest).toBe("hello");
    });

    it("keeps a command's first keys pending, shows them, and drops keys that make no command", () => {
        const pending = run("|abc", "2d");
        expect(pending.vim.pending).toBe("2d");
        expect(vimModeLabel(pending.vim)).toBe("-- NORMAL -- 2d");
        const dropped = run("|abc", "dzl");
        expect(dropped.vim.pending).toBe("");
        expect(dropped.shown).toBe("a|bc");
        expect(vimModeLabel(VIM_INSERT)).toBe("-- INSERT --");
    });
});

describe("Esc", () => {
    it("goes to normal mode with the cursor one left, never past the line's start", () => {
        expect(marked(toNormal(VIM_INSERT, at("abc|")).editor)).toBe("ab|c");
        expect(marked(toNormal(VIM_INSERT, at("a\n|b")).editor)).toBe("a\n|b");
        expect(toNormal(VIM_INSERT, at("a|")).vim.mode).toBe("normal");
    });
});
