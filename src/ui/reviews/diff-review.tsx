/**
 * The write review: a coloured unified diff of every file an edit would
 * change, with per-file and total +/− stats, truncated past `maxLines`, and
 * the a / y / r keys while pending.
 */
import { Text, useInput } from "ink";
import { memo, useMemo } from "react";
import type { ReactElement } from "react";
import type { ApprovalDecision } from "../../agent/approvals";
import type { FileDiff } from "../../tools/types";
import { type KeyHint, KeyHints, type ReviewBadge, ReviewFrame } from "./review-frame";

export type DiffReviewStatus = "pending" | "accepted" | "always" | "rejected" | "cancelled";

/** Diff lines shown before the rest is cut with an indicator (the spec's limit). */
export const DIFF_MAX_LINES = 100;

export interface DiffReviewProps {
    /** "Editing src/a.ts", "Creating b.ts", "Editing 3 files". */
    summary: string;
    diffs: readonly FileDiff[];
    status: DiffReviewStatus;
    /** Total columns, border included. */
    width: number;
    /** Border colour; the parent pulses it while pending. Defaults by status. */
    borderColor?: string;
    /** Diff body lines shown at most (default 100). */
    maxLines?: number;
    /** Listen for a / y / r. */
    active?: boolean;
    /** Paths that are protected configuration: one note line (taken from `maxLines`). */
    protectedPaths?: readonly string[];
    onDecide?: (decision: ApprovalDecision) => void;
}

/** The decision a key stands for in a pending write review, or null. */
export function diffReviewKey(input: string): ApprovalDecision | null {
    switch (input) {
        case "a":
            return { outcome: "approve" };
        case "y":
            return { outcome: "approve", remember: "all" };
        case "r":
            return { outcome: "deny", reason: "the user rejected this edit; nothing was written" };
        default:
            return null;
    }
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** One display line: tabs expanded, control characters (escape sequences too) made visible. */
export function sanitizeLine(line: string): string {
    return line.replace(/\t/g, "    ").replace(CONTROL, "\ufffd");
}

export interface DiffLine {
    text: string;
    color?: string;
    dim?: boolean;
    bold?: boolean;
}

export interface RenderedDiff {
    lines: DiffLine[];
    /** Body lines not shown. */
    hidden: number;
    added: number;
    removed: number;
}

function lineColor(line: string): DiffLine {
    if (line.startsWith("@@")) return { text: line, color: "cyan" };
    if (line.startsWith("+")) return { text: line, color: "green" };
    if (line.startsWith("-")) return { text: line, color: "red" };
    if (line.startsWith("\\")) return { text: line, dim: true };
    return { text: line };
}

/** The body of one file diff: the `---`/`+++` header dropped (the path is shown above it). */
function bodyLines(diff: string): string[] {
    const lines = diff.split("\n");
    if (lines.at(-1) === "") lines.pop();
    let start = 0;
    if (lines[0]?.startsWith("--- ") && lines[1]?.startsWith("+++ ")) start = 2;
    return lines.slice(start);
}

export function stats(added: number, removed: number): string {
    return `+${added} −${removed}`;
}

/** Precomputes the coloured lines once per diff (not per animation frame). */
export function renderDiff(diffs: readonly FileDiff[], maxLines = DIFF_MAX_LINES): RenderedDiff {
    const lines: DiffLine[] = [];
    let budget = Math.max(0, maxLines);
    let hidden = 0;
    let added = 0;
    let removed = 0;
    for (const file of diffs) {
        added += file.linesAdded;
        removed += file.linesRemoved;
        const body = bodyLines(file.diff);
        const label = `${sanitizeLine(file.path)}${file.isNewFile ? " (new file)" : ""}`;
        if (budget === 0) {
            hidden += body.length;
            continue;
        }
        lines.push({
            text: `${label}  ${stats(file.linesAdded, file.linesRemoved)}`,
            bold: true,
        });
        const shown = body.slice(0, budget);
        budget -= shown.length;
        hidden += body.length - shown.length;
        for (const line of shown) lines.push(lineColor(sanitizeLine(line)));
    }
    return { lines, hidden, added, removed };
}

const STATUS_BADGE: Record<DiffReviewStatus, ReviewBadge> = {
    pending: { text: "PENDING", color: "yellow" },
    accepted: { text: "✓ ACCEPTED", color: "green" },
    always: { text: "✓ ALWAYS", color: "cyan" },
    rejected: { text: "✗ REJECTED", color: "red" },
    cancelled: { text: "✗ CANCELLED", color: "red" },
};

const DIFF_KEYS: readonly KeyHint[] = [
    { key: "a", label: "accept", color: "green" },
    { key: "y", label: "always", color: "cyan" },
    { key: "r", label: "reject", color: "red" },
];

function DiffReviewImpl(props: DiffReviewProps): ReactElement {
    const { summary, diffs, status, width, maxLines = DIFF_MAX_LINES, active = false } = props;
    const guarded = props.protectedPaths ?? [];
    const bodyLines = guarded.length > 0 ? Math.max(1, maxLines - 1) : maxLines;
    const rendered = useMemo(() => renderDiff(diffs, bodyLines), [diffs, bodyLines]);
    const pending = status === "pending";
    useInput(
        (input) => {
            const decision = diffReviewKey(input);
            if (decision) props.onDecide?.(decision);
        },
        { isActive: active && pending }
    );
    const badge = STATUS_BADGE[status];
    return (
        <ReviewFrame
            width={width}
            badge={badge}
            borderColor={props.borderColor}
            title={
                <>
                    <Text color="yellow">✎ </Text>
                    {sanitizeLine(summary)}
                    <Text dimColor>
                        {"  "}
                        {diffs.length > 1
                            ? `${stats(rendered.added, rendered.removed)} in ${diffs.length} files`
                            : stats(rendered.added, rendered.removed)}
                    </Text>
                </>
            }
        >
            {guarded.length > 0 ? (
                <Text color="yellow" wrap="truncate-end">
                    ⚠ protected: {guarded.map(sanitizeLine).join(", ")} (can run commands or grant
                    approvals; always asked)
                </Text>
            ) : null}
            {rendered.lines.map((line, i) => (
                <Text
                    key={i}
                    color={line.color}
                    dimColor={line.dim}
                    bold={line.bold}
                    wrap="truncate-end"
                >
                    {line.text === "" ? " " : line.text}
                </Text>
            ))}
            {rendered.hidden > 0 ? (
                <Text dimColor italic wrap="truncate-end">
                    … {rendered.hidden} more diff line{rendered.hidden === 1 ? "" : "s"} not shown
                    (truncated)
                </Text>
            ) : null}
            {diffs.length > 1 ? (
                <Text bold wrap="truncate-end">
                    Total {stats(rendered.added, rendered.removed)}
                </Text>
            ) : null}
            {pending ? <KeyHints hints={DIFF_KEYS} /> : null}
        </ReviewFrame>
    );
}

export const DiffReview = memo(DiffReviewImpl);
