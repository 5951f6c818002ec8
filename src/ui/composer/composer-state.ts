/**
 * What the composer does with each key: editing, prompt history, bracketed
 * paste, @ file suggestions, submit and mode switching. Pure, so it can be
 * tested without a terminal; the component only holds the state and draws it.
 */
import type { KeyEvent } from "../input/keys";
import {
    type EditorState,
    EMPTY_EDITOR,
    backspace,
    completeMention,
    cursorPosition,
    deleteForward,
    deleteToLineEnd,
    deleteToLineStart,
    deleteWordBack,
    editorOf,
    insertText,
    mentionAtCursor,
    moveLeft,
    moveLineEnd,
    moveLineStart,
    moveRight,
    moveVertical,
    moveWordLeft,
    moveWordRight,
} from "./editor";
import {
    type SlashSource,
    type SuggestionItem,
    applyCompletion,
    slashCompletion,
} from "./slash-complete";

export interface Suggestions {
    /** `file`: an @ mention; the others complete a slash command or its argument. */
    kind: "file" | "command" | "model" | "mode";
    /** Where the "@" (or the completed token) starts. */
    start: number;
    /** Where the completed token ends (slash completions). */
    end: number;
    query: string;
    /** Matches, best first; null while the file index is being built. */
    items: SuggestionItem[] | null;
    selected: number;
}

export interface ComposerState {
    editor: EditorState;
    /** Sent prompts, oldest first. */
    history: string[];
    /** Position while browsing history (index into `history`), else null. */
    historyIndex: number | null;
    /** What was typed before browsing history began. */
    draft: EditorState | null;
    /** Files attached with @ (repo-relative). */
    attachments: string[];
    /** Inside a bracketed paste: text collects here until it ends. */
    paste: string | null;
    suggestions: Suggestions | null;
    /** The "@" position whose suggestions were dismissed (Esc, Space). */
    dismissed: number | null;
}

export type ComposerEffect =
    { type: "submit"; text: string; attachments: string[] } | { type: "toggle-mode" };

export interface ComposerResult {
    state: ComposerState;
    effect?: ComposerEffect;
    /** False when the composer did not use the key (the App may). */
    handled: boolean;
}

/** Looks up file suggestions; null while the index is not ready. */
export type SuggestFiles = (query: string) => string[] | null;

export const MAX_HISTORY = 100;

export function createComposerState(history: string[] = []): ComposerState {
    return {
        editor: EMPTY_EDITOR,
        history,
        historyIndex: null,
        draft: null,
        attachments: [],
        paste: null,
        suggestions: null,
        dismissed: null,
    };
}

const fileItem = (path: string): SuggestionItem => ({
    value: path,
    label: path.slice(path.lastIndexOf("/") + 1),
    hint: path,
});

/** Recomputes the suggestions (@ files, slash commands) after the text or cursor moved. */
export function refreshSuggestions(
    state: ComposerState,
    suggest: SuggestFiles,
    slash?: SlashSource
): ComposerState {
    const mention = mentionAtCursor(state.editor);
    let found: Omit<Suggestions, "selected"> | null = null;
    if (mention) {
        const paths = mention.start === state.dismissed ? null : suggest(mention.query);
        found = {
            kind: "file",
            start: mention.start,
            end: state.editor.cursor,
            query: mention.query,
            items: paths ? paths.map(fileItem) : null,
        };
    } else if (slash) {
        found = slashCompletion(state.editor, slash);
    }
    if (!found) {
        if (!state.suggestions && state.dismissed === null) return state;
        return { ...state, suggestions: null, dismissed: null };
    }
    if (found.start === state.dismissed) {
        return state.suggestions ? { ...state, suggestions: null } : state;
    }
    const previous = state.suggestions;
    const items = found.items;
    const selected =
        previous && previous.start === found.start && previous.kind === found.kind && items
            ? Math.min(previous.selected, Math.max(0, items.length - 1))
            : 0;
    return { ...state, dismissed: null, suggestions: { ...found, selected } };
}

