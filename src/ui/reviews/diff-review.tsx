/**
 * The write review: every file an edit would change, as a coloured diff with
 * old/new line numbers and per-file and total +/− stats, and the review menu
 * while pending (↑↓ are the menu's). The diff scrolls inside the review
 * (PgUp/PgDn, Home/End); past 100 lines the rest is in the full-screen view (f).
 */
import { Text, useInput } from "ink";
import { memo, useEffect, useMemo, useRef, useState } from "react";
import type { ReactElement } from "react";
import type { StandingOption } from "../../agent/approval-requirement";
import type { ApprovalDecision } from "../../agent/approvals";
import type { FileDiff } from "../../tools/types";
import {
    type DiffRow,
    diffRows,
    rowStyle,
    sanitizeLine,
    stats,
    wrapDiffRows,
} from "../render/diff-rows";
import type { Ansi } from "../render/ansi";
import { highlighterGeneration } from "../render/highlight";
import type { KeyGate } from "../input/key-gate";
import type { ThemeColor } from "../theme";
import { useTheme } from "../use-theme";
import { type ReviewBadge, ReviewFrame } from "./review-frame";
import { ReviewMenu, reviewMenuRows } from "./review-menu";
import { approvalOptions } from "../../agent/approval-menu";

export { sanitizeLine, stats };

export type DiffReviewStatus = "pending" | "accepted" | "always" | "rejected" | "cancelled";

/** Diff lines the review holds before the rest is left to the full-screen view (the spec's limit). */
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
    /** Rows the review may take, border included; the diff scrolls inside. Default: no limit. */
    height?: number;
    /** Rows of the full-screen view (f). Default: `height`. */
    fullHeight?: number;
    /** Listen for the menu's and the scroll keys. */
    active?: boolean;
    /** The App's key gate (the review's keys count only while it gives them). */
    gate?: KeyGate;
    /** Paths that are protected configuration: one note line above the diff. */
    protectedPaths?: readonly string[];
    /** The standing answers the request offers (none for protected configuration); absent: none. */
    standingOptions?: readonly StandingOption[];
    /** The ask rule that made this review appear (auto-accept did not count): one note line. */
    askRule?: string;
    onDecide?: (decision: ApprovalDecision) => void;
    /** Told when the full-screen view opens or closes (the parent gives it the screen). */
    onFullScreen?: (full: boolean) => void;
    /** Styles for the diff's code (syntax, changed words); rows coloured by kind only when absent. */
    ansi?: Ansi;
}

/** The named keys of Ink's `useInput` the review reads to move around. */
export interface DiffNavKey {
    upArrow?: boolean;
    downArrow?: boolean;
    pageUp?: boolean;
    pageDown?: boolean;
    home?: boolean;
    end?: boolean;
    escape?: boolean;
}

export type DiffNav =
    "up" | "down" | "pageUp" | "pageDown" | "home" | "end" | "toggleFull" | "exitFull";

/** What a key does to the view of a pending write review, or null (↑↓ move the menu). Pure. */
export function diffNavKey(input: string, key: DiffNavKey): DiffNav | null {
    if (key.pageUp) return "pageUp";
    if (key.pageDown) return "pageDown";
    if (key.home) return "home";
    if (key.end) return "end";
    if (key.escape) return "exitFull";
    if (input === "f") return "toggleFull";
    return null;
}

/** The first row shown after `nav`, for `total` rows in a window of `room`. Pure. */
export function scrolledTop(top: number, nav: DiffNav, total: number, room: number): number {
    const max = Math.max(0, total - room);
    const page = Math.max(1, room - 1);
    const next =
        nav === "up"
            ? top - 1
            : nav === "down"
              ? top + 1
              : nav === "pageUp"
                ? top - page
                : nav === "pageDown"
                  ? top + page
                  : nav === "home"
                    ? 0
                    : nav === "end"
                      ? max
                      : top;
    return Math.max(0, Math.min(max, next));
}

export interface RenderedDiff {
    lines: Array<{ text: string; color?: ThemeColor; bold?: boolean }>;
    /** Body lines not shown. */
    hidden: number;
    added: number;
    removed: number;
}

/** The lines of `diffs` (numbers included) as drawn, at most `maxLines` body lines. */
export function renderDiff(diffs: readonly FileDiff[], maxLines = DIFF_MAX_LINES): RenderedDiff {
    const { rows, hidden, added, removed } = diffRows(diffs, maxLines);
    return {
        lines: rows.map((row) => ({ text: row.gutter + row.text, ...rowStyle(row.kind) })),
        hidden,
        added,
        removed,
    };
}

const STATUS_BADGE: Record<DiffReviewStatus, ReviewBadge> = {
    pending: { text: "PENDING", color: "warning" },
    accepted: { text: "✓ ACCEPTED", color: "success" },
    always: { text: "✓ ALWAYS", color: "accent" },
    rejected: { text: "✗ REJECTED", color: "error" },
    cancelled: { text: "✗ CANCELLED", color: "error" },
};

function RowLine({ row }: { row: DiffRow }): ReactElement {
    const style = rowStyle(row.kind);
    const theme = useTheme();
    return (
        <Text wrap="truncate-end">
            <Text color={theme.dim}>{row.gutter}</Text>
            {row.styled !== undefined && row.styled !== "" ? (
                <Text>{row.styled}</Text>
            ) : (
                <Text color={style.color && theme[style.color]} bold={style.bold}>
                    {row.text === "" ? " " : row.text}
                </Text>
            )}
        </Text>
    );
}

