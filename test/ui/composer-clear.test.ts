import { describe, expect, it } from "vitest";
import {
    type ComposerState,
    clearComposer,
    composerKey,
    composerWantsEscape,
    createComposerState,
    withTakenBack,
} from "../../src/ui/composer/composer-state";
import { parseInput } from "../../src/ui/input/keys";

const none = () => [];

function type(inputs: string[], from: ComposerState): ComposerState {
    let state = from;
    for (const input of inputs)
        for (const event of parseInput(input)) state = composerKey(state, event, none).state;
    return state;
}

describe("Ctrl+C in the composer", () => {
    it("clears the text, and Up in the empty composer brings it back before older prompts", () => {
        const typed = type(["half a thought"], createComposerState(["older prompt"]));
        const cleared = clearComposer(typed);
        expect(cleared?.editor.text).toBe("");
        const up = type(["\x1b[A"], cleared!);
        expect(up.editor.text).toBe("half a thought");
        // Up again (from the first line) goes on to the history.
        expect(type(["\x1b[A"], { ...up, editor: { ...up.editor, cursor: 0 } }).editor.text).toBe(
            "older prompt"
        );
    });

    it("keeps each cleared draft in the history, so an earlier one is not lost to a later clear", () => {
        let state = type(["first draft"], createComposerState(["sent before"]));
        state = clearComposer(state)!;
        state = type(["second draft"], state);
        state = clearComposer(state)!;
        expect(state.history).toEqual(["sent before", "first draft", "second draft"]);
        // Up: the stash (the second draft), then the first, then what was sent, each once.
        const seen: string[] = [];
        for (let i = 0; i < 3; i++) {
            state = type(["\x1b[A"], { ...state, editor: { ...state.editor, cursor: 0 } });
            seen.push(state.editor.text);
        }
        expect(seen).toEqual(["second draft", "first draft", "sent before"]);
    });

    it("has nothing to clear in an empty composer (the App exits or cancels instead)", () => {
        expect(clearComposer(createComposerState())).toBeNull();
    });

    it("ends a history search, keeping the text it started from", () => {
        const searching = type(["my draft", "\x12", "old"], createComposerState(["old one"]));
        expect(searching.search).not.toBeNull();
        const cleared = clearComposer(searching)!;
        expect(cleared.search).toBeNull();
        expect(type(["\x1b[A"], cleared).editor.text).toBe("my draft");
    });
});

describe("queued text taken back", () => {
    it("goes before what the composer holds, attachments kept", () => {
        const typed = type(["and more"], createComposerState());
        const back = withTakenBack(typed, "queued @a.ts", ["a.ts"]);
        expect(back.editor.text).toBe("queued @a.ts\nand more");
        expect(back.editor.cursor).toBe(back.editor.text.length);
        expect(back.attachments).toEqual(["a.ts"]);
    });
});

describe("Esc while busy", () => {
    it("belongs to the composer only while it has something to close", () => {
        expect(composerWantsEscape(createComposerState())).toBe(false);
        const searching = type(["\x12"], createComposerState(["x"]));
        expect(composerWantsEscape(searching)).toBe(true);
    });
});
