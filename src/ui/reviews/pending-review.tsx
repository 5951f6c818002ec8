/**
 * The review waiting for the user, drawn by kind, with its keys: the App
 * renders this for the bridge's pending review only, so keys never reach a
 * resolved one. A decision resolves the review's promise (the bridge then
 * moves on to the next one).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { ReactElement } from "react";
import type { ApprovalDecision } from "../../agent/approvals";
import { useReviewGate } from "../hooks/use-key-gate";
import type { ReviewPolicy } from "../input/key-gate";
import { type Ansi, createAnsi } from "../render/ansi";
import type { PendingReview } from "../review-types";
import { useTheme } from "../use-theme";
import { DiffReview } from "./diff-review";
import { ElicitationReview } from "./elicitation-review";
import { SamplingReview } from "./sampling-review";
import { LearningPrompt, learningPromptKey } from "./learning-prompt";
import { PickerReview } from "./picker-review";
import { PlanReview } from "./plan-review";
import { SecretReview } from "./secret-review";
import { ShellReview } from "./shell-review";
import { TrustPrompt } from "./trust-prompt";

const PLAIN = createAnsi(false);

/** The pending-review pulse (the theme's `pendingBorder`), 600 ms a step. */
export const BORDER_PULSE_MS = 600;

export interface PendingReviewViewProps {
    review: PendingReview;
    /** Columns available. */
    width: number;
    /** Pulse the border (off above 100 transcript entries). */
    animate: boolean;
    /** Rows available; the diff scrolls inside them. */
    height?: number;
    /** Rows the diff review's full-screen view (f) may take. */
    fullHeight?: number;
    /** Told when the diff review's full-screen view opens or closes. */
    onFullScreen?: (full: boolean) => void;
    /** Where a command runs, when the request does not say. */
    cwd?: string;
    /** Styles for Markdown (the plan); plain when not given. */
    ansi?: Ansi;
}

/** True when the review scrolls with PageUp/PageDown itself (the transcript does not then). */
export function reviewScrolls(review: PendingReview): boolean {
    return review.kind === "write" || review.kind === "plan";
}

/**
 * True when Esc answers the review (the menu's refusal, an MCP server's
 * question) rather than interrupting the run.
 */
export function reviewTakesEscape(review: PendingReview | null): boolean {
    return review !== null && review.kind !== "picker" && review.kind !== "learning";
}

/**
 * Cycles of the pulse before the border rests on its first colour: enough to
 * draw the eye to a new review; a review left waiting then costs no frames.
 */
export const BORDER_PULSE_CYCLES = 3;

/** Cycles the pending border colour while `active`, a few times; the timer runs only then. */
function useBorderPulse(active: boolean): string {
    const colors = useTheme().pendingBorder;
    const [step, setStep] = useState(0);
    useEffect(() => {
        if (!active) {
            setStep(0);
            return;
        }
        let steps = 0;
        const timer = setInterval(() => {
            steps++;
            if (steps >= BORDER_PULSE_CYCLES * colors.length) clearInterval(timer);
            setStep(steps % colors.length);
        }, BORDER_PULSE_MS);
        return () => clearInterval(timer);
    }, [active, colors]);
    return colors[step % colors.length] ?? colors[0] ?? "";
}

const isYesNoAnswer = (input: string): boolean =>
    learningPromptKey(input, { escape: input === "\x1b" }) !== undefined;

/**
 * Keys typed as a review appears never answer it: a review asking consent
 * guards itself (key-gate.ts); typing dismisses the learning question (asked
 * again next time); a picker the user opened takes keys at once.
 */
function keyPolicy(review: PendingReview): ReviewPolicy | undefined {
    if (review.kind === "learning")
        return { kind: "yield", isAnswer: isYesNoAnswer, onTyping: () => review.resolve(null) };
    // A picker the user opened keeps its keys.
    if (review.kind === "picker") return undefined;
    // An MCP server's form and a password field are guarded too; they take a paste as text.
    if (review.kind === "elicitation" || review.kind === "secret")
        return { kind: "guard", textField: true };
    return { kind: "guard" };
}

