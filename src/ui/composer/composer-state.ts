/**
 * What the composer does with each key: editing, prompt history (Up/Down and
 * Ctrl+R search), bracketed paste, @ file suggestions, submit, mode switching,
 * Esc Esc in an empty composer (rewind), Ctrl+C clearing it (Up brings the
 * text back), large pastes as chips and undo/redo. Pure, so it can be
 * tested without a terminal; the component only holds the state and draws it.
 */
import type { KeyEvent } from "../input/keys";
import { moveOverRows } from "./composer-layout";
import {
    type EditorState,
    EMPTY_EDITOR,
    backspace,
    completeMention,
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
    moveWordLeft,
    moveWordRight,
} from "./editor";
import {
    type Pastes,
    NO_PASTES,
    addChip,
    chipLabels,
    expandPastes,
    isLargePaste,
    keepChips,
} from "./paste-chips";
import { pastedImagePath } from "./pasted-image-path";
import {
    type EditKind,
    type Snapshot,
    type UndoHistory,
    EMPTY_UNDO,
    recordEdit,
    redoStep,
    undoStep,
} from "./undo";
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

/** Ctrl+R: a reverse incremental search of the prompt history. */
export interface HistorySearch {
    query: string;
    /** Index into `history` of the prompt shown, null before anything matched. */
    match: number | null;
    /** The last step found nothing older (the previous match stays shown). */
    failed: boolean;
    /** What the composer held when the search began; Esc brings it back. */
    draft: EditorState;
}

/**
 * The prompts Up and Ctrl+R offer. The cli backs it with a file per project;
 * the UI only sees this.
 */
export interface PromptHistory {
    /** Sent prompts, oldest first: the same array until `add` changes it. */
    entries(): readonly string[];
    /** Records a sent prompt (the store decides what it keeps). */
    add(text: string): void;
}

export interface ComposerState {
    editor: EditorState;
    /** Sent prompts, oldest first. */
    history: readonly string[];
    /** Position while browsing history (index into `history`), else null. */
    historyIndex: number | null;
    /** What was typed before browsing history began. */
    draft: EditorState | null;
    /** Ctrl+R search in progress, else null. */
    search: HistorySearch | null;
    /** Files attached with @ (repo-relative). */
    attachments: string[];
    /** Inside a bracketed paste: text collects here until it ends. */
    paste: string | null;
    suggestions: Suggestions | null;
    /** The "@" position whose suggestions were dismissed (Esc, Space). */
    dismissed: number | null;
    /** Esc was pressed in the empty composer: another Esc asks to rewind. */
    escArmed: boolean;
    /** What Ctrl+C cleared; Up in the empty composer brings it back. */
    stash: { text: string; attachments: string[]; pastes: Pastes } | null;
    /** Large pastes shown as chips in the text (see paste-chips). */
    pastes: Pastes;
    undo: UndoHistory;
}

export type ComposerEffect =
    | { type: "submit"; text: string; attachments: string[] }
    | { type: "toggle-mode" }
    | { type: "rewind" };

export interface ComposerResult {
    state: ComposerState;
    effect?: ComposerEffect;
    /** False when the composer did not use the key (the App may). */
    handled: boolean;
}

/** Looks up file suggestions; null while the index is not ready. */
export type SuggestFiles = (query: string) => string[] | null;

/** Prompts kept in memory when no store backs the history (the store's own limit otherwise). */
export const MAX_HISTORY = 1000;

export function createComposerState(history: readonly string[] = []): ComposerState {
    return {
        editor: EMPTY_EDITOR,
        history,
        historyIndex: null,
        draft: null,
        search: null,
        attachments: [],
        paste: null,
        suggestions: null,
        dismissed: null,
        escArmed: false,
        stash: null,
        pastes: NO_PASTES,
        undo: EMPTY_UNDO,
    };
}

/** The composer holding `text` to edit (e.g. a prompt a rewind took back), cursor at its end. */
export function withDraft(state: ComposerState, text: string): ComposerState {
    return {
        ...createComposerState(state.history),
        editor: editorOf(text.replace(/\r\n?/g, "\n")),
    };
}

/**
 * Ctrl+C: empties the composer (a search ends too), keeping the text for Up:
 * whole (chips, attachments) as the stash, and as the newest history entry so
 * it stays among the prompts once the stash is gone. Null when there was
 * nothing to clear.
 */
