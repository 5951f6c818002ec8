/**
 * Vim keys for the composer (`editorMode: "vim"`): insert mode types as the
 * composer always does; Esc goes to normal mode, where letters are
 * commands: motions h j k l w b e 0 ^ $ gg G, operators d c y with a
 * motion or doubled (dd, cc, yy), x D C p P, entering insert with
 * i a I A o O, u for undo, and counts (3w, 2dd, d2w). Pure, over the
 * editor's text and cursor; the composer keeps undo and sends on Enter.
 */
import { type EditorState, moveVertical } from "./editor";

export type VimMode = "insert" | "normal";

export interface VimRegister {
    text: string;
    /** Whole lines (dd, yy): p puts them below the cursor's line, P above. */
    linewise: boolean;
}

export interface VimState {
    mode: VimMode;
    /** Keys of a command still being typed: a count, an operator, a "g". */
    pending: string;
    register: VimRegister | null;
}

export const VIM_INSERT: VimState = { mode: "insert", pending: "", register: null };

export interface VimStep {
    vim: VimState;
    editor: EditorState;
    /** The text changed (one undo step). */
    changed: boolean;
    /** `u`: the composer's undo, once per count. */
    undo: number;
    /** Typed after a key that entered insert mode in the same burst ("ihello"): text to insert. */
    rest: string;
}

const lineStart = (text: string, at: number): number => text.lastIndexOf("\n", at - 1) + 1;
function lineEnd(text: string, at: number): number {
    const end = text.indexOf("\n", at);
    return end === -1 ? text.length : end;
}
/** The last column normal mode may rest on: the line's last character (its start when empty). */
const lastColumn = (text: string, at: number): number =>
    Math.max(lineStart(text, at), lineEnd(text, at) - 1);

/** 0 blank, 1 word character, 2 other: a vim "word" is a run of one class. */
function classOf(ch: string | undefined): 0 | 1 | 2 {
    if (ch === undefined || /\s/.test(ch)) return 0;
    return /[\p{L}\p{N}_]/u.test(ch) ? 1 : 2;
}

function wordForward(text: string, at: number): number {
    let i = at;
    const cls = classOf(text[i]);
    if (cls !== 0) while (i < text.length && classOf(text[i]) === cls) i++;
    while (i < text.length && classOf(text[i]) === 0) i++;
    return i;
}

function wordEnd(text: string, at: number): number {
    let i = at + 1;
    while (i < text.length && classOf(text[i]) === 0) i++;
    const cls = classOf(text[i]);
    while (i + 1 < text.length && classOf(text[i + 1]) === cls) i++;
    return Math.min(i, Math.max(0, text.length - 1));
}

function wordBack(text: string, at: number): number {
    let i = at - 1;
    while (i > 0 && classOf(text[i]) === 0) i--;
    const cls = classOf(text[i]);
    while (i > 0 && classOf(text[i - 1]) === cls) i--;
    return Math.max(0, i);
}

function firstNonBlank(text: string, at: number): number {
    let i = lineStart(text, at);
    const end = lineEnd(text, at);
    while (i < end && (text[i] === " " || text[i] === "\t")) i++;
    return i;
}

/** Where motion `key` takes the cursor from `at`, `count` times; null for a key that is no motion. */
function motion(text: string, at: number, key: string, count: number): number | null {
    let to = at;
    for (let n = 0; n < count; n++) {
        switch (key) {
            case "h":
                to = Math.max(lineStart(text, to), to - 1);
                break;
            case "l":
                to = Math.min(lastColumn(text, to), to + 1);
                break;
            case "j":
            case "k":
                to = moveVertical({ text, cursor: to }, key === "j" ? 1 : -1).cursor;
                break;
            case "w":
                to = wordForward(text, to);
                break;
            case "e":
                to = wordEnd(text, to);
                break;
            case "b":
                to = wordBack(text, to);
                break;
            case "0":
                return lineStart(text, at);
            case "^":
                return firstNonBlank(text, at);
            case "$":
                return lineEnd(text, to);
            case "G":
                return lineStart(text, text.length);
            case "gg":
                return 0;
            default:
                return null;
        }
    }
    return to;
}

