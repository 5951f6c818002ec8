/**
 * The plan review (plan mode): the model's plan as Markdown (PgUp/PgDn,
 * Home/End scroll it), then the review menu: start on it, or keep planning
 * with feedback in a one-line field (Enter sends it as the reason the model
 * reads, Esc sends none).
 */
import { Text, useInput } from "ink";
import { memo, useMemo, useState } from "react";
import type { ReactElement } from "react";
import type { ApprovalDecision } from "../../agent/approvals";
import type { Ansi } from "../render/ansi";
import { renderMarkdown } from "../render/markdown";
import { sanitizeText } from "../render/sanitize";
import type { KeyGate } from "../input/key-gate";
import { type ReviewBadge, ReviewFrame } from "./review-frame";
import { ReviewMenu } from "./review-menu";
import { approvalOptions } from "../../agent/approval-menu";
import { useTheme } from "../use-theme";

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
    /** The App's key gate (the review's keys count only while it gives them). */
    gate?: KeyGate;
    onDecide?: (decision: ApprovalDecision) => void;
}

/** The named keys of Ink's `useInput` that scroll the plan. */
export interface PlanKey {
    pageUp?: boolean;
    pageDown?: boolean;
    home?: boolean;
    end?: boolean;
}

/** How a key scrolls the plan: lines (±Infinity: to the top or the end) or pages. Pure. */
export function planScrollKey(key: PlanKey): { scroll?: number; pages?: number } {
    if (key.pageUp) return { pages: -1 };
    if (key.pageDown) return { pages: 1 };
    if (key.home) return { scroll: -Infinity };
    if (key.end) return { scroll: Infinity };
    return {};
}

const STATUS_BADGE: Record<PlanReviewStatus, ReviewBadge> = {
    pending: { text: "PENDING", color: "warning" },
    accepted: { text: "✓ ACCEPTED", color: "success" },
    rejected: { text: "✗ REJECTED", color: "error" },
    cancelled: { text: "✗ CANCELLED", color: "error" },
};

function PlanReviewImpl(props: PlanReviewProps): ReactElement {
    const theme = useTheme();
    const { plan, status, width, ansi, active = false } = props;
    const pending = status === "pending";
    const inner = Math.max(1, width - 4);
    const lines = useMemo(
        () => renderMarkdown(sanitizeText(plan), inner, ansi),
        [plan, inner, ansi]
    );
    const [offset, setOffset] = useState(0);
    const options = useMemo(() => approvalOptions({ kind: "plan", toolName: "" }), []);
    // The menu's rows: its options, the feedback field and the hint line.
    const room = Math.max(1, (props.maxLines ?? PLAN_MAX_LINES) - (options.length + 1));
    const maxOffset = Math.max(0, lines.length - room);
    const top = Math.min(offset, maxOffset);
    useInput(
        (_text, key) => {
            if (props.gate && props.gate.owner() !== "review") return;
            const result = planScrollKey(key);
            const scroll = (result.scroll ?? 0) + (result.pages ?? 0) * Math.max(1, room - 1);
            if (scroll) setOffset((o) => Math.max(0, Math.min(maxOffset, o + scroll)));
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
                    … {below} more line{below === 1 ? "" : "s"} (PgDn to scroll)
                </Text>
            ) : null}
            {pending ? (
                <ReviewMenu
                    options={options}
                    active={active}
                    gate={props.gate}
                    onAnswer={(decision) => props.onDecide?.(decision)}
                />
            ) : null}
        </ReviewFrame>
    );
}

export const PlanReview = memo(PlanReviewImpl);