function edit(state: ComposerState, editor: EditorState): ComposerState {
    return { ...state, editor, historyIndex: null, draft: null };
}

function historyStep(state: ComposerState, direction: -1 | 1): ComposerState | null {
    const { history } = state;
    if (history.length === 0) return null;
    if (direction === -1) {
        const index = state.historyIndex === null ? history.length - 1 : state.historyIndex - 1;
        if (index < 0) return state;
        return {
            ...state,
            draft: state.draft ?? state.editor,
            historyIndex: index,
            editor: editorOf(history[index] ?? ""),
        };
    }
    if (state.historyIndex === null) return null;
    const index = state.historyIndex + 1;
    if (index >= history.length) {
        return {
            ...state,
            historyIndex: null,
            draft: null,
            editor: state.draft ?? EMPTY_EDITOR,
        };
    }
    return { ...state, historyIndex: index, editor: editorOf(history[index] ?? "") };
}

function submit(state: ComposerState): ComposerResult {
    const text = state.editor.text;
    if (text.trim() === "") return { state, handled: true };
    // Attachments whose mention was deleted are dropped.
    const attachments = state.attachments.filter((path) => text.includes(`@${path}`));
    const last = state.history.at(-1);
    const history = last === text ? state.history : [...state.history, text].slice(-MAX_HISTORY);
    return {
        state: { ...createComposerState(history) },
        effect: { type: "submit", text, attachments },
        handled: true,
    };
}

function acceptSuggestion(state: ComposerState, suggestions: Suggestions): ComposerState {
    const item = suggestions.items?.[suggestions.selected];
    if (!item) return { ...state, suggestions: null, dismissed: suggestions.start };
    if (suggestions.kind !== "file") {
        const editor = applyCompletion(
            state.editor,
            suggestions.start,
            suggestions.end,
            item.value
        );
        return { ...edit(state, editor), suggestions: null };
    }
    const path = item.value;
    const editor = completeMention(state.editor, suggestions.start, path);
    const attachments = state.attachments.includes(path)
        ? state.attachments
        : [...state.attachments, path];
    return { ...edit(state, editor), attachments, suggestions: null };
}

/** Keys while the suggestion list is open; null when the key is not one of them. */
function suggestionKey(state: ComposerState, event: KeyEvent): ComposerState | null {
    const suggestions = state.suggestions;
    if (!suggestions || event.type !== "key") return null;
    const count = suggestions.items?.length ?? 0;
    switch (event.name) {
        case "up":
        case "down": {
            if (count === 0) return state;
            const step = event.name === "up" ? -1 : 1;
            const selected = (suggestions.selected + step + count) % count;
            return { ...state, suggestions: { ...suggestions, selected } };
        }
        case "tab":
        case "return":
            return acceptSuggestion(state, suggestions);
        case "escape":
            return { ...state, suggestions: null, dismissed: suggestions.start };
        default:
            return null;
    }
}

/** A key that changed the text: the edit is applied (suggestions refreshed). */
function edited(state: ComposerState, editor: EditorState): ComposerResult {
    return { state: edit(state, editor), handled: true };
}

/** A key that only moved the cursor. */
function moved(state: ComposerState, editor: EditorState): ComposerResult {
    return { state: { ...state, editor }, handled: true };
}

