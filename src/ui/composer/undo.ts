/**
 * Undo and redo for the composer, in steps a user expects: a word typed is
 * one step (with the space after it), a run of Backspaces is one, a paste
 * is one, and any other edit (a newline, Ctrl+W, a completion) is its own.
 */
import type { EditorState } from "./editor";
import type { Pastes } from "./paste-chips";

/** What an undo step puts back. */
export interface Snapshot {
    editor: EditorState;
    pastes: Pastes;
    attachments: string[];
}

export type EditKind = "type" | "delete" | "paste" | "edit";

export interface UndoHistory {
    past: readonly Snapshot[];
    future: readonly Snapshot[];
    /** The last edit, to tell whether the next one continues its step. */
    last: { kind: EditKind; cursor: number } | null;
}

export const EMPTY_UNDO: UndoHistory = { past: [], future: [], last: null };

/** Steps kept; the oldest go first. */
export const MAX_UNDO_STEPS = 200;

const isWordChar = (ch: string | undefined): boolean =>
    ch !== undefined && /[\p{L}\p{N}_]/u.test(ch);

/** Typing a word character right after a non-word one starts a new word. */
function startsWord(before: EditorState, after: EditorState): boolean {
    const typed = after.text.slice(before.cursor, after.cursor);
    return isWordChar([...typed][0]) && !isWordChar(before.text[before.cursor - 1]);
}

/** Records the edit from `before` to `after` (the text changed). */
export function recordEdit(
    undo: UndoHistory,
    before: Snapshot,
    after: EditorState,
    kind: EditKind
): UndoHistory {
    const last = undo.last;
    const continues =
        last !== null &&
        last.kind === kind &&
        (kind === "type" || kind === "delete") &&
        last.cursor === before.editor.cursor &&
        !(kind === "type" && startsWord(before.editor, after));
    const past = continues ? undo.past : [...undo.past, before].slice(-MAX_UNDO_STEPS);
    return { past, future: [], last: { kind, cursor: after.cursor } };
}

/** Steps back: the snapshot to restore and the history after it, or null with nothing to undo. */
export function undoStep(
    undo: UndoHistory,
    current: Snapshot
): { snapshot: Snapshot; undo: UndoHistory } | null {
    const snapshot = undo.past.at(-1);
    if (!snapshot) return null;
    return {
        snapshot,
        undo: { past: undo.past.slice(0, -1), future: [...undo.future, current], last: null },
    };
}

export function redoStep(
    undo: UndoHistory,
    current: Snapshot
): { snapshot: Snapshot; undo: UndoHistory } | null {
    const snapshot = undo.future.at(-1);
    if (!snapshot) return null;
    return {
        snapshot,
        undo: { past: [...undo.past, current], future: undo.future.slice(0, -1), last: null },
    };
}
