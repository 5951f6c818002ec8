import { useEffect, useRef } from "react";
import { type Key, useStdin } from "ink";
import { createInputJoiner, type KeyEvent, parseInput } from "../input/keys";
import { useInkInputStream } from "./ink-input-stream";

/**
 * Every event of Ink's input stream, named by `parseInput` (newline vs
 * Enter, bracketed paste markers, focus reports), while `active`. Each
 * listener parses for itself, so several may listen at once.
 */
export function useInputEvents(handler: (event: KeyEvent) => void, active = true): void {
    const emitter = useInkInputStream();
    const handlerRef = useRef(handler);
    handlerRef.current = handler;

    useEffect(() => {
        if (!active) return;
        // A terminal always finishes a sequence it began: its end is awaited, however late.
        const joiner = createInputJoiner();
        const onInput = (input: string): void => {
            for (const piece of joiner.push(input)) {
                for (const event of parseInput(piece)) handlerRef.current(event);
            }
        };
        emitter.on("input", onInput);
        return () => {
            emitter.off("input", onInput);
        };
    }, [active, emitter]);
}

/**
 * The user's keys, in raw mode: every event but the terminal's focus reports
 * (use-focus-reports.ts takes those). Several components may listen at once;
 * each sees every key while `active`.
 */
export function useRawInput(handler: (event: KeyEvent) => void, active = true): void {
    const { setRawMode, isRawModeSupported } = useStdin();
    const handlerRef = useRef(handler);
    handlerRef.current = handler;

    useEffect(() => {
        if (!active || !isRawModeSupported) return;
        setRawMode(true);
        return () => setRawMode(false);
    }, [active, isRawModeSupported, setRawMode]);

    useInputEvents((event) => {
        if (event.type !== "focus") handlerRef.current(event);
    }, active);
}

const NO_KEY: Key = {
    upArrow: false,
    downArrow: false,
    leftArrow: false,
    rightArrow: false,
    pageDown: false,
    pageUp: false,
    home: false,
    end: false,
    return: false,
    escape: false,
    ctrl: false,
    shift: false,
    tab: false,
    backspace: false,
    delete: false,
    meta: false,
    super: false,
    hyper: false,
    capsLock: false,
    numLock: false,
};

const NAMED: Partial<Record<string, keyof Key>> = {
    up: "upArrow",
    down: "downArrow",
    left: "leftArrow",
    right: "rightArrow",
    pageup: "pageUp",
    pagedown: "pageDown",
    home: "home",
    end: "end",
    return: "return",
    escape: "escape",
    tab: "tab",
    backtab: "tab",
    backspace: "backspace",
    delete: "delete",
};

/** A key event in the shape of Ink's `useInput` (text in `input`, named keys as flags). */
export function inkKeyOf(event: KeyEvent): { input: string; key: Key } {
    switch (event.type) {
        case "text":
            return { input: event.text, key: { ...NO_KEY, shift: /^[A-Z]$/.test(event.text) } };
        case "chord":
            return { input: event.letter, key: { ...NO_KEY, ctrl: event.ctrl, meta: event.meta } };
        case "key": {
            const flag = NAMED[event.name];
            const key: Key = { ...NO_KEY, ctrl: event.ctrl, meta: event.meta, shift: event.shift };
            if (flag) Object.assign(key, { [flag]: true });
            if (event.name === "backtab") key.shift = true;
            return { input: "", key };
        }
        default:
            return { input: "", key: NO_KEY };
    }
}

/**
 * Ink's `useInput`, but every key of an input string separately and in
 * order, so `Down Down Enter` or `ya` arriving together are three and two keys.
 * Handlers that change state several times within one string must read it
 * from a ref: no render happens between its keys.
 */
export function useInputKeys(
    handler: (input: string, key: Key) => void,
    options: { isActive?: boolean } = {}
): void {
    useRawInput((event) => {
        if (event.type === "text" && [...event.text].length > 1) {
            // Keys that arrived together: one at a time (a "\n" in them is Ctrl+J).
            for (const ch of event.text) {
                for (const one of parseInput(ch)) {
                    const { input, key } = inkKeyOf(one);
                    handler(input, key);
                }
            }
            return;
        }
        const { input, key } = inkKeyOf(event);
        handler(input, key);
    }, options.isActive ?? true);
}
