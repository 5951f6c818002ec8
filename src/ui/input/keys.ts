/**
 * Terminal input → key events. Ink splits stdin into one string per escape
 * sequence (or run of plain text); this names them, including what Ink's own
 * parser does not tell apart: Ctrl+J and Shift+Enter (newline) from Enter,
 * Backspace from Delete, and the bracketed-paste markers.
 */

export type KeyName =
    | "return"
    | "newline"
    | "backspace"
    | "delete"
    | "up"
    | "down"
    | "left"
    | "right"
    | "home"
    | "end"
    | "pageup"
    | "pagedown"
    | "tab"
    | "backtab"
    | "escape";

export type KeyEvent =
    | { type: "text"; text: string }
    | { type: "key"; name: KeyName; ctrl: boolean; meta: boolean; shift: boolean }
    /** Ctrl+letter ("c" for Ctrl+C), or Alt+letter with `meta`; `shift` only where the terminal tells. */
    | { type: "chord"; letter: string; ctrl: boolean; meta: boolean; shift?: boolean }
    | { type: "paste-start" }
    | { type: "paste-end" }
    /** The terminal's focus report (DECSET 1004: `ESC [ I` in, `ESC [ O` out); never a key. */
    | { type: "focus"; focused: boolean }
    | { type: "unknown"; sequence: string };

export const PASTE_START = "\x1b[200~";
export const PASTE_END = "\x1b[201~";

const key = (name: KeyName, mods: { ctrl?: boolean; meta?: boolean; shift?: boolean } = {}) =>
    ({
        type: "key",
        name,
        ctrl: mods.ctrl ?? false,
        meta: mods.meta ?? false,
        shift: mods.shift ?? false,
    }) as const;

const CSI_FINAL: Record<string, KeyName> = {
    A: "up",
    B: "down",
    C: "right",
    D: "left",
    H: "home",
    F: "end",
    Z: "backtab",
};

const CSI_TILDE: Record<string, KeyName> = {
    "1": "home",
    "7": "home",
    "4": "end",
    "8": "end",
    "3": "delete",
    "5": "pageup",
    "6": "pagedown",
};

/** xterm modifier parameter: 1 + shift(1) + alt(2) + ctrl(4). */
function modifiers(param: string | undefined): { ctrl: boolean; meta: boolean; shift: boolean } {
    const bits = Math.max(0, Number(param ?? "1") - 1);
    return { shift: (bits & 1) !== 0, meta: (bits & 2) !== 0, ctrl: (bits & 4) !== 0 };
}

/** A key given by its code point (kitty CSI u, xterm modifyOtherKeys). */
function codepointKey(code: number, mods: ReturnType<typeof modifiers>): KeyEvent {
    if (code === 13) return mods.shift || mods.meta || mods.ctrl ? key("newline") : key("return");
    if (code === 9) return mods.shift ? key("backtab") : key("tab");
    if (code === 127 || code === 8) return key("backspace", mods);
    if (code === 27) return key("escape");
    const ch = String.fromCodePoint(code);
    if (mods.ctrl || mods.meta) return { type: "chord", letter: ch.toLowerCase(), ...mods };
    return { type: "text", text: mods.shift ? ch.toUpperCase() : ch };
}

