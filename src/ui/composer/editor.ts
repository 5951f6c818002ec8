/**
 * The composer's text buffer: multiline text and a cursor (an index into the
 * text), with the usual editing moves. Pure; the component holds the state.
 */

import { mentionAtEnd } from "../../project/mentions";

export interface EditorState {
    text: string;
    /** 0..text.length, always on a code-point boundary. */
    cursor: number;
}

export const EMPTY_EDITOR: EditorState = { text: "", cursor: 0 };

export function editorOf(text: string): EditorState {
    return { text, cursor: text.length };
}

export function insertText(state: EditorState, text: string): EditorState {
    const clean = text.replace(/\r\n?/g, "\n");
    return {
        text: state.text.slice(0, state.cursor) + clean + state.text.slice(state.cursor),
        cursor: state.cursor + clean.length,
    };
}

/** Length of the code point ending at `index` (1, or 2 for a surrogate pair). */
function prevLength(text: string, index: number): number {
    if (index <= 0) return 0;
    const low = text.charCodeAt(index - 1);
    if (index >= 2 && low >= 0xdc00 && low <= 0xdfff) {
        const high = text.charCodeAt(index - 2);
        if (high >= 0xd800 && high <= 0xdbff) return 2;
    }
    return 1;
}

function nextLength(text: string, index: number): number {
    if (index >= text.length) return 0;
    const cp = text.codePointAt(index) ?? 0;
    return cp > 0xffff ? 2 : 1;
}

export function backspace(state: EditorState): EditorState {
    const n = prevLength(state.text, state.cursor);
    if (n === 0) return state;
    return {
        text: state.text.slice(0, state.cursor - n) + state.text.slice(state.cursor),
        cursor: state.cursor - n,
    };
}

export function deleteForward(state: EditorState): EditorState {
    const n = nextLength(state.text, state.cursor);
    if (n === 0) return state;
    return {
        text: state.text.slice(0, state.cursor) + state.text.slice(state.cursor + n),
        cursor: state.cursor,
    };
}

export function moveLeft(state: EditorState): EditorState {
    return { ...state, cursor: state.cursor - prevLength(state.text, state.cursor) };
}

export function moveRight(state: EditorState): EditorState {
    return { ...state, cursor: state.cursor + nextLength(state.text, state.cursor) };
}

const lineStartOf = (text: string, cursor: number): number =>
    text.lastIndexOf("\n", cursor - 1) + 1;

function lineEndOf(text: string, cursor: number): number {
    const end = text.indexOf("\n", cursor);
    return end === -1 ? text.length : end;
}

export function moveLineStart(state: EditorState): EditorState {
    return { ...state, cursor: lineStartOf(state.text, state.cursor) };
}

export function moveLineEnd(state: EditorState): EditorState {
    return { ...state, cursor: lineEndOf(state.text, state.cursor) };
}

/** Where the cursor is: 0-based line and column (in UTF-16 units), and the line count. */
export function cursorPosition(state: EditorState): {
    line: number;
    column: number;
    lines: number;
} {
    const before = state.text.slice(0, state.cursor);
    const line = before.split("\n").length - 1;
    const column = state.cursor - lineStartOf(state.text, state.cursor);
    return { line, column, lines: state.text.split("\n").length };
}

/** Moves up (-1) or down (+1) a line, keeping the column where the line allows. */
export function moveVertical(state: EditorState, direction: -1 | 1): EditorState {
    const start = lineStartOf(state.text, state.cursor);
    const column = state.cursor - start;
    if (direction === -1) {
        if (start === 0) return state;
        const prevStart = lineStartOf(state.text, start - 1);
        const prevLength = start - 1 - prevStart;
        return { ...state, cursor: prevStart + Math.min(column, prevLength) };
    }
    const end = lineEndOf(state.text, state.cursor);
    if (end === state.text.length) return state;
    const nextStart = end + 1;
    const nextLength = lineEndOf(state.text, nextStart) - nextStart;
    return { ...state, cursor: nextStart + Math.min(column, nextLength) };
}

const isWordChar = (ch: string | undefined): boolean =>
    ch !== undefined && /[\p{L}\p{N}_]/u.test(ch);

export function moveWordLeft(state: EditorState): EditorState {
    let i = state.cursor;
    while (i > 0 && !isWordChar(state.text[i - 1])) i--;
    while (i > 0 && isWordChar(state.text[i - 1])) i--;
    return { ...state, cursor: i };
}

export function moveWordRight(state: EditorState): EditorState {
    let i = state.cursor;
    const n = state.text.length;
    while (i < n && !isWordChar(state.text[i])) i++;
    while (i < n && isWordChar(state.text[i])) i++;
    return { ...state, cursor: i };
}

/** Ctrl+W / Alt+Backspace: deletes the word before the cursor. */
export function deleteWordBack(state: EditorState): EditorState {
    const to = moveWordLeft(state).cursor;
    return { text: state.text.slice(0, to) + state.text.slice(state.cursor), cursor: to };
}

/** Ctrl+U: deletes from the start of the line to the cursor. */
export function deleteToLineStart(state: EditorState): EditorState {
    const start = lineStartOf(state.text, state.cursor);
    if (start === state.cursor && start > 0) return backspace(state);
    return { text: state.text.slice(0, start) + state.text.slice(state.cursor), cursor: start };
}

/** Ctrl+K: deletes from the cursor to the end of the line. */
export function deleteToLineEnd(state: EditorState): EditorState {
    const end = lineEndOf(state.text, state.cursor);
    if (end === state.cursor) return deleteForward(state);
    return {
        text: state.text.slice(0, state.cursor) + state.text.slice(end),
        cursor: state.cursor,
    };
}

/** The @-mention being typed at the cursor: where it starts and its query (without "@"). */
export function mentionAtCursor(state: EditorState): { start: number; query: string } | null {
    return mentionAtEnd(state.text.slice(0, state.cursor));
}

/** Replaces the mention at the cursor with "@path", adding a space only when none follows. */
export function completeMention(state: EditorState, start: number, path: string): EditorState {
    const after = state.text.slice(state.cursor);
    const space = after.startsWith(" ") || after.startsWith("\n") ? "" : " ";
    const inserted = `@${path}${space}`;
    return {
        text: state.text.slice(0, start) + inserted + after,
        cursor: start + inserted.length + (after.startsWith(" ") ? 1 : 0),
    };
}
