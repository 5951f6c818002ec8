/**
 * Named keys for `process_send` (`keys: ["ctrl+c"]`, `["esc", ":", "q", "enter"]`)
 * turned into the bytes an xterm sends for them. A program in a pseudo-terminal
 * reads these as typed; a program on pipes gets the same bytes, except Enter,
 * which is "\n" there (no terminal turns "\r" into a newline).
 */
import { ProcessError } from "./types";

/** Cursor keys switch to their SS3 form ("\x1bOA") once a program asks (DECCKM: vi, less, top). */
export interface KeyModes {
    applicationCursorKeys?: boolean;
}

/** Keys whose bytes do not depend on the terminal's modes. */
const FIXED_KEYS: Readonly<Record<string, string>> = {
    tab: "\t",
    "shift+tab": "\x1b[Z",
    esc: "\x1b",
    backspace: "\x7f",
    space: " ",
    delete: "\x1b[3~",
    insert: "\x1b[2~",
    pgup: "\x1b[5~",
    pgdn: "\x1b[6~",
    "ctrl+@": "\x00",
    "ctrl+space": "\x00",
    "ctrl+[": "\x1b",
    "ctrl+\\": "\x1c",
    "ctrl+]": "\x1d",
    "ctrl+^": "\x1e",
    "ctrl+_": "\x1f",
    f1: "\x1bOP",
    f2: "\x1bOQ",
    f3: "\x1bOR",
    f4: "\x1bOS",
    f5: "\x1b[15~",
    f6: "\x1b[17~",
    f7: "\x1b[18~",
    f8: "\x1b[19~",
    f9: "\x1b[20~",
    f10: "\x1b[21~",
    f11: "\x1b[23~",
    f12: "\x1b[24~",
};

/** Cursor keys: the final byte after CSI (normal mode) or SS3 (application mode). */
const CURSOR_KEYS: Readonly<Record<string, string>> = {
    up: "A",
    down: "B",
    right: "C",
    left: "D",
    home: "H",
    end: "F",
};

/** Other spellings a model may use. */
const ALIASES: Readonly<Record<string, string>> = {
    return: "enter",
    escape: "esc",
    pageup: "pgup",
    pagedown: "pgdn",
    del: "delete",
    bs: "backspace",
    "ctrl+backslash": "ctrl+\\",
};

/** Every name `keyBytes` accepts, for the error that lists them. */
export const KEY_NAMES: readonly string[] = [
    "enter",
    ...Object.keys(CURSOR_KEYS),
    ...Object.keys(FIXED_KEYS),
    "ctrl+a … ctrl+z",
];

/** Ctrl+C, Ctrl+\ and Ctrl+Z as the signals a terminal would send for them (for programs on pipes). */
const KEY_SIGNALS: Readonly<Record<string, NodeJS.Signals>> = {
    "ctrl+c": "SIGINT",
    "ctrl+\\": "SIGQUIT",
    "ctrl+z": "SIGTSTP",
};

function canonicalName(name: string): string {
    const lower = name.trim().toLowerCase().replace(/\s+/g, "");
    // "C-c", "control+c", "ctrl-c" are all Ctrl+C.
    const ctrl = lower.replace(/^(?:c-|control[+-]|ctrl-)/, "ctrl+");
    return ALIASES[ctrl] ?? ctrl;
}

/**
 * The bytes for one key name. Throws ProcessError "invalid", listing the known
 * names, for one it does not know.
 */
export function keyBytes(name: string, options: { tty: boolean; modes?: KeyModes }): string {
    const key = canonicalName(name);
    if (key === "enter") return options.tty ? "\r" : "\n";
    const cursor = CURSOR_KEYS[key];
    if (cursor) return (options.modes?.applicationCursorKeys ? "\x1bO" : "\x1b[") + cursor;
    const fixed = FIXED_KEYS[key];
    if (fixed !== undefined) return fixed;
    const letter = /^ctrl\+([a-z])$/.exec(key)?.[1];
    if (letter) return String.fromCharCode(letter.charCodeAt(0) - 96);
    throw new ProcessError(
        "invalid",
        `Unknown key "${name}". Known keys: ${KEY_NAMES.join(", ")}; send other text as \`text\`.`
    );
}

/** The bytes for a list of key names, in order (all names checked before any is sent). */
export function keysToBytes(
    names: readonly string[],
    options: { tty: boolean; modes?: KeyModes }
): string {
    return names.map((name) => keyBytes(name, options)).join("");
}

/**
 * The signal a terminal's line discipline sends for `name` (Ctrl+C → SIGINT),
 * or undefined: a program on pipes gets no signal from the byte alone.
 */
export function keySignal(name: string): NodeJS.Signals | undefined {
    return KEY_SIGNALS[canonicalName(name)];
}