function editingKey(
    state: ComposerState,
    event: Extract<KeyEvent, { type: "key" }>
): ComposerResult {
    const e = state.editor;
    const done = (editor: EditorState): ComposerResult => edited(state, editor);
    const move = (editor: EditorState): ComposerResult => moved(state, editor);
    switch (event.name) {
        case "return":
            return submit(state);
        case "newline":
            return done(insertText(e, "\n"));
        case "backspace":
            return done(event.meta || event.ctrl ? deleteWordBack(e) : backspace(e));
        case "delete":
            return done(deleteForward(e));
        case "left":
            return move(event.meta || event.ctrl ? moveWordLeft(e) : moveLeft(e));
        case "right":
            return move(event.meta || event.ctrl ? moveWordRight(e) : moveRight(e));
        case "home":
            return move(moveLineStart(e));
        case "end":
            return move(moveLineEnd(e));
        case "up": {
            const { line } = cursorPosition(e);
            if (line === 0) {
                const stepped = historyStep(state, -1);
                if (stepped) return { state: stepped, handled: true };
            }
            return move(moveVertical(e, -1));
        }
        case "down": {
            const { line, lines } = cursorPosition(e);
            if (line === lines - 1) {
                const stepped = historyStep(state, 1);
                if (stepped) return { state: stepped, handled: true };
            }
            return move(moveVertical(e, 1));
        }
        case "tab":
        case "backtab":
            return { state, effect: { type: "toggle-mode" }, handled: true };
        case "escape":
            return { state, handled: true };
        default:
            return { state, handled: false };
    }
}

function chordKey(
    state: ComposerState,
    event: Extract<KeyEvent, { type: "chord" }>
): ComposerResult {
    const e = state.editor;
    const done = (editor: EditorState): ComposerResult => edited(state, editor);
    const move = (editor: EditorState): ComposerResult => moved(state, editor);
    if (event.ctrl) {
        switch (event.letter) {
            case "a":
                return move(moveLineStart(e));
            case "e":
                return move(moveLineEnd(e));
            case "b":
                return move(moveLeft(e));
            case "f":
                return move(moveRight(e));
            case "u":
                return done(deleteToLineStart(e));
            case "k":
                return done(deleteToLineEnd(e));
            case "w":
                return done(deleteWordBack(e));
            case "d":
                return done(deleteForward(e));
            default:
                return { state, handled: false };
        }
    }
    if (event.meta && event.letter === "d") return done(deleteWordBack(e));
    return { state, handled: false };
}

/**
 * Applies one key event. `suggest` looks files up for @ mentions, `slash`
 * gives the commands and models slash autocomplete offers.
 */
export function composerKey(
    state: ComposerState,
    event: KeyEvent,
    suggest: SuggestFiles,
    slash?: SlashSource
): ComposerResult {
    // Bracketed paste: everything up to the end marker is text, Enter included.
    if (event.type === "paste-start") return { state: { ...state, paste: "" }, handled: true };
    if (state.paste !== null) {
        if (event.type === "paste-end") {
            const editor = insertText(state.editor, state.paste);
            const next = { ...edit(state, editor), paste: null };
            return { state: refreshSuggestions(next, suggest, slash), handled: true };
        }
        let piece = "";
        if (event.type === "text") piece = event.text;
        else if (event.type === "key" && (event.name === "return" || event.name === "newline"))
            piece = "\n";
        else if (event.type === "key" && event.name === "tab") piece = "\t";
        return { state: { ...state, paste: state.paste + piece }, handled: true };
    }
    if (event.type === "paste-end") return { state, handled: true };

    const picked = suggestionKey(state, event);
    if (picked) return { state: refreshSuggestions(picked, suggest, slash), handled: true };

    let result: ComposerResult;
    switch (event.type) {
        case "text": {
            let next = state;
            // Space after "@query" leaves the @ as literal text.
            if (state.suggestions && event.text.startsWith(" "))
                next = { ...state, suggestions: null, dismissed: state.suggestions.start };
            result = { state: edit(next, insertText(next.editor, event.text)), handled: true };
            break;
        }
        case "key":
            result = editingKey(state, event);
            break;
        case "chord":
            result = chordKey(state, event);
            break;
        default:
            return { state, handled: false };
    }
    if (result.effect?.type === "submit") return result;
    return { ...result, state: refreshSuggestions(result.state, suggest, slash) };
}
