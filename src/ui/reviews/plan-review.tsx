/**
 * The plan review (plan mode): the model's plan as Markdown, with a accept /
 * r reject. Rejecting asks for feedback in a one-line input inside the
 * review: Enter sends it as the reason the model reads, Esc sends none.
 */
import { Text, useInput } from "ink";
import { memo, useMemo, useRef, useState } from "react";
import type { ReactElement } from "react";
import type { ApprovalDecision } from "../../agent/approvals";
import type { Ansi } from "../render/ansi";
import { renderMarkdown } from "../render/markdown";
import { sanitizeText } from "../render/sanitize";
import { sanitizeLine } from "./diff-review";
import { type KeyHint, KeyHints, type ReviewBadge, ReviewFrame } from "./review-frame";
import { useTheme } from "../theme-context";

export type PlanReviewStatus = "pending" | "accepted" | "rejected" | "cancelled";

/** Plan lines shown at once unless the parent gives fewer. */
export const PLAN_MAX_LINES = 40;

export interface PlanReviewProps {
    /** Markdown. */
    plan: string;
    status: PlanReviewStatus;
    /** Total columns, border included. */
    width: number;
    ansi: Ansi;
    borderColor?: string;
    maxLines?: number;
    active?: boolean;
    /** Keys this soon after the review appeared are ignored (they were typed ahead). */
    inputGraceMs?: number;
    onDecide?: (decision: ApprovalDecision) => void;
}

export type PlanInput = { phase: "choose" } | { phase: "feedback"; text: string };

/** The named keys of Ink's `useInput` this review reads. */
export interface PlanKey {
    return?: boolean;
    escape?: boolean;
    backspace?: boolean;
    delete?: boolean;
    upArrow?: boolean;
    downArrow?: boolean;
    pageUp?: boolean;
    pageDown?: boolean;
    home?: boolean;
    end?: boolean;
    ctrl?: boolean;
    meta?: boolean;
}

export interface PlanKeyResult {
    input: PlanInput;
    decision?: ApprovalDecision;
    /** Lines to scroll the plan by (±Infinity: to the top or the end). */
    scroll?: number;
    /** Pages to scroll the plan by. */
    pages?: number;
}

/** What one key does in a pending plan review. Pure. */
export function planReviewKey(state: PlanInput, text: string, key: PlanKey): PlanKeyResult {
    if (state.phase === "choose") {
        if (key.upArrow) return { input: state, scroll: -1 };
        if (key.downArrow) return { input: state, scroll: 1 };
        if (key.pageUp) return { input: state, pages: -1 };
        if (key.pageDown) return { input: state, pages: 1 };
        if (key.home) return { input: state, scroll: -Infinity };
        if (key.end) return { input: state, scroll: Infinity };
        if (text === "a") return { input: state, decision: { outcome: "approve" } };
        if (text === "r") return { input: { phase: "feedback", text: "" } };
        return { input: state };
    }
    if (key.return) {
        const reason = state.text.trim();
        return {
            input: state,
            decision: reason ? { outcome: "deny", reason } : { outcome: "deny" },
        };
    }
    if (key.escape) return { input: state, decision: { outcome: "deny" } };
    if (key.backspace || key.delete) {
        return { input: { phase: "feedback", text: [...state.text].slice(0, -1).join("") } };
    }
    if (key.ctrl || key.meta || key.upArrow || key.downArrow || text === "")
        return { input: state };
    const typed = text.replace(/[\r\n]+/g, " ");
    return { input: { phase: "feedback", text: state.text + typed } };
}

const STATUS_BADGE: Record<PlanReviewStatus, ReviewBadge> = {
    pending: { text: "PENDING", color: "warning" },
    accepted: { text: "✓ ACCEPTED", color: "success" },
    rejected: { text: "✗ REJECTED", color: "error" },
    cancelled: { text: "✗ CANCELLED", color: "error" },
};

const PLAN_KEYS: readonly KeyHint[] = [
    { key: "a", label: "accept", color: "success" },
    { key: "r", label: "reject with feedback", color: "error" },
];

function PlanReviewImpl(props: PlanReviewProps): ReactElement {
    const theme = useTheme();
    const { plan, status, width, ansi, active = false, inputGraceMs = 0 } = props;
    const pending = status === "pending";
    const inner = Math.max(1, width - 4);
    const lines = useMemo(
        () => renderMarkdown(sanitizeText(plan), inner, ansi),
        [plan, inner, ansi]
    );
    const [input, setInput] = useState<PlanInput>({ phase: "choose" });
    // Keys may come faster than renders: each reads the state the previous one left.
    const inputRef = useRef(input);
    const [offset, setOffset] = useState(0);
    const shownAt = useRef(performance.now());
    const feedback = input.phase === "feedback";
    // Two rows for the feedback input, one for the keys line.
    const room = Math.max(1, (props.maxLines ?? PLAN_MAX_LINES) - (feedback ? 2 : 0));
    const maxOffset = Math.max(0, lines.length - room);
    const top = Math.min(offset, maxOffset);
    useInput(
        (text, key) => {
            if (performance.now() - shownAt.current < inputGraceMs) return;
            const result = planReviewKey(inputRef.current, text, key);
            const scroll = (result.scroll ?? 0) + (result.pages ?? 0) * Math.max(1, room - 1);
            if (scroll) setOffset((o) => Math.max(0, Math.min(maxOffset, o + scroll)));
            if (result.input !== inputRef.current) {
                inputRef.current = result.input;
                setInput(result.input);
            }
            if (result.decision) props.onDecide?.(result.decision);
        },
        { isActive: active && pending }
    );
    const badge = STATUS_BADGE[status];
    const shown = lines.slice(top, top + room);
    const below = lines.length - top - shown.length;
    return (
        <ReviewFrame
            width={width}
            badge={badge}
            borderColor={props.borderColor}
            title={
                <>
                    <Text color={theme.accent}>◆ </Text>Proposed plan
                    {top > 0 ? <Text color={theme.dim}> (↑ {top} more)</Text> : null}
                </>
            }
        >
            {shown.map((line, i) => (
                <Text key={top + i} wrap="truncate-end">
                    {line}
                </Text>
            ))}
            {below > 0 ? (
                <Text color={theme.dim} italic>
                    … {below} more line{below === 1 ? "" : "s"} (↓ PgDn to scroll)
                </Text>
            ) : null}
            {pending && feedback ? (
                <>
                    <Text bold>What should change? (Enter sends, Esc rejects without comment)</Text>
                    <Text wrap="truncate-start">
                        <Text color={theme.accent}>❯ </Text>
                        {sanitizeLine(input.text)}
                        <Text inverse> </Text>
                    </Text>
                </>
            ) : null}
            {pending && !feedback ? <KeyHints hints={PLAN_KEYS} /> : null}
        </ReviewFrame>
    );
}

export const PlanReview = memo(PlanReviewImpl);