export function clearComposer(state: ComposerState): ComposerState | null {
    const text = state.search ? state.search.draft.text : state.editor.text;
    if (text === "" && !state.search && state.paste === null) return null;
    if (text === "") return { ...createComposerState(state.history), stash: state.stash };
    const history = withNewest(state.history, clearedText(state));
    return {
        ...createComposerState(history),
        stash: { text, attachments: state.attachments, pastes: state.pastes },
    };
}

/** What Ctrl+C clears, as it would be sent (pastes whole): the history keeps this. */
export function clearedText(state: ComposerState): string {
    const text = state.search ? state.search.draft.text : state.editor.text;
    return expandPastes(text, state.pastes);
}

function withNewest(history: readonly string[], text: string): readonly string[] {
    if (text.trim() === "" || history.at(-1) === text) return history;
    return [...history, text].slice(-MAX_HISTORY);
}

/**
 * Text taken back from the queue, put before what the composer holds (it was
 * typed first), cursor at the end.
 */
export function withTakenBack(
    state: ComposerState,
    text: string,
    attachments: readonly string[]
): ComposerState {
    const current = state.editor.text;
    const joined = current === "" ? text : `${text}\n${current}`;
    return {
        ...state,
        editor: editorOf(joined),
        attachments: [...new Set([...attachments, ...state.attachments])],
        historyIndex: null,
        draft: null,
        search: null,
        suggestions: null,
        escArmed: false,
    };
}

/** Esc means something to the composer now (closing suggestions or a search, inside a paste). */
export function composerWantsEscape(state: ComposerState): boolean {
    return state.suggestions !== null || state.search !== null || state.paste !== null;
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
    const { history, stash } = state;
    // What Ctrl+C cleared comes back before the older prompts.
    if (direction === -1 && stash && state.historyIndex === null && state.editor.text === "") {
        // The history's newest entry is the same text: the next Up goes past it.
        const newest = history.length - 1;
        const same = newest >= 0 && history[newest] === expandPastes(stash.text, stash.pastes);
        return {
            ...state,
            editor: editorOf(stash.text),
            attachments: stash.attachments,
            pastes: stash.pastes,
            stash: null,
            ...(same ? { historyIndex: newest, draft: EMPTY_EDITOR } : {}),
        };
    }
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

/**
 * Takes the store's current prompts, unless the user is walking or searching
 * them (indices would shift under them).
 */
export function withHistory(state: ComposerState, history: readonly string[]): ComposerState {
    if (state.history === history || state.historyIndex !== null || state.search) return state;
    return { ...state, history };
}

/** Case-insensitive literal match of `query`, or null for an empty query. */
function queryPattern(query: string): RegExp | null {
    if (query === "") return null;
    return new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "iu");
}

/** Where `query` occurs in `text` (the first occurrence), for highlighting. */
export function matchRange(text: string, query: string): { start: number; end: number } | null {
    const found = queryPattern(query)?.exec(text);
    return found ? { start: found.index, end: found.index + found[0].length } : null;
}

/** The newest prompt at or before `from` containing `query`, other than `skip`. */
function findOlder(
    history: readonly string[],
    query: string,
    from: number,
    skip?: string
): number | null {
    const pattern = queryPattern(query);
    for (let i = Math.min(from, history.length - 1); i >= 0; i--) {
        const text = history[i] ?? "";
        if (text !== skip && (pattern === null || pattern.test(text))) return i;
    }
    return null;
}

function startSearch(state: ComposerState): ComposerState {
    const search: HistorySearch = { query: "", match: null, failed: false, draft: state.editor };
    return { ...state, search, suggestions: null, historyIndex: null, draft: null };
}

/** Looks for `query` from `from` down; a miss keeps the previous match and marks the search failed. */
function searchFrom(
    state: ComposerState,
    search: HistorySearch,
    query: string,
    from: number,
    skip?: string
): ComposerState {
    const found = findOlder(state.history, query, from, skip);
    const next: HistorySearch =
        found === null
            ? { ...search, query, failed: query !== "" || search.match !== null }
            : { ...search, query, match: found, failed: false };
    return { ...state, search: next };
}

