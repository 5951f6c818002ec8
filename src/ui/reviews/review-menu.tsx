/**
 * The one menu every consent review ends with: numbered options, ↑/↓ and
 * Enter, the digit as a shortcut, Tab for where a standing answer is kept,
 * Esc to the refusal and its one-line reason. What the keys do is
 * review-options.ts; this draws it and listens while the review owns keys.
 */
import { Box, type Key, Text } from "ink";
import { useRef, useState } from "react";
import type { ReactElement } from "react";
import type { StandingScope } from "../../agent/approvals";
import { useGuardState } from "../hooks/use-key-gate";
import { useInputKeys } from "../hooks/use-raw-input";
import type { KeyGate } from "../input/key-gate";
import { useTheme } from "../use-theme";
import { wrapLines } from "../render/markdown";
import { type MenuOption, standingPlace } from "../../agent/approval-menu";
import { INITIAL_MENU_STATE, type MenuState, menuKey } from "./review-options";

/** The hint under a menu that takes keys now: tests and users wait for it. */
export const MENU_READY_HINT = "Enter to choose";
/** Shown once keys typed as the review appeared went to the composer instead. */
export const KEYS_WENT_TO_DRAFT = "keys went to your draft";
/** While keys that went to the draft hold the review until a deliberate pause. */
export const PAUSE_THEN_CHOOSE = `${KEYS_WENT_TO_DRAFT} — pause, then choose`;

export interface ReviewMenuProps<T> {
    options: readonly MenuOption<T>[];
    /** Listen for keys (while pending). */
    active: boolean;
    /** The App's key gate: keys count only while it gives them to the review. */
    gate?: KeyGate;
    /** Esc belongs to the review around it now (the diff's full-screen view). */
    escapeTaken?: boolean;
    onAnswer(value: T): void;
}

export function guardHint(
    state: "open" | "guarding" | "holding",
    diverted: boolean
): string | null {
    if (state === "holding") return PAUSE_THEN_CHOOSE;
    if (diverted) return KEYS_WENT_TO_DRAFT;
    return state === "guarding" ? "keys go to your draft for a moment" : null;
}

/** The hint line: the guard's note, then the keys that act now. */
function hintLine<T>(
    options: readonly MenuOption<T>[],
    state: MenuState,
    guard: { state: "open" | "guarding" | "holding"; diverted: boolean }
): string {
    const parts: string[] = [];
    const note = guardHint(guard.state, guard.diverted);
    if (note) parts.push(note);
    if (guard.state === "open") {
        if (state.reason !== null) {
            parts.push("Enter sends", "Esc: without a reason");
        } else {
            parts.push(`↑↓ ${MENU_READY_HINT}`, `1–${options.length}`);
            if (options[state.selected]?.standing) parts.push(`Tab: ${otherPlace(state.scope)}`);
            parts.push("Esc: No");
        }
    }
    return parts.join(" · ");
}

const otherPlace = (scope: StandingScope): string =>
    standingPlace(scope === "personal" ? "local" : "personal").replace(/^kept/, "keep it");

/** Rows the menu takes at `width` columns (for a review's height); the reason field takes the hint's row. */
export function reviewMenuRows<T>(options: readonly MenuOption<T>[], width: number): number {
    let rows = 1; // the hint line, or the reason field in its place
    for (const [i, option] of options.entries()) {
        const number = `❯ ${i + 1}. `.length;
        rows += wrapLines(option.label("personal"), Math.max(1, width - number)).length;
    }
    return rows;
}

/** A key that only inserts text: no Enter, Esc, arrow, edit or chord. */
export function isPlainText(input: string, key: Key): boolean {
    const acts =
        key.return ||
        key.escape ||
        key.tab ||
        key.backspace ||
        key.delete ||
        key.ctrl ||
        key.meta ||
        key.upArrow ||
        key.downArrow ||
        key.leftArrow ||
        key.rightArrow ||
        key.pageUp ||
        key.pageDown ||
        key.home ||
        key.end;
    return input !== "" && !acts;
}

export function ReviewMenu<T>(props: ReviewMenuProps<T>): ReactElement {
    const { options, active, gate } = props;
    const theme = useTheme();
    const [state, setState] = useState<MenuState>(INITIAL_MENU_STATE);
    // Keys of one input string come before the next render: each reads where the last left.
    const stateRef = useRef(state);
    const guard = useGuardState(gate);
    const propsRef = useRef(props);
    propsRef.current = props;
    useInputKeys(
        (input, key) => {
            const p = propsRef.current;
            const owner = p.gate?.owner() ?? "review";
            // Keys that came several at once (a paste) are only ever text for the reason field.
            if (owner === "review-text" && !isPlainText(input, key)) return;
            if (owner !== "review" && owner !== "review-text") return;
            if (p.escapeTaken && key.escape) return;
            const result = menuKey(p.options, stateRef.current, input, key);
            stateRef.current = result.state;
            setState(result.state);
            p.gate?.setTextField(result.state.reason !== null);
            if (result.answer) p.onAnswer(result.answer.value);
        },
        { isActive: active }
    );
    return (
        <>
            {options.map((option, i) => {
                const selected = i === state.selected;
                const refusal = option.refusal !== undefined;
                const color = selected ? (refusal ? theme.error : theme.accent) : undefined;
                // The label wraps under itself, not under the number.
                return (
                    <Box key={i}>
                        <Text color={color} bold={selected}>
                            {selected ? "❯ " : "  "}
                            {i + 1}.{" "}
                        </Text>
                        <Box flexShrink={1}>
                            <Text wrap="wrap" color={color} bold={selected}>
                                {option.label(state.scope)}
                            </Text>
                        </Box>
                    </Box>
                );
            })}
            {state.reason !== null ? (
                <Text wrap="wrap">
                    <Text color={theme.dim}>what instead? </Text>
                    {state.reason}
                    <Text inverse> </Text>
                    <Text color={theme.dim}> {hintLine(options, state, guard)}</Text>
                </Text>
            ) : (
                <Text color={theme.dim} wrap="wrap">
                    {hintLine(options, state, guard)}
                </Text>
            )}
        </>
    );
}
