/**
 * The review waiting for the user, drawn by kind, with its keys: the App
 * renders this for the bridge's pending review only, so keys never reach a
 * resolved one. A decision resolves the review's promise (the bridge then
 * moves on to the next one).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { ReactElement } from "react";
import type { ApprovalDecision } from "../../agent/approvals";
import { type Ansi, createAnsi } from "../render/ansi";
import type { PendingReview } from "../review-types";
import { DiffReview } from "./diff-review";
import { LearningPrompt } from "./learning-prompt";
import { PickerReview } from "./picker-review";
import { PlanReview } from "./plan-review";
import { ShellReview } from "./shell-review";
import { TrustPrompt } from "./trust-prompt";

const PLAIN = createAnsi(false);

/** The spec's pending-review pulse: yellow → #ffff87 → #ffffaf → back, 600 ms a step. */
export const BORDER_PULSE_COLORS = ["yellow", "#ffff87", "#ffffaf", "#ffff87"] as const;
export const BORDER_PULSE_MS = 600;

/**
 * Keys pressed this soon after a review appears are ignored: they were meant
 * for the previous review (a double-tapped `y`) or typed ahead while the model
 * worked, and must not approve something the user has not seen.
 */
export const REVIEW_INPUT_GRACE_MS = 200;

export interface PendingReviewViewProps {
    review: PendingReview;
    /** Columns available. */
    width: number;
    /** Pulse the border (off above 100 transcript entries). */
    animate: boolean;
    /** Rows available; the diff is cut to fit (never past 100 lines). */
    height?: number;
    /** Where a command runs, when the App knows it. */
    cwd?: string;
    /** Default `REVIEW_INPUT_GRACE_MS`. */
    inputGraceMs?: number;
    /** Styles for Markdown (the plan); plain when not given. */
    ansi?: Ansi;
}

/** Cycles the pending border colour while `active`; the timer runs only then. */
function useBorderPulse(active: boolean): string {
    const [step, setStep] = useState(0);
    useEffect(() => {
        if (!active) {
            setStep(0);
            return;
        }
        const timer = setInterval(
            () => setStep((s) => (s + 1) % BORDER_PULSE_COLORS.length),
            BORDER_PULSE_MS
        );
        return () => clearInterval(timer);
    }, [active]);
    return BORDER_PULSE_COLORS[step] ?? "yellow";
}

/** Rows a diff review needs besides its body: borders, title, footer, total and file headers. */
function diffChrome(review: Extract<PendingReview, { kind: "write" }>): number {
    const files = review.request.diffs?.length ?? 0;
    return 2 + 1 + 1 + 1 + files + (files > 1 ? 1 : 0);
}

export function PendingReviewView(props: PendingReviewViewProps): ReactElement {
    const { review, width, animate, height, inputGraceMs = REVIEW_INPUT_GRACE_MS } = props;
    const borderColor = useBorderPulse(animate);
    const shown = useRef({ id: review.id, at: performance.now() });
    if (shown.current.id !== review.id) shown.current = { id: review.id, at: performance.now() };
    // One decision per review, whatever the key repeat rate, and none in the grace period.
    const decided = useRef<string | null>(null);
    const once = useCallback(
        <T,>(resolve: (value: T) => void) =>
            (value: T) => {
                if (decided.current === review.id) return;
                if (performance.now() - shown.current.at < inputGraceMs) return;
                decided.current = review.id;
                resolve(value);
            },
        [review.id, inputGraceMs]
    );

    switch (review.kind) {
        case "write": {
            const maxLines =
                height === undefined ? undefined : Math.max(3, height - diffChrome(review));
            return (
                <DiffReview
                    key={review.id}
                    summary={review.request.summary}
                    diffs={review.request.diffs ?? []}
                    protectedPaths={review.request.protectedPaths}
                    status="pending"
                    width={width}
                    borderColor={borderColor}
                    maxLines={maxLines === undefined ? undefined : Math.min(100, maxLines)}
                    active
                    onDecide={once<ApprovalDecision>(review.resolve)}
                />
            );
        }
        case "shell":
            return (
                <ShellReview
                    key={review.id}
                    command={review.request.command ?? review.request.summary}
                    cwd={props.cwd}
                    status="pending"
                    width={width}
                    borderColor={borderColor}
                    maxLines={height === undefined ? undefined : Math.max(1, height - 4)}
                    active
                    onDecide={once<ApprovalDecision>(review.resolve)}
                />
            );
        case "plan":
            return (
                <PlanReview
                    key={review.id}
                    plan={review.request.plan ?? review.request.summary}
                    status="pending"
                    width={width}
                    ansi={props.ansi ?? PLAIN}
                    borderColor={borderColor}
                    maxLines={height === undefined ? undefined : Math.max(3, height - 4)}
                    active
                    inputGraceMs={inputGraceMs}
                    onDecide={once<ApprovalDecision>(review.resolve)}
                />
            );
        case "trust":
            return (
                <TrustPrompt
                    key={review.id}
                    inventory={review.inventory}
                    width={width}
                    maxRows={height === undefined ? undefined : Math.max(1, height - 6)}
                    borderColor={borderColor}
                    active
                    onAnswer={once<boolean | null>(review.resolve)}
                />
            );
        case "learning":
            return (
                <LearningPrompt
                    key={review.id}
                    width={width}
                    borderColor={borderColor}
                    active
                    onAnswer={once<boolean | null>(review.resolve)}
                />
            );
        case "picker":
            return (
                <PickerReview
                    key={review.id}
                    title={review.title}
                    note={review.note}
                    options={review.options}
                    status="pending"
                    width={width}
                    borderColor={borderColor}
                    maxVisible={height === undefined ? undefined : Math.max(1, height - 6)}
                    active
                    onChoose={once<string | null>(review.resolve)}
                />
            );
    }
}
