import { describe, expect, it } from "vitest";
import {
    type ComposerResult,
    type ComposerState,
    composerKey,
    createComposerState,
    withDraft,
} from "../../src/ui/composer/composer-state";
import { cursorPosition } from "../../src/ui/composer/editor";
import { type KeyEvent, parseInput } from "../../src/ui/input/keys";

const FILES = ["src/retry.ts", "src/ui/app.tsx", "README.md"];
const suggest = (q: string) => FILES.filter((f) => f.toLowerCase().includes(q.toLowerCase()));

/** Feeds raw terminal input; returns the final state and every effect. */
function type(inputs: string[], from = createComposerState()) {
    let state: ComposerState = from;
    const effects: NonNullable<ComposerResult["effect"]>[] = [];
    for (const input of inputs) {
        for (const event of parseInput(input) as KeyEvent[]) {
            const result = composerKey(state, event, suggest);
            state = result.state;
            if (result.effect) effects.push(result.effect);
        }
    }
    return { state, effects };
}

describe("composer keys", () => {
    it("submits on Enter and inserts newlines with Ctrl+J / Shift+Enter", () => {
        const { state, effects } = type(["hello", "\n", "world", "\x1b[13;2u", "!", "\r"]);
        expect(effects).toEqual([{ type: "submit", text: "hello\nworld\n!", attachments: [] }]);
        expect(state.editor.text).toBe("");
        expect(state.history).toEqual(["hello\nworld\n!"]);
    });

    it("does not submit empty text", () => {
        expect(type(["   ", "\r"]).effects).toEqual([]);
    });

    it("edits: backspace, cursor moves, word delete, kill line", () => {
        expect(type(["abc", "\x7f", "\x1b[D", "X"]).state.editor.text).toBe("aXb");
        expect(type(["one two", "\x17"]).state.editor.text).toBe("one ");
        expect(type(["one two", "\x01", "\x0b"]).state.editor.text).toBe("");
        const moved = type(["ab", "\n", "cd", "\x1b[A"]).state.editor;
        expect(cursorPosition(moved)).toMatchObject({ line: 0, column: 2 });
    });

    it("walks prompt history with Up/Down from the first/last line, keeping the draft", () => {
        const sent = type(["first", "\r", "second", "\r"]).state;
        const up = type(["dra", "\x1b[A"], sent).state;
        expect(up.editor.text).toBe("second");
        const up2 = type(["\x1b[A"], up).state;
        expect(up2.editor.text).toBe("first");
        const down = type(["\x1b[B", "\x1b[B"], up2).state;
        expect(down.editor.text).toBe("dra");
    });

    it("inserts a bracketed paste as text, Enter included", () => {
        const { state, effects } = type(["\x1b[200~", "line 1\rline 2", "\r", "\x1b[201~"]);
        expect(effects).toEqual([]);
        expect(state.editor.text).toBe("line 1\nline 2\n");
    });

    it("cycles the mode with Tab when no suggestions are open", () => {
        expect(type(["\t"]).effects).toEqual([{ type: "toggle-mode" }]);
    });

    it("suggests files after @ and attaches with Tab or Enter", () => {
        const open = type(["explain @ret"]).state;
        expect(open.suggestions).toMatchObject({
            kind: "file",
            query: "ret",
            items: [{ value: "src/retry.ts", label: "retry.ts" }],
        });
        const attached = type(["\t"], open).state;
        expect(attached.editor.text).toBe("explain @src/retry.ts ");
        expect(attached.attachments).toEqual(["src/retry.ts"]);
        expect(attached.suggestions).toBeNull();
        const { effects } = type(["please", "\r"], attached);
        expect(effects).toEqual([
            { type: "submit", text: "explain @src/retry.ts please", attachments: ["src/retry.ts"] },
        ]);
    });

    it("navigates suggestions with Up/Down and accepts with Enter", () => {
        const { state } = type(["@src", "\x1b[B", "\r"]);
        expect(state.editor.text).toBe("@src/ui/app.tsx ");
    });

    it("treats @ as literal after Esc or Space", () => {
        const esc = type(["mail me@", "\x1b"]).state;
        expect(esc.suggestions).toBeNull();
        const { effects } = type(["\r"], esc);
        expect(effects).toEqual([{ type: "submit", text: "mail me@", attachments: [] }]);
        const space = type(["@ hi"]).state;
        expect(space.suggestions).toBeNull();
        expect(space.editor.text).toBe("@ hi");
    });

    it("drops attachments whose mention was deleted", () => {
        const attached = type(["@ret", "\t"]).state;
        const { effects } = type(["\x15", "no file", "\r"], attached);
        expect(effects).toEqual([{ type: "submit", text: "no file", attachments: [] }]);
    });
});

describe("Esc Esc in the empty composer", () => {
    it("asks to rewind on the second Esc in a row, and only then", () => {
        const once = type(["\x1b"]);
        expect(once.effects).toEqual([]);
        expect(once.state.escArmed).toBe(true);
        expect(type(["\x1b"], once.state).effects).toEqual([{ type: "rewind" }]);
        // A third Esc starts a new pair.
        expect(type(["\x1b", "\x1b", "\x1b"]).effects).toEqual([{ type: "rewind" }]);
    });

    it("starts over after any other key, and never fires with text in the composer", () => {
        expect(type(["\x1b", "\x1b[A", "\x1b"]).effects).toEqual([]);
        expect(type(["\x1b", "a", "\x7f", "\x1b"]).effects).toEqual([]);
        const typed = type(["draft", "\x1b", "\x1b"]);
        expect(typed.effects).toEqual([]);
        expect(typed.state.editor.text).toBe("draft");
    });

    it("lets Esc end a Ctrl+R search without counting it", () => {
        const { state, effects } = type(["older prompt", "\r", "\x12", "old", "\x1b", "\x1b"]);
        expect(effects).toEqual([{ type: "submit", text: "older prompt", attachments: [] }]);
        expect(state.search).toBeNull();
        expect(state.escArmed).toBe(true);
    });

    it("takes a rewound prompt back to edit, keeping the history", () => {
        const sent = type(["first", "\r", "half typed", "\x1b"]).state;
        const drafted = withDraft(sent, "fix the bug\r\nin app.ts");
        expect(drafted.editor).toEqual({ text: "fix the bug\nin app.ts", cursor: 21 });
        expect(drafted.history).toEqual(["first"]);
        const { effects } = type(["!", "\r"], drafted);
        expect(effects).toEqual([
            { type: "submit", text: "fix the bug\nin app.ts!", attachments: [] },
        ]);
    });
});