function DiffReviewImpl(props: DiffReviewProps): ReactElement {
    const { summary, diffs, status, width, active = false, onFullScreen } = props;
    const theme = useTheme();
    const guarded = props.protectedPaths ?? [];
    const pending = status === "pending";
    const inner = Math.max(1, width - 4);
    const [full, setFull] = useState(false);
    const fullRef = useRef(full);
    const ansi = props.ansi;
    // The grammars may arrive while the review is up: its rows are coloured again then.
    const grammars = highlighterGeneration();
    const rendered = useMemo(() => {
        // A pending review scrolls through every row, so its position line is the one count;
        // a settled one shows the first lines and says how many more there are.
        const all = diffRows(diffs, full || pending ? Infinity : DIFF_MAX_LINES, ansi);
        return { ...all, rows: wrapDiffRows(all.rows, inner, ansi) };
    }, [diffs, full, pending, inner, ansi, grammars]);
    const boxHeight = full ? (props.fullHeight ?? props.height) : props.height;
    const options = useMemo(
        () =>
            approvalOptions({
                kind: "write",
                toolName: "",
                standingOptions: props.standingOptions,
            }),
        [props.standingOptions]
    );
    const keys = pending ? reviewMenuRows(options, inner) : 0;
    const fixed =
        2 + // border
        1 + // title
        (guarded.length > 0 ? 1 : 0) +
        (pending && props.askRule !== undefined ? 1 : 0) +
        (diffs.length > 1 ? 1 : 0) +
        (rendered.hidden > 0 ? 1 : 0) +
        keys;
    const total = rendered.rows.length;
    let room = boxHeight === undefined ? total : Math.max(1, boxHeight - fixed);
    // The position line is needed only when the diff does not fit.
    const navLine = pending && (full || total > room || rendered.hidden > 0);
    if (navLine && boxHeight !== undefined) room = Math.max(1, room - 1);
    const [top, setTop] = useState(0);
    const topRef = useRef(top);
    const shownTop = Math.min(top, Math.max(0, total - room));
    topRef.current = shownTop;
    const geometry = useRef({ total, room });
    geometry.current = { total, room };

    useEffect(() => {
        onFullScreen?.(full);
    }, [full, onFullScreen]);
    useEffect(() => () => onFullScreen?.(false), [onFullScreen]);

    useInput(
        (input, key) => {
            if (props.gate && props.gate.owner() !== "review") return;
            const nav = diffNavKey(input, key);
            if (nav === null) return;
            if (nav === "toggleFull" || nav === "exitFull") {
                const next = nav === "toggleFull" ? !fullRef.current : false;
                if (next === fullRef.current) return;
                fullRef.current = next;
                setFull(next);
                return;
            }
            // Keys of one chunk come faster than renders: each reads where the last one left.
            const { total: rows, room: shown } = geometry.current;
            const next = scrolledTop(topRef.current, nav, rows, shown);
            topRef.current = next;
            setTop(next);
        },
        { isActive: active && pending }
    );

    const badge = STATUS_BADGE[status];
    const visible = rendered.rows.slice(shownTop, shownTop + room);
    const last = Math.min(total, shownTop + room);
    return (
        <ReviewFrame
            width={width}
            badge={badge}
            borderColor={props.borderColor}
            title={
                <>
                    <Text color={theme.warning}>✎ </Text>
                    {sanitizeLine(summary)}
                    <Text color={theme.dim}>
                        {"  "}
                        {diffs.length > 1
                            ? `${stats(rendered.added, rendered.removed)} in ${diffs.length} files`
                            : stats(rendered.added, rendered.removed)}
                    </Text>
                </>
            }
        >
            {guarded.length > 0 ? (
                <Text color={theme.warning} wrap="truncate-end">
                    ⚠ protected: {guarded.map(sanitizeLine).join(", ")} (can run commands or grant
                    approvals; always asked)
                </Text>
            ) : null}
            {pending && props.askRule !== undefined ? (
                <Text color={theme.dim} wrap="truncate-end">
                    asked because of the rule {sanitizeLine(props.askRule)}
                </Text>
            ) : null}
            {visible.map((row, i) => (
                <RowLine key={shownTop + i} row={row} />
            ))}
            {rendered.hidden > 0 ? (
                <Text color={theme.dim} italic wrap="truncate-end">
                    … {rendered.hidden} more diff line{rendered.hidden === 1 ? "" : "s"} not shown
                    here{pending ? " (f: full screen)" : ""}
                </Text>
            ) : null}
            {diffs.length > 1 ? (
                <Text bold wrap="truncate-end">
                    Total {stats(rendered.added, rendered.removed)}
                </Text>
            ) : null}
            {navLine ? (
                <Text color={theme.dim} wrap="truncate-end">
                    rows {total === 0 ? 0 : shownTop + 1}–{last} of {total} · f{" "}
                    {full ? "back (or Esc)" : "full screen"} · PgUp PgDn Home End scroll
                </Text>
            ) : null}
            {pending ? (
                <ReviewMenu
                    options={options}
                    active={active}
                    gate={props.gate}
                    escapeTaken={full}
                    onAnswer={(decision) => props.onDecide?.(decision)}
                />
            ) : null}
        </ReviewFrame>
    );
}

export const DiffReview = memo(DiffReviewImpl);
