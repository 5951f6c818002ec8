/**
 * Where vim mode meets the composer's keys: Esc in insert mode goes to
 * normal mode (unless it closes suggestions), characters in normal mode are
 * commands, and everything else (Enter, arrows, Ctrl keys, insert-mode
 * typing) is the composer's as always.
 */
import type { KeyEvent } from "../input/keys";
import { type ComposerState, composerWantsEscape } from "./composer-state";
import { withVimEdit } from "./draft-edits";
import { type VimState, toNormal, vimTyped } from "./vim";

export interface VimKeyResult {
    state: ComposerState;
    vim: VimState;
    /** What is left for the composer's own handling; null when vim took the key. */
    pass: KeyEvent | null;
}

/** `undo` is the composer's Ctrl+Z (u in normal mode). */
export function vimKey(
    state: ComposerState,
    vim: VimState,
    event: KeyEvent,
    undo: (state: ComposerState) => ComposerState
): VimKeyResult {
    if (state.search !== null || state.paste !== null || event.type === "paste-start") {
        return { state, vim, pass: event };
    }
    if (event.type === "key" && event.name === "escape") {
        if (vim.mode === "normal" || composerWantsEscape(state)) {
            return { state, vim: { ...vim, pending: "" }, pass: event };
        }
        const normal = toNormal(vim, state.editor);
        return { state: { ...state, editor: normal.editor }, vim: normal.vim, pass: null };
    }
    if (vim.mode === "insert" || event.type !== "text") return { state, vim, pass: event };
    const step = vimTyped(vim, state.editor, event.text);
    let next = state;
    for (let n = 0; n < step.undo; n++) next = undo(next);
    if (step.changed) next = withVimEdit(next, step.editor);
    else if (step.undo === 0) next = { ...next, editor: step.editor, escArmed: false };
    const pass: KeyEvent | null = step.rest === "" ? null : { type: "text", text: step.rest };
    return { state: next, vim: step.vim, pass };
}
