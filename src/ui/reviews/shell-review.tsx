/**
 * The shell review: the exact command (and where it runs), with r run /
 * a always (this exact command) / p always its prefix rule (`npm test:*`,
 * when the command has one) / y auto all / d deny while pending. A web fetch
 * shows its URL and host: r fetch / a always this host (session) / d deny.
 */
import { Text, useInput } from "ink";
import { memo, useMemo } from "react";
import type { ReactElement } from "react";
import stringWidth from "string-width";
import type { ApprovalDecision } from "../../agent/approvals";
import { sanitizeLine } from "./diff-review";
import { type KeyHint, KeyHints, type ReviewBadge, ReviewFrame } from "./review-frame";
import { useTheme } from "../theme-context";

export type ShellReviewStatus = "pending" | "ran" | "always" | "auto" | "denied" | "cancelled";

/** Command lines shown before the rest is cut with an indicator. */
export const COMMAND_MAX_LINES = 40;

export interface ShellReviewProps {
    command: string;
    /** The directory it will start in, when known (one row, taken from `maxLines`). */
    cwd?: string;
    /** What the OS sandbox allows, when the command runs in one (one row). */
    sandbox?: string;
    status: ShellReviewStatus;
    /** Total columns, border included. */
    width: number;
    /** Border colour; the parent pulses it while pending. Defaults by status. */
    borderColor?: string;
    maxLines?: number;
    /** The prefix pattern `p` remembers (`npm test:*`); absent: no `p`. */
    prefixRule?: string;
    /** The ask rule that made this review appear, shown under the command. */
    askRule?: string;
    /** A web fetch's host: `command` is its URL; `a` allows the host for the session, no `y`. */
    domain?: string;
    /** Listen for r / a / p / y / d. */
    active?: boolean;
    onDecide?: (decision: ApprovalDecision) => void;
}

/** The decision a key stands for in a pending shell review, or null. */
export function shellReviewKey(
    input: string,
    prefixRule?: string,
    domain?: string
): ApprovalDecision | null {
    if (domain !== undefined && input === "y") return null;
    if (domain !== undefined && input === "d") {
        return { outcome: "deny", reason: "the user denied this fetch" };
    }
    switch (input) {
        case "r":
            return { outcome: "approve" };
        case "a":
            return { outcome: "approve", remember: "exact" };
        case "p":
            return prefixRule === undefined ? null : { outcome: "approve", remember: "prefix" };
        case "y":
            return { outcome: "approve", remember: "all" };
        case "d":
            return { outcome: "deny", reason: "the user denied this command" };
        default:
            return null;
    }
}

/** `text` cut at its start to `width` columns ("…/deep/folder"): a path's end matters most. */
export function truncateStart(text: string, width: number): string {
    if (stringWidth(text) <= width) return text;
    const chars = [...text];
    let out = "";
    let used = 1;
    for (let i = chars.length - 1; i >= 0; i--) {
        const w = stringWidth(chars[i] ?? "");
        if (used + w > width) break;
        out = (chars[i] ?? "") + out;
        used += w;
    }
    return `…${out}`;
}

const STATUS_BADGE: Record<ShellReviewStatus, ReviewBadge> = {
    pending: { text: "PENDING", color: "warning" },
    ran: { text: "✓ RAN", color: "success" },
    always: { text: "✓ ALWAYS", color: "success" },
    auto: { text: "✓ AUTO", color: "success" },
    denied: { text: "✗ DENIED", color: "error" },
    cancelled: { text: "✗ CANCELLED", color: "error" },
};

const SHELL_KEYS: readonly KeyHint[] = [
    { key: "r", label: "run", color: "success" },
    { key: "a", label: "always", color: "accent" },
    { key: "y", label: "auto all", color: "warning" },
    { key: "d", label: "deny", color: "error" },
];

function ShellReviewImpl(props: ShellReviewProps): ReactElement {
    const theme = useTheme();
    const { command, cwd, status, width, maxLines = COMMAND_MAX_LINES, active = false } = props;
    const { prefixRule, askRule, sandbox, domain } = props;
    const pending = status === "pending";
    const { lines, hidden } = useMemo(() => {
        const all = command.replace(/\r\n?/g, "\n").split("\n").map(sanitizeLine);
        const rows = (cwd ? 1 : 0) + (sandbox ? 1 : 0) + (domain !== undefined ? 1 : 0);
        const limit = Math.max(1, maxLines - rows);
        return { lines: all.slice(0, limit), hidden: Math.max(0, all.length - limit) };
    }, [command, cwd, sandbox, domain, maxLines]);
    useInput(
        (input) => {
            const decision = shellReviewKey(input, prefixRule, domain);
            if (decision) props.onDecide?.(decision);
        },
        { isActive: active && pending }
    );
    const badge = STATUS_BADGE[status];
    const hints = useMemo(
        () =>
            domain !== undefined
                ? [
                      { key: "r", label: "fetch", color: "success" as const },
                      {
                          key: "a",
                          label: `always ${sanitizeLine(domain)} (this session)`,
                          color: "accent" as const,
                      },
                      { key: "d", label: "deny", color: "error" as const },
                  ]
                : prefixRule === undefined
                  ? SHELL_KEYS
                  : [
                        ...SHELL_KEYS.slice(0, 2),
                        {
                            key: "p",
                            label: `always ${sanitizeLine(prefixRule)}`,
                            color: "accent" as const,
                        },
                        ...SHELL_KEYS.slice(2),
                    ],
        [prefixRule, domain]
    );
    return (
        <ReviewFrame
            width={width}
            badge={badge}
            borderColor={props.borderColor}
            title={
                <>
                    <Text color={theme.tool}>⚙ </Text>
                    {domain !== undefined ? "Fetch this page?" : "Run this command?"}
                </>
            }
        >
            {lines.map((line, i) => (
                <Text key={i} wrap="wrap">
                    <Text color={theme.tool}>
                        {i > 0 ? "  " : domain !== undefined ? "GET " : "$ "}
                    </Text>
                    {line}
                </Text>
            ))}
            {hidden > 0 ? (
                <Text color={theme.dim} italic>
                    … {hidden} more line{hidden === 1 ? "" : "s"} of this command not shown
                </Text>
            ) : null}
            {domain !== undefined ? (
                <Text wrap="truncate-end">
                    <Text color={theme.dim}>host </Text>
                    {sanitizeLine(domain)}
                </Text>
            ) : null}
            {cwd ? (
                <Text wrap="truncate-end">
                    <Text color={theme.dim}>in </Text>
                    {truncateStart(sanitizeLine(cwd), Math.max(1, width - 7))}
                </Text>
            ) : null}
            {sandbox ? (
                <Text color={theme.dim} wrap="truncate-end">
                    sandboxed: {sandbox}
                </Text>
            ) : null}
            {pending && askRule !== undefined ? (
                <Text color={theme.dim} wrap="truncate-end">
                    asked because of the rule {sanitizeLine(askRule)}
                </Text>
            ) : null}
            {pending ? <KeyHints hints={hints} /> : null}
        </ReviewFrame>
    );
}

export const ShellReview = memo(ShellReviewImpl);