/** Lines `count` from the cursor's: [start, end) including one line break, and their text. */
function linesAt(
    text: string,
    at: number,
    count: number
): { start: number; end: number; yank: string } {
    const start = lineStart(text, at);
    let end = lineEnd(text, at);
    for (let n = 1; n < count && end < text.length; n++) end = lineEnd(text, end + 1);
    const yank = text.slice(start, end);
    // The break after the lines goes with them; on the last line, the one before.
    if (end < text.length) return { start, end: end + 1, yank };
    return { start: Math.max(0, start - 1), end, yank };
}

interface Applied {
    editor: EditorState;
    vim: VimState;
    changed: boolean;
    undo: number;
}

const cut = (text: string, from: number, to: number): string =>
    text.slice(0, from) + text.slice(to);

/** A command once its keys are complete; null while it needs more keys; "invalid" drops them. */
function command(keys: string, editor: EditorState, vim: VimState): Applied | null | "invalid" {
    const parsed = /^(\d*)([dcy]?)(\d*)(.*)$/.exec(keys);
    if (!parsed) return "invalid";
    const [, before = "", operator = ""] = parsed;
    let [, , , after = "", rest = ""] = parsed;
    // After an operator a lone 0 is the motion too (d0).
    if (after === "0" && rest === "") [after, rest] = ["", "0"];
    else if (after.startsWith("0")) return "invalid";
    if (before.startsWith("0")) {
        // A lone 0 is the motion to the line's start, not a count.
        if (before !== "0" || operator !== "" || rest !== "") return "invalid";
    }
    if (rest === "" || rest === "g") {
        if (keys === "0") return move(editor, vim, lineStart(editor.text, editor.cursor));
        return null;
    }
    const count = Math.max(1, Number(before || "1")) * Math.max(1, Number(after || "1"));
    const { text, cursor } = editor;
    const register = (yank: string, linewise: boolean): VimRegister => ({ text: yank, linewise });
    const normal = (state: EditorState): EditorState => ({
        ...state,
        cursor: Math.min(state.cursor, lastColumn(state.text, state.cursor)),
    });
    const changedTo = (next: EditorState, reg: VimRegister | null, mode: VimMode): Applied => ({
        editor: mode === "normal" ? normal(next) : next,
        vim: { mode, pending: "", register: reg ?? vim.register },
        changed: next.text !== text,
        undo: 0,
    });
    if (operator !== "") {
        const mode: VimMode = operator === "c" ? "insert" : "normal";
        if (rest === operator) {
            const lines = linesAt(text, cursor, count);
            const reg = register(lines.yank, true);
            if (operator === "y") return changedTo(editor, reg, "normal");
            if (operator === "c") {
                // cc keeps the line, emptied.
                const start = lineStart(text, cursor);
                const end = linesAt(text, cursor, count).yank.length + start;
                return changedTo({ text: cut(text, start, end), cursor: start }, reg, mode);
            }
            const left = cut(text, lines.start, lines.end);
            return changedTo(
                { text: left, cursor: firstNonBlank(left, Math.min(lines.start, left.length)) },
                reg,
                mode
            );
        }
        // cw changes to the end of the word (vim's own exception), as ce does.
        const key = operator === "c" && rest === "w" && classOf(text[cursor]) !== 0 ? "e" : rest;
        const target = motion(text, cursor, key, count);
        if (target === null) return rest === "g" ? null : "invalid";
        let [from, to] = target < cursor ? [target, cursor] : [cursor, target];
        if (key === "e") to = Math.min(text.length, to + 1);
        // A word motion stops at the end of the line.
        if (key === "w") to = Math.min(to, lineEnd(text, cursor));
        if (key === "j" || key === "k") {
            from = lineStart(text, from);
            to = lineEnd(text, to);
        }
        const reg = register(text.slice(from, to), false);
        if (operator === "y") return changedTo({ text, cursor: from }, reg, "normal");
        return changedTo({ text: cut(text, from, to), cursor: from }, reg, mode);
    }
    const end = lineEnd(text, cursor);
    switch (rest) {
        case "x": {
            const to = Math.min(end, cursor + count);
            if (to === cursor) return changedTo(editor, null, "normal");
            const reg = register(text.slice(cursor, to), false);
            return changedTo({ text: cut(text, cursor, to), cursor }, reg, "normal");
        }
        case "D":
        case "C": {
            const reg = register(text.slice(cursor, end), false);
            return changedTo(
                { text: cut(text, cursor, end), cursor },
                reg,
                rest === "C" ? "insert" : "normal"
            );
        }
        case "p":
        case "P":
            return put(editor, vim, rest === "P", count);
        case "u":
            return { editor, vim: { ...vim, pending: "" }, changed: false, undo: count };
        case "i":
            return changedTo(editor, null, "insert");
        case "a":
            return changedTo({ text, cursor: Math.min(end, cursor + 1) }, null, "insert");
        case "I":
            return changedTo({ text, cursor: firstNonBlank(text, cursor) }, null, "insert");
        case "A":
            return changedTo({ text, cursor: end }, null, "insert");
        case "o":
            return changedTo(
                { text: `${text.slice(0, end)}\n${text.slice(end)}`, cursor: end + 1 },
                null,
                "insert"
            );
        case "O": {
            const start = lineStart(text, cursor);
            return changedTo(
                { text: `${text.slice(0, start)}\n${text.slice(start)}`, cursor: start },
                null,
                "insert"
            );
        }
        default: {
            const target = motion(text, cursor, rest, count);
            if (target === null) return rest === "g" ? null : "invalid";
            return move(editor, vim, Math.min(target, lastColumn(text, target)));
        }
    }
}

