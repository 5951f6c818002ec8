/**
 * The command picker (e.g. `/model` without an argument): typing narrows
 * the list (Backspace widens it), Up/Down move, Enter selects the
 * highlighted option, Esc cancels. Long lists scroll within a window.
 */
import { Text } from "ink";
import { memo, useMemo, useRef, useState } from "react";
import type { ReactElement } from "react";
import { useGuardState } from "../hooks/use-key-gate";
import { useInputKeys } from "../hooks/use-raw-input";
import type { KeyGate } from "../input/key-gate";
import { sanitizeLine } from "./diff-review";
import { filterOptions } from "./picker-filter";
import { type ReviewBadge, ReviewFrame } from "./review-frame";
import { useTheme } from "../use-theme";

/** Shown once Enter chooses (tests wait for it, as for the review menu's "Enter to choose"). */
export const PICKER_READY_HINT = "↑/↓ move · Enter select · Esc cancel";

export type PickerReviewStatus = "pending" | "selected" | "cancelled";

export interface PickerReviewOption {
    id: string;
    label: string;
    hint?: string;
}

export interface PickerReviewProps {
    title: string;
    /** Lines under the title (what choosing entails). */
    note?: string;
    options: readonly PickerReviewOption[];
    status: PickerReviewStatus;
    /** Total columns, border included. */
    width: number;
    /** Options visible at once (default 10). */
    maxVisible?: number;
    /** Index highlighted first. */
    initialIndex?: number;
    borderColor?: string;
    /** Listen for Up / Down / Enter / Esc. */
    active?: boolean;
    /** The App's key gate: "Enter select" shows once Enter would choose (not a bounce of the Enter that opened it). */
    gate?: KeyGate;
    /** The chosen option's id, or null when cancelled. */
    onChoose?: (id: string | null) => void;
}

const STATUS_BADGE: Record<PickerReviewStatus, ReviewBadge> = {
    pending: { text: "PENDING", color: "warning" },
    selected: { text: "✓ SELECTED", color: "success" },
    cancelled: { text: "✗ CANCELLED", color: "error" },
};

/** First visible index so that `selected` stays inside a window of `size`. */
export function windowStart(selected: number, count: number, size: number): number {
    if (count <= size) return 0;
    const half = Math.floor(size / 2);
    return Math.min(Math.max(0, selected - half), count - size);
}

function PickerReviewImpl(props: PickerReviewProps): ReactElement {
    const theme = useTheme();
    const { title, options, status, width, maxVisible = 10, active = false } = props;
    const pending = status === "pending";
    const [query, setQuery] = useState("");
    const shown = useMemo(() => filterOptions(options, query), [options, query]);
    const last = Math.max(0, shown.length - 1);
    const [selected, setSelected] = useState(() =>
        Math.min(Math.max(0, props.initialIndex ?? 0), Math.max(0, options.length - 1))
    );
    // Keys of one input string come before any render: each must see where the last one left.
    const selectedRef = useRef(selected);
    const queryRef = useRef(query);
    const index = Math.min(selected, last);
    const move = (to: number): void => {
        selectedRef.current = to;
        setSelected(to);
    };
    const filter = (next: string): void => {
        queryRef.current = next;
        setQuery(next);
        // The best match is highlighted; with the filter cleared, the first option.
        move(0);
    };
    useInputKeys(
        (input, key) => {
            if (key.upArrow || key.downArrow || key.return) {
                // Read live: a key typed in the same input string may have narrowed the list.
                const matches = filterOptions(options, queryRef.current);
                const end = Math.max(0, matches.length - 1);
                const at = Math.min(selectedRef.current, end);
                if (key.upArrow) move(Math.max(0, at - 1));
                else if (key.downArrow) move(Math.min(end, at + 1));
                else {
                    const option = matches[at];
                    if (option) props.onChoose?.(option.id);
                }
            } else if (key.escape) props.onChoose?.(null);
            else if (key.backspace || key.delete) {
                if (queryRef.current !== "") filter([...queryRef.current].slice(0, -1).join(""));
            } else if (
                !key.ctrl &&
                !key.meta &&
                !key.tab &&
                input !== "" &&
                !/[\p{Cc}]/u.test(input)
            ) {
                filter(queryRef.current + input);
            }
        },
        { isActive: active && pending }
    );
    const guard = useGuardState(props.gate);
    const takesEnter = guard.state === "open" && !guard.settling;
    const size = Math.max(1, maxVisible);
    const start = windowStart(index, shown.length, size);
    const visible = shown.slice(start, start + size);
    const badge = STATUS_BADGE[status];
    return (
        <ReviewFrame
            width={width}
            badge={badge}
            borderColor={props.borderColor}
            title={sanitizeLine(title)}
        >
            {props.note?.split("\n").map((line, i) => (
                <Text key={`note-${i}`} color={theme.warning} wrap="wrap">
                    {sanitizeLine(line)}
                </Text>
            ))}
            {query !== "" ? (
                <Text wrap="truncate-end">
                    <Text color={theme.accent}>filter: </Text>
                    {sanitizeLine(query)}
                    <Text color={theme.dim}>
                        {" "}
                        · {shown.length} of {options.length} · Backspace widens
                    </Text>
                </Text>
            ) : null}
            {start > 0 ? <Text color={theme.dim}>↑ {start} more</Text> : null}
            {visible.map((option, i) => {
                const current = start + i === index;
                return (
                    <Text key={option.id} wrap="truncate-end">
                        <Text color={current ? theme.accent : undefined} bold={current}>
                            {current ? "› " : "  "}
                            {sanitizeLine(option.label)}
                        </Text>
                        {option.hint ? (
                            <Text color={theme.dim}> {sanitizeLine(option.hint)}</Text>
                        ) : null}
                    </Text>
                );
            })}
            {start + size < shown.length ? (
                <Text color={theme.dim}>↓ {shown.length - start - size} more</Text>
            ) : null}
            {options.length === 0 ? <Text color={theme.dim}>(nothing to choose from)</Text> : null}
            {options.length > 0 && shown.length === 0 ? (
                <Text color={theme.dim}>(nothing matches)</Text>
            ) : null}
            {pending ? (
                <Text color={theme.dim} wrap="wrap">
                    {takesEnter ? PICKER_READY_HINT : "↑/↓ move · Esc cancel"}
                    {options.length > 1 ? " · type to filter" : ""}
                </Text>
            ) : null}
        </ReviewFrame>
    );
}

export const PickerReview = memo(PickerReviewImpl);
