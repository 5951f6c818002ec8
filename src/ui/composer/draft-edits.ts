/**
 * Changes made to the draft from outside the keyboard: the text the user's
 * editor saved (Ctrl+G) and an image read from the clipboard (Ctrl+V).
 * Each is one undo step.
 */
import type { KeyEvent } from "../input/keys";
import { type ComposerState, composerKey } from "./composer-state";
import { type EditorState, editorOf } from "./editor";
import { expandPastes, NO_PASTES } from "./paste-chips";
import { recordEdit } from "./undo";

/** The draft as the editor gets it: paste chips written out as the text they stand for. */
export const draftText = (state: ComposerState): string =>
    expandPastes(state.editor.text, state.pastes);

/**
 * The editor's text as the draft, the cursor at its end. Attachments stay:
 * those whose `@path` the text still holds are sent with it.
 */
export function withEditedDraft(state: ComposerState, text: string): ComposerState {
    const editor = editorOf(text.replace(/\r\n?/g, "\n"));
    const before = { editor: state.editor, pastes: state.pastes, attachments: state.attachments };
    return {
        ...state,
        editor,
        pastes: NO_PASTES,
        undo: recordEdit(state.undo, before, editor, "edit"),
        historyIndex: null,
        draft: null,
        search: null,
        suggestions: null,
        escArmed: false,
    };
}

/**
 * An image file attached at the cursor as `@path`, as a pasted image path
 * is: the same bracketed paste goes through the composer.
 */
export function withAttachedImage(state: ComposerState, path: string): ComposerState {
    const quoted = /\s/.test(path) ? `'${path}'` : path;
    const events: KeyEvent[] = [
        { type: "paste-start" },
        { type: "text", text: quoted },
        { type: "paste-end" },
    ];
    return events.reduce((s, event) => composerKey(s, event, () => []).state, state);
}

/** A vim command's edit (x, dd, cw, p…): one undo step; paste chips stay chips. */
export function withVimEdit(state: ComposerState, editor: EditorState): ComposerState {
    const before = { editor: state.editor, pastes: state.pastes, attachments: state.attachments };
    return {
        ...state,
        editor,
        undo: recordEdit(state.undo, before, editor, "edit"),
        historyIndex: null,
        draft: null,
        suggestions: null,
        escArmed: false,
    };
}
