/**
 * The shell review: the exact command (and where it runs), then the review
 * menu while pending (once / don't ask again for this command / for its
 * prefix, when it has one / no). A web fetch shows its URL and host (once /
 * this host for the session / no); an MCP tool call its call (once / this
 * tool / no).
 */
import { Text } from "ink";
import { memo, useMemo } from "react";
import type { ReactElement } from "react";
import stringWidth from "string-width";
import type { StandingOption } from "../../agent/approval-requirement";
import type { ApprovalDecision } from "../../agent/approvals";
import { sanitizeLine } from "./diff-review";
import type { KeyGate } from "../input/key-gate";
import { type ReviewBadge, ReviewFrame } from "./review-frame";
import { ReviewMenu } from "./review-menu";
import { approvalOptions } from "../../agent/approval-menu";
import { useTheme } from "../use-theme";

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
    /** The ask rule that made this review appear, shown under the command. */
    askRule?: string;
    /** Why no standing option is offered (the command writes protected files, or is always reviewed). */
    noStanding?: string;
    /** The standing answers the request offers (what each grants, where it is kept); absent: none. */
    standingOptions?: readonly StandingOption[];
    /** A web fetch's host: `command` is its URL; the standing answer allows the host for the session. */
    domain?: string;
    /** An MCP tool call (no command): the tool's name, which a standing answer allowlists. */
    toolName?: string;
    /** Listen for the menu's keys. */
    active?: boolean;
    /** The App's key gate (the review's keys count only while it gives them). */
    gate?: KeyGate;
    onDecide?: (decision: ApprovalDecision) => void;
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

function ShellReviewImpl(props: ShellReviewProps): ReactElement {
    const theme = useTheme();
    const { command, cwd, status, width, maxLines = COMMAND_MAX_LINES, active = false } = props;
    const { askRule, sandbox, domain, noStanding, standingOptions } = props;
    const pending = status === "pending";
    const { lines, hidden } = useMemo(() => {
        const all = command.replace(/\r\n?/g, "\n").split("\n").map(sanitizeLine);
        const rows = (cwd ? 1 : 0) + (sandbox ? 1 : 0) + (domain !== undefined ? 1 : 0);
        const limit = Math.max(1, maxLines - rows);
        return { lines: all.slice(0, limit), hidden: Math.max(0, all.length - limit) };
    }, [command, cwd, sandbox, domain, maxLines]);
    const badge = STATUS_BADGE[status];
    const mcp = props.toolName !== undefined && domain === undefined;
    const options = useMemo(
        () =>
            approvalOptions({
                kind: "shell",
                toolName: props.toolName ?? "",
                command: mcp ? undefined : command,
                domain,
                standingOptions,
            }),
        [props.toolName, mcp, command, domain, standingOptions]
    );
    return (
        <ReviewFrame
            width={width}
            badge={badge}
            borderColor={props.borderColor}
            title={
                <>
                    <Text color={theme.tool}>⚙ </Text>
                    {domain !== undefined
                        ? "Fetch this page?"
                        : mcp
                          ? "Call this tool?"
                          : "Run this command?"}
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
            {pending && noStanding !== undefined && noStanding !== askRule ? (
                <Text color={theme.dim} wrap="truncate-end">
                    asked every time: {sanitizeLine(noStanding)}
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

export const ShellReview = memo(ShellReviewImpl);