/** Ends the search with the match in the composer, ready to edit (Up/Down go on from it). */
function acceptSearch(state: ComposerState, search: HistorySearch): ComposerState {
    if (search.match === null) return { ...state, search: null, editor: search.draft };
    return {
        ...state,
        search: null,
        editor: editorOf(state.history[search.match] ?? ""),
        historyIndex: search.match,
        draft: search.draft,
    };
}

/**
 * Keys during a Ctrl+R search. Null when the key ends the search: the match
 * is accepted and the key then does what it always does.
 */
function searchKey(
    state: ComposerState,
    search: HistorySearch,
    event: KeyEvent
): ComposerResult | null {
    const done = (next: ComposerState): ComposerResult => ({ state: next, handled: true });
    const newest = state.history.length - 1;
    if (event.type === "text") {
        const query = search.query + event.text;
        return done(searchFrom(state, search, query, search.match ?? newest));
    }
    if (event.type === "chord" && event.ctrl && event.letter === "r") {
        const from = (search.match ?? newest + 1) - 1;
        const current = search.match === null ? undefined : state.history[search.match];
        return done(searchFrom(state, search, search.query, from, current));
    }
    if (event.type === "chord" && event.ctrl && event.letter === "g") {
        return done({ ...state, search: null, editor: search.draft });
    }
    if (event.type !== "key") return null;
    switch (event.name) {
        case "escape":
            return done({ ...state, search: null, editor: search.draft });
        case "backspace": {
            if (search.query === "") return done(state);
            const query = [...search.query].slice(0, -1).join("");
            if (query === "")
                return done({ ...state, search: { ...search, query, match: null, failed: false } });
            return done(searchFrom(state, { ...search, match: null }, query, newest));
        }
        case "return":
        case "right":
        case "end":
            // Into the composer to edit, not sent.
            return done(acceptSearch(state, search));
        default:
            return null;
    }
}

function submit(state: ComposerState): ComposerResult {
    // What was pasted is sent (and kept in the history) whole.
    const text = expandPastes(state.editor.text, state.pastes);
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
    event: Extract<KeyEvent, { type: "key" }>,
    width: number
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
        case "up":
        case "down": {
            // Over the rows as drawn (wrapped); past the first or last one, the history.
            const direction = event.name === "up" ? -1 : 1;
            const chips = chipLabels(e.text, state.pastes);
            const row = moveOverRows(e, width, direction, chips);
            if (row) return move(row);
            const stepped = historyStep(state, direction);
            return stepped ? { state: stepped, handled: true } : move(e);
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
            case "r":
                return { state: startSearch(state), handled: true };
            default:
                return { state, handled: false };
        }
    }
    if (event.meta && event.letter === "d") return done(deleteWordBack(e));
    return { state, handled: false };
}

/** Inserts typed or pasted text; a large paste goes in as one chip. */
function insertInput(state: ComposerState, text: string): ComposerState {
    const clean = text.replace(/\r\n?/g, "\n");
    if (isLargePaste(clean)) {
        const { chip, pastes } = addChip(state.editor.text, state.pastes, clean);
        return { ...edit(state, insertText(state.editor, chip)), pastes };
    }
    const kept = keepChips(state.editor.text, state.pastes, clean);
    const editor =
        kept.text === state.editor.text ? state.editor : { ...state.editor, text: kept.text };
    return { ...edit(state, insertText(editor, clean)), pastes: kept.pastes };
}

/**
 * Ctrl+T with chips in the composer: each becomes the text it stands for, to
 * read or edit (one undo step). Null without chips.
 */
export function expandChips(state: ComposerState): ComposerState | null {
    const { text, cursor } = state.editor;
    if (state.search || chipLabels(text, state.pastes).size === 0) return null;
    const before = expandPastes(text.slice(0, cursor), state.pastes);
    const editor = {
        text: before + expandPastes(text.slice(cursor), state.pastes),
        cursor: before.length,
    };
    const undo = recordEdit(state.undo, snapshotOf(state), editor, "edit");
    return { ...edit(state, editor), pastes: NO_PASTES, undo };
}

const snapshotOf = (state: ComposerState): Snapshot => ({
    editor: state.editor,
    pastes: state.pastes,
    attachments: state.attachments,
});

