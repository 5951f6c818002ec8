/**
 * What a key does to the one review menu (review-menu.tsx draws it). Pure.
 * The options themselves live in agent/approval-menu.ts, shared with the
 * editor's permission requests.
 */
import {
    MAX_REFUSAL_REASON_CHARS,
    type MenuOption,
    approvalOptions,
    trustOptions,
} from "../../agent/approval-menu";
import type { StandingScope } from "../../agent/approvals";

// The menu's tests read the options beside the keys.
export { MAX_REFUSAL_REASON_CHARS, type MenuOption, approvalOptions, trustOptions };

/** Where the menu is: the highlighted option, the standing scope, and the reason being typed. */
export interface MenuState {
    selected: number;
    scope: StandingScope;
    /** The refusal's reason field, open when not null. */
    reason: string | null;
}

export const INITIAL_MENU_STATE: MenuState = { selected: 0, scope: "personal", reason: null };

/** The named keys of Ink's `useInput` the menu reads. */
export interface MenuKey {
    upArrow?: boolean;
    downArrow?: boolean;
    return?: boolean;
    escape?: boolean;
    tab?: boolean;
    backspace?: boolean;
    delete?: boolean;
    ctrl?: boolean;
    meta?: boolean;
}

export interface MenuKeyResult<T> {
    state: MenuState;
    /** Set when the key answered the review. */
    answer?: { value: T };
}

/** What `option` does once chosen: answer at once, or open the reason field. */
function choose<T>(options: readonly MenuOption<T>[], state: MenuState, index: number) {
    const option = options[index];
    if (!option) return { state };
    const next = { ...state, selected: index };
    if (option.refusal?.asksReason) return { state: { ...next, reason: "" } };
    return { state: next, answer: { value: option.answer(state.scope) } };
}

/** What one key does to a pending menu. Pure. */
export function menuKey<T>(
    options: readonly MenuOption<T>[],
    state: MenuState,
    input: string,
    key: MenuKey
): MenuKeyResult<T> {
    const last = options.length - 1;
    const refusal = options[last];
    if (state.reason !== null && refusal) {
        if (key.return) {
            const reason = state.reason.trim();
            return {
                state,
                answer: { value: refusal.answer(state.scope, reason === "" ? undefined : reason) },
            };
        }
        // Esc again: refuse without a reason.
        if (key.escape) return { state, answer: { value: refusal.answer(state.scope) } };
        if (key.backspace || key.delete) {
            return { state: { ...state, reason: [...state.reason].slice(0, -1).join("") } };
        }
        if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow) return { state };
        // One line: pasted line breaks become spaces, control bytes go.
        const text = input.replace(/[\r\n\t]+/g, " ").replace(/\p{Cc}/gu, "");
        const reason = (state.reason + text).slice(0, MAX_REFUSAL_REASON_CHARS);
        return { state: { ...state, reason } };
    }
    if (key.escape) return choose(options, state, last);
    if (key.upArrow) return { state: { ...state, selected: Math.max(0, state.selected - 1) } };
    if (key.downArrow) return { state: { ...state, selected: Math.min(last, state.selected + 1) } };
    if (key.return) return choose(options, state, state.selected);
    if (key.tab) {
        if (!options[state.selected]?.standing) return { state };
        return { state: { ...state, scope: state.scope === "personal" ? "local" : "personal" } };
    }
    if (key.ctrl || key.meta) return { state };
    // The digit is the option's shortcut; no letter answers anything.
    if (/^[1-9]$/.test(input)) {
        const index = Number(input) - 1;
        if (index <= last) return choose(options, state, index);
    }
    return { state };
}