function escapeSequence(seq: string): KeyEvent {
    if (seq === PASTE_START) return { type: "paste-start" };
    if (seq === PASTE_END) return { type: "paste-end" };
    if (seq === "\x1b[I") return { type: "focus", focused: true };
    if (seq === "\x1b[O") return { type: "focus", focused: false };
    if (seq === "\x1b" || seq === "\x1b\x1b") return key("escape");
    if (seq === "\x1b\r" || seq === "\x1b\n") return key("newline");
    if (seq === "\x1b\x7f" || seq === "\x1b\b") return key("backspace", { meta: true });
    // ESC [ params final (ESC ESC [ … with Alt), or ESC O final
    const doubled = seq.startsWith("\x1b\x1b");
    const body = seq.slice(doubled ? 2 : 1);
    const csi = /^\[([\d;]*)([A-Za-z~])$/.exec(body);
    if (csi) {
        const params = (csi[1] ?? "").split(";");
        const final = csi[2] as string;
        if (final === "u") return codepointKey(Number(params[0]), modifiers(params[1]));
        if (final === "~") {
            if (params[0] === "27" && params[2] !== undefined)
                return codepointKey(Number(params[2]), modifiers(params[1]));
            const name = CSI_TILDE[params[0] ?? ""];
            return name ? key(name, modifiers(params[1])) : { type: "unknown", sequence: seq };
        }
        const name = CSI_FINAL[final];
        if (name) {
            const mods = modifiers(params[1]);
            if (doubled) mods.meta = true;
            return key(name, mods);
        }
        return { type: "unknown", sequence: seq };
    }
    const ss3 = doubled ? null : /^O([A-Za-z])$/.exec(body);
    if (ss3) {
        const name = CSI_FINAL[ss3[1] as string];
        return name ? key(name) : { type: "unknown", sequence: seq };
    }
    // Alt+key: ESC followed by one character.
    const rest = seq.slice(1);
    if ([...rest].length === 1) {
        if (rest === "b") return key("left", { meta: true });
        if (rest === "f") return key("right", { meta: true });
        return { type: "chord", letter: rest.toLowerCase(), ctrl: false, meta: true };
    }
    return { type: "unknown", sequence: seq };
}

function controlCharacter(ch: string): KeyEvent | null {
    switch (ch) {
        case "\r":
            return key("return");
        case "\n":
            return key("newline");
        case "\t":
            return key("tab");
        case "\x7f":
        case "\b":
            return key("backspace");
        default: {
            const code = ch.charCodeAt(0);
            if (code >= 1 && code <= 26)
                return {
                    type: "chord",
                    letter: String.fromCharCode(code + 96),
                    ctrl: true,
                    meta: false,
                };
            if (code === 0 || (code >= 28 && code < 32)) return { type: "unknown", sequence: ch };
            return null;
        }
    }
}

/**
 * Names one input string from Ink. Plain text of several characters (typed
 * fast, or pasted without bracketed paste) comes back as text, with a
 * trailing Enter split off as its own event.
 */
export function parseInput(input: string): KeyEvent[] {
    if (input === "") return [];
    if (input.startsWith("\x1b")) return [escapeSequence(input)];
    if (input.length === 1 || (input.length === 2 && input.codePointAt(0)! > 0xffff)) {
        return [controlCharacter(input) ?? { type: "text", text: input }];
    }
    const single = controlCharacter(input);
    if (single && input.length === 1) return [single];
    // A run of text. "\r" at its very end (and nowhere else) is Enter; other
    // line breaks are text (an unbracketed paste).
    const endsWithEnter = input.endsWith("\r") && !/[\r\n]/.test(input.slice(0, -1));
    const body = endsWithEnter ? input.slice(0, -1) : input;
    const events: KeyEvent[] = [];
    let text = "";
    for (const ch of body.replace(/\r\n?/g, "\n")) {
        const control = ch === "\n" || ch === "\t" ? null : controlCharacter(ch);
        if (control) {
            if (text) events.push({ type: "text", text });
            text = "";
            events.push(control);
        } else text += ch;
    }
    if (text) events.push({ type: "text", text });
    if (endsWithEnter) events.push(key("return"));
    return events;
}

/** An escape sequence begun but not finished at the end of a chunk: `ESC [` and parameters. */
// eslint-disable-next-line no-control-regex -- matching escapes is the point
const UNFINISHED_CSI = /\x1b\[[0-?]*[ -/]*$/;

/**
 * Joins escape sequences that a terminal's write was split across: under load
 * a mouse report (`ESC [ < 65 ; 20 ; 10 M`) can arrive in two reads, and the
 * second half would otherwise be typed into the composer. A lone ESC is never
 * held (it is the Esc key), and nothing is waited for by time: a terminal
 * always sends the rest of a sequence it began.
 */
export function createInputJoiner(): {
    /**
     * The input events that are complete now, in order: a sequence finished by
     * this chunk comes whole, apart from the text after it.
     */
    push(chunk: string): string[];
    holding(): boolean;
} {
    let held = "";
    return {
        push(chunk) {
            const pieces: string[] = [];
            let text = chunk;
            if (held !== "") {
                // The sequence's final byte ends it; what follows is input of its own.
                const end = /^[0-?]*[ -/]*[@-~]/.exec(text);
                if (end) {
                    pieces.push(held + end[0]);
                    text = text.slice(end[0].length);
                    held = "";
                } else {
                    text = held + text;
                    held = "";
                }
            }
            const tail = UNFINISHED_CSI.exec(text);
            if (tail) {
                held = tail[0];
                text = text.slice(0, tail.index);
            }
            if (text !== "") pieces.push(text);
            return pieces;
        },
        holding: () => held !== "",
    };
}
