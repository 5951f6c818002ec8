import { describe, expect, it } from "vitest";
import {
    type ComposerResult,
    type ComposerState,
    composerKey,
    createComposerState,
} from "../../src/ui/composer/composer-state";
import { type SlashSource, slashCompletion } from "../../src/ui/composer/slash-complete";
import { editorOf } from "../../src/ui/composer/editor";
import { type KeyEvent, parseInput } from "../../src/ui/input/keys";

const slash: SlashSource = {
    commands: () => [
        { name: "help", description: "List the commands" },
        { name: "mode", description: "Set the mode" },
        { name: "model", description: "Switch model" },
        { name: "new", description: "Start a new conversation" },
        { name: "review", description: "Review code (project command)" },
    ],
    models: () => [
        { alias: "sonnet-4", display: "Claude Sonnet 4" },
        { alias: "haiku-4-5", display: "Claude Haiku 4.5" },
        { alias: "haiku-4-5-thinking", display: "Claude Haiku 4.5 (thinking)" },
        { alias: "gpt-5.1", display: "GPT-5.1" },
    ],
};
const noFiles = () => [];

function type(inputs: string[], from = createComposerState()) {
    let state: ComposerState = from;
    const effects: NonNullable<ComposerResult["effect"]>[] = [];
    for (const input of inputs) {
        for (const event of parseInput(input) as KeyEvent[]) {
            const result = composerKey(state, event, noFiles, slash);
            state = result.state;
            if (result.effect) effects.push(result.effect);
        }
    }
    return { state, effects };
}

const labels = (state: ComposerState) => state.suggestions?.items?.map((i) => i.label);

describe("slash command autocomplete", () => {
    it("suggests registered commands for a / token at the cursor, prefix matches first", () => {
        const c = slashCompletion(editorOf("/mo"), slash);
        expect(c?.kind).toBe("command");
        expect(c?.items.map((i) => [i.label, i.hint])).toEqual([
            ["/mode", "Set the mode"],
            ["/model", "Switch model"],
        ]);
        expect(slashCompletion(editorOf("/"), slash)?.items).toHaveLength(5);
        expect(slashCompletion(editorOf("fix it /re"), slash)?.items[0]?.value).toBe("/review");
    });

    it("suggests nothing for paths, complete names or unknown commands", () => {
        expect(slashCompletion(editorOf("/usr/bin"), slash)).toBeNull();
        expect(slashCompletion(editorOf("src/app.ts"), slash)).toBeNull();
        expect(slashCompletion(editorOf("/help"), slash)).toBeNull();
        expect(slashCompletion(editorOf("/zzz"), slash)).toBeNull();
        expect(slashCompletion(editorOf("hello"), slash)).toBeNull();
    });

    it("suggests model aliases with display names after /model", () => {
        const all = slashCompletion(editorOf("/model "), slash);
        expect(all?.kind).toBe("model");
        expect(all?.items).toHaveLength(4);
        const haiku = slashCompletion(editorOf("/model hai"), slash);
        expect(haiku?.items.map((i) => [i.label, i.hint])).toEqual([
            ["haiku-4-5", "Claude Haiku 4.5"],
            ["haiku-4-5-thinking", "Claude Haiku 4.5 (thinking)"],
        ]);
        // The display name matches too.
        expect(slashCompletion(editorOf("/model GPT"), slash)?.items[0]?.value).toBe("gpt-5.1");
        expect(slashCompletion(editorOf("/model haiku-4-5"), slash)).toBeNull();
        // Prefix matches first, then matches inside.
        expect(slashCompletion(editorOf("/mode a"), slash)?.items.map((i) => i.value)).toEqual([
            "ask",
            "agent",
            "accept-edits",
            "plan",
        ]);
    });

    it("Up/Down choose, Tab inserts, and the argument list follows", () => {
        const open = type(["/mo"]).state;
        expect(labels(open)).toEqual(["/mode", "/model"]);
        const down = type(["\x1b[B"], open).state;
        expect(down.suggestions?.selected).toBe(1);
        const inserted = type(["\t"], down).state;
        expect(inserted.editor.text).toBe("/model ");
        expect(inserted.suggestions?.kind).toBe("model");
        const model = type(["hai", "\t"], inserted);
        expect(model.state.editor.text).toBe("/model haiku-4-5 ");
        expect(model.state.suggestions).toBeNull();
        expect(model.effects).toEqual([]);
    });

    it("Enter inserts while the list is open, then sends", () => {
        const { state, effects } = type(["/hel", "\r"]);
        expect(state.editor.text).toBe("/help ");
        expect(effects).toEqual([]);
        expect(type(["\r"], state).effects).toEqual([
            { type: "submit", text: "/help ", attachments: [] },
        ]);
        // A complete name has no list: Enter sends at once.
        expect(type(["/new", "\r"]).effects).toEqual([
            { type: "submit", text: "/new", attachments: [] },
        ]);
    });

    it("Esc closes the list; Tab then cycles the mode", () => {
        const open = type(["/mo"]).state;
        const closed = type(["\x1b"], open).state;
        expect(closed.suggestions).toBeNull();
        expect(closed.editor.text).toBe("/mo");
        expect(type(["\t"], closed).effects).toEqual([{ type: "toggle-mode" }]);
        expect(type(["\t"]).effects).toEqual([{ type: "toggle-mode" }]);
        // Typing on reopens nothing at the same token…
        expect(type(["d"], closed).state.suggestions).toBeNull();
        // …a new token does.
        expect(labels(type([" /n"], closed).state)).toEqual(["/new"]);
    });
});