export function PendingReviewView(props: PendingReviewViewProps): ReactElement | null {
    const { review, width, animate, height } = props;
    const borderColor = useBorderPulse(animate);
    const gate = useReviewGate(review.id, keyPolicy(review));
    // A prompt is being written: the learning question waits for the next start.
    const skip = review.kind === "learning" && gate.composerHasText();
    useEffect(() => {
        if (skip && review.kind === "learning") review.resolve(null);
    }, [skip, review]);
    // One decision per review, whatever the key repeat rate.
    const decided = useRef<string | null>(null);
    const once = useCallback(
        <T,>(resolve: (value: T) => void) =>
            (value: T) => {
                if (decided.current === review.id || gate.owner() !== "review") return;
                decided.current = review.id;
                gate.decided();
                resolve(value);
            },
        [review.id, gate]
    );

    if (skip) return null;
    switch (review.kind) {
        case "write":
            return (
                <DiffReview
                    key={review.id}
                    summary={review.request.summary}
                    diffs={review.request.diffs ?? []}
                    protectedPaths={review.request.protectedPaths}
                    standingOptions={review.request.standingOptions}
                    askRule={review.request.askRule}
                    status="pending"
                    width={width}
                    borderColor={borderColor}
                    height={height === undefined ? undefined : Math.max(6, height)}
                    fullHeight={props.fullHeight}
                    onFullScreen={props.onFullScreen}
                    ansi={props.ansi}
                    active
                    gate={gate}
                    onDecide={once<ApprovalDecision>(review.resolve)}
                />
            );
        case "shell":
            return (
                <ShellReview
                    key={review.id}
                    command={review.request.command ?? review.request.summary}
                    cwd={
                        review.request.domain !== undefined
                            ? undefined
                            : (review.request.cwd ?? props.cwd)
                    }
                    sandbox={review.request.sandbox}
                    status="pending"
                    width={width}
                    borderColor={borderColor}
                    maxLines={height === undefined ? undefined : Math.max(1, height - 4)}
                    askRule={review.request.askRule}
                    noStanding={review.request.noStanding}
                    standingOptions={review.request.standingOptions}
                    domain={review.request.domain}
                    toolName={
                        review.request.command === undefined && review.request.domain === undefined
                            ? review.request.toolName
                            : undefined
                    }
                    active
                    gate={gate}
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
                    gate={gate}
                    onDecide={once<ApprovalDecision>(review.resolve)}
                />
            );
        case "trust":
            return (
                <TrustPrompt
                    key={review.id}
                    inventory={review.inventory}
                    width={width}
                    maxRows={height === undefined ? undefined : Math.max(1, height - 8)}
                    borderColor={borderColor}
                    active
                    gate={gate}
                    onAnswer={once<boolean>(review.resolve)}
                />
            );
        case "learning":
            return (
                <LearningPrompt
                    key={review.id}
                    width={width}
                    borderColor={borderColor}
                    active
                    gate={gate}
                    onAnswer={once<boolean | null>(review.resolve)}
                />
            );
        case "elicitation":
            return (
                <ElicitationReview
                    key={review.id}
                    request={review.request}
                    width={width}
                    borderColor={borderColor}
                    active
                    gate={gate}
                    onAnswer={once(review.resolve)}
                />
            );
        case "sampling":
            return (
                <SamplingReview
                    key={review.id}
                    request={review.request}
                    width={width}
                    borderColor={borderColor}
                    maxLines={height === undefined ? undefined : Math.max(2, height - 5)}
                    active
                    gate={gate}
                    onDecide={once<boolean | null>(review.resolve)}
                />
            );
        case "secret":
            return (
                <SecretReview
                    key={review.id}
                    process={review.process}
                    prompt={review.prompt}
                    width={width}
                    borderColor={borderColor}
                    active
                    gate={gate}
                    onAnswer={once<string | null>(review.resolve)}
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
                    gate={gate}
                    onChoose={once<string | null>(review.resolve)}
                />
            );
    }
}