function move(editor: EditorState, vim: VimState, cursor: number): Applied {
    return { editor: { ...editor, cursor }, vim: { ...vim, pending: "" }, changed: false, undo: 0 };
}

function put(editor: EditorState, vim: VimState, before: boolean, count: number): Applied {
    const reg = vim.register;
    const done = (next: EditorState): Applied => ({
        editor: next,
        vim: { ...vim, pending: "" },
        changed: next.text !== editor.text,
        undo: 0,
    });
    if (!reg || reg.text === "") return done(editor);
    const { text, cursor } = editor;
    if (reg.linewise) {
        const block = Array.from({ length: count }, () => reg.text).join("\n");
        if (before) {
            const start = lineStart(text, cursor);
            return done({
                text: `${text.slice(0, start)}${block}\n${text.slice(start)}`,
                cursor: start,
            });
        }
        const end = lineEnd(text, cursor);
        return done({ text: `${text.slice(0, end)}\n${block}${text.slice(end)}`, cursor: end + 1 });
    }
    const block = reg.text.repeat(count);
    const at = before || lineEnd(text, cursor) === lineStart(text, cursor) ? cursor : cursor + 1;
    return done({
        text: text.slice(0, at) + block + text.slice(at),
        cursor: at + block.length - 1,
    });
}

/** Esc in insert mode: normal mode, the cursor one left as in vim (never past the line's start). */
export function toNormal(
    vim: VimState,
    editor: EditorState
): { vim: VimState; editor: EditorState } {
    const start = lineStart(editor.text, editor.cursor);
    return {
        vim: { ...vim, mode: "normal", pending: "" },
        editor: { ...editor, cursor: Math.max(start, editor.cursor - 1) },
    };
}

/**
 * Characters typed in normal mode, one command key at a time. A key that
 * enters insert mode hands the characters after it back as `rest`.
 */
export function vimTyped(vim: VimState, editor: EditorState, typed: string): VimStep {
    let state = vim;
    let current = editor;
    let changed = false;
    let undo = 0;
    const chars = [...typed];
    for (let i = 0; i < chars.length; i++) {
        if (state.mode === "insert") {
            return { vim: state, editor: current, changed, undo, rest: chars.slice(i).join("") };
        }
        const keys = state.pending + chars[i];
        const applied = command(keys, current, state);
        if (applied === null) state = { ...state, pending: keys };
        else if (applied === "invalid") state = { ...state, pending: "" };
        else {
            state = applied.vim;
            current = applied.editor;
            changed ||= applied.changed;
            undo += applied.undo;
        }
    }
    return { vim: state, editor: current, changed, undo, rest: "" };
}

/** The mode line under the composer. */
export const vimModeLabel = (vim: VimState): string =>
    vim.mode === "normal" ? `-- NORMAL --${vim.pending ? ` ${vim.pending}` : ""}` : "-- INSERT --";