function isUndoKey(event: KeyEvent): boolean {
    // Ctrl+_ arrives as 0x1f (also Ctrl+/ and Ctrl+- in most terminals).
    if (event.type === "unknown") return event.sequence === "\x1f";
    return event.type === "chord" && event.ctrl && event.letter === "z" && !event.shift;
}

function isRedoKey(event: KeyEvent): boolean {
    if (event.type !== "chord" || !event.ctrl) return false;
    return event.letter === "y" || (event.letter === "z" && event.shift === true);
}

/** How an edit made by `event` groups into undo steps. */
function editKind(event: KeyEvent): EditKind {
    if (event.type === "paste-end") return "paste";
    if (event.type === "text") return [...event.text].length === 1 ? "type" : "paste";
    if (event.type === "key" && (event.name === "backspace" || event.name === "delete"))
        return event.ctrl || event.meta ? "edit" : "delete";
    return "edit";
}

/**
 * Applies one key event. `suggest` looks files up for @ mentions, `slash`
 * gives the commands and models slash autocomplete offers; `width` is the
 * columns text wraps at (Up and Down move over the wrapped rows).
 */
export function composerKey(
    state: ComposerState,
    event: KeyEvent,
    suggest: SuggestFiles,
    slash?: SlashSource,
    width = Number.POSITIVE_INFINITY
): ComposerResult {
    if (!state.search && state.paste === null && (isUndoKey(event) || isRedoKey(event))) {
        const step = (isUndoKey(event) ? undoStep : redoStep)(state.undo, snapshotOf(state));
        if (!step) return { state: { ...state, escArmed: false }, handled: true };
        const { editor, pastes, attachments } = step.snapshot;
        const next = {
            ...edit(state, editor),
            pastes,
            attachments,
            undo: step.undo,
            escArmed: false,
        };
        return { state: refreshSuggestions(next, suggest, slash), handled: true };
    }
    const result = applyKey(state, event, suggest, slash, width);
    const after = result.state;
    const changed = after.editor.text !== state.editor.text || after.pastes !== state.pastes;
    if (!changed || result.effect?.type === "submit" || state.search || after.search) return result;
    const undo = recordEdit(state.undo, snapshotOf(state), after.editor, editKind(event));
    return { ...result, state: { ...after, undo } };
}

function applyKey(
    state: ComposerState,
    event: KeyEvent,
    suggest: SuggestFiles,
    slash: SlashSource | undefined,
    width: number
): ComposerResult {
    // Esc Esc in the empty composer asks to rewind; any other key in between starts over.
    const armed = state.escArmed;
    if (armed) state = { ...state, escArmed: false };
    if (state.search && state.paste === null) {
        const searched = searchKey(state, state.search, event);
        if (searched) return searched;
        state = acceptSearch(state, state.search);
    }
    // Bracketed paste: everything up to the end marker is text, Enter included.
    if (event.type === "paste-start") return { state: { ...state, paste: "" }, handled: true };
    if (state.paste !== null) {
        if (event.type === "paste-end") {
            const image = pastedImagePath(state.paste);
            if (image !== null) {
                const attached = insertInput({ ...state, paste: null }, `@${image} `);
                const attachments = state.attachments.includes(image)
                    ? state.attachments
                    : [...state.attachments, image];
                return { state: { ...attached, attachments }, handled: true };
            }
            const next = { ...insertInput(state, state.paste), paste: null };
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

    if (event.type === "key" && event.name === "escape" && state.editor.text === "") {
        if (armed) return { state, effect: { type: "rewind" }, handled: true };
        return { state: { ...state, escArmed: true }, handled: true };
    }

    const picked = suggestionKey(state, event);
    if (picked) return { state: refreshSuggestions(picked, suggest, slash), handled: true };

    let result: ComposerResult;
    switch (event.type) {
        case "text": {
            let next = state;
            // Space after "@query" leaves the @ as literal text.
            if (state.suggestions && event.text.startsWith(" "))
                next = { ...state, suggestions: null, dismissed: state.suggestions.start };
            result = { state: insertInput(next, event.text), handled: true };
            break;
        }
        case "key":
            result = editingKey(state, event, width);
            break;
        case "chord":
            result = chordKey(state, event);
            break;
        default:
            return { state, handled: false };
    }
    if (result.effect?.type === "submit" || result.state.search) return result;
    return { ...result, state: refreshSuggestions(result.state, suggest, slash) };
}
