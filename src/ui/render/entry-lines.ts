/**
 * One transcript entry → pre-wrapped ANSI lines. The first line starts with
 * the entry's glyph (❯ user, ● assistant, ⚡ tool, ⚙ command…); for entries
 * that animate, the viewport swaps that glyph per frame and keeps the rest.
 */
import stringWidth from "string-width";
import type {
    Entry,
    ReviewEntry,
    ThinkingEntry,
    ToolDiagnostics,
    ToolEntry,
} from "../transcript/types";
import type { Ansi } from "./ansi";
import { ansiRow, diffRows, wrapDiffRows } from "./diff-rows";
import { renderMarkdown, wrapLines } from "./markdown";
import { sanitizeText } from "./sanitize";

export interface RenderedEntry {
    lines: string[];
    /** Line 0 without its glyph, for animated glyphs. */
    firstBody: string;
}

/** Spinner frames (80 ms each) for a running tool. */
export const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
export const SPINNER_MS = 80;
/** The streaming pulse (the theme's `assistantPulse`), 500 ms a step. */
export const PULSE_MS = 500;

/** Columns the glyph takes, space included, per kind (⚡ is two columns wide). */
const GLYPH_WIDTH: Record<Entry["kind"], number> = {
    user: 2,
    assistant: 2,
    thinking: 2,
    tool: 3,
    review: 2,
    notice: 2,
    command: 3,
};

/** Cuts plain text to `width` columns, with "…" when cut. */
export function truncatePlain(text: string, width: number): string {
    if (stringWidth(text) <= width) return text;
    let out = "";
    let used = 0;
    for (const ch of text) {
        const w = stringWidth(ch);
        if (used + w > width - 1) break;
        out += ch;
        used += w;
    }
    return `${out}…`;
}

const pad = (glyph: string, width: number): string =>
    glyph + " ".repeat(Math.max(0, width - stringWidth(glyph)));

const REVIEW_LABELS: Record<string, string> = {
    accepted: "Accepted",
    always: "Always",
    auto: "Auto-approved",
    rejected: "Rejected",
    // The user's decision; whether the command then succeeded is its own entry's glyph.
    ran: "Approved",
    denied: "Denied",
    selected: "Selected",
    declined: "Declined",
    cancelled: "Cancelled",
    // A password went to the process (never shown, never kept).
    answered: "Answered",
};

/** A command's approval as the end of its line. */
const APPROVED_SUFFIXES: Record<string, string> = {
    ran: "approved",
    accepted: "approved",
    always: "approved, not asked again",
    auto: "approved, commands auto-approved",
};

const reviewOk = (entry: { status: string }): boolean =>
    !["rejected", "denied", "declined", "cancelled"].includes(entry.status);

/** Diff rows an accepted edit shows until it is expanded. */
export const COLLAPSED_DIFF_ROWS = 4;

/** The key that opens the transcript view (every entry in full), as fold hints name it. */
export const TRANSCRIPT_KEY = "Ctrl+O";

/** What a fold hint ends with: where the rest can be read. */
const READ_ALL = ` · ${TRANSCRIPT_KEY} transcript`;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** What a review keeps to read again: its diff (a few rows, or all) or its plan. */
function reviewDetail(
    entry: Pick<ReviewEntry, "diffs" | "plan" | "expanded" | "toggles">,
    width: number,
    ansi: Ansi
): string[] {
    const hint = (text: string): string[] => [ansi.dim(text)];
    if (entry.diffs && entry.diffs.length > 0) {
        const { rows: all, hidden } = diffRows(entry.diffs, Infinity, ansi);
        // One file: its header repeats the summary line.
        const rows = wrapDiffRows(entry.diffs.length === 1 ? all.slice(1) : all, width, ansi);
        if (entry.expanded) {
            const lines = rows.map((row) => ansiRow(row, ansi));
            return hidden > 0 ? [...lines, ...hint(`… ${hidden} more lines not kept`)] : lines;
        }
        // The first change and what follows it say the most in a few rows.
        const first = Math.max(
            0,
            rows.findIndex((row) => row.kind === "add" || row.kind === "remove")
        );
        const start = Math.max(0, Math.min(first, rows.length - COLLAPSED_DIFF_ROWS));
        const shown = rows.slice(start, start + COLLAPSED_DIFF_ROWS);
        const lines = shown.map((row) => ansiRow(row, ansi));
        const more = rows.length - shown.length + hidden;
        if (more === 0) return lines;
        return [...lines, ...hint(`… ${plural(more, "more line")} below${READ_ALL}`)];
    }
    if (entry.plan) {
        if (entry.expanded) {
            return renderMarkdown(sanitizeText(entry.plan), width, ansi);
        }
        const count = entry.plan.trim().split("\n").length;
        return hint(`… the plan (${plural(count, "line")})${READ_ALL}`);
    }
    return [];
}

/** Lines of a running command's output drawn live under its title. */
export const LIVE_OUTPUT_LINES = 5;

function thinkingLines(entry: ThinkingEntry, width: number, ansi: Ansi): string[] {
    const text = sanitizeText(entry.text).trim();
    const style = (line: string): string => ansi.dim(ansi.italic(line));
    if (entry.streaming || entry.expanded) {
        return text.split("\n").flatMap((line) => wrapLines(style(line), width));
    }
    // Folded once the answer started: one line, the rest a key away.
    const count = text === "" ? 0 : text.split("\n").length;
    const first = (text.split("\n")[0] ?? "").trim();
    const note = ` (${plural(count, "line")} of thinking${READ_ALL})`;
    const room = Math.max(1, width - stringWidth(note));
    return [style(truncatePlain(first, room)) + ansi.dim(note)];
}

/** A review's outcome as one line: "Accepted: Creating a.ts (+1 −0)". */
function reviewLine(
    review: { status: string; summary: string },
    width: number,
    ansi: Ansi
): string {
    const label = REVIEW_LABELS[review.status] ?? review.status;
    const summary = sanitizeText(review.summary).replace(/\s+/g, " ");
    const text = truncatePlain(`${label}: ${summary}`, width);
    return reviewOk(review) ? text : ansi.dim(text);
}

/**
 * The first lines of a call: its title (or, for a reviewed edit, the review's
 * outcome and diff), what it waits for, and a command's approval on its line.
 */
function toolHead(entry: ToolEntry, width: number, ansi: Ansi): string[] {
    const clean = sanitizeText;
    const { approval } = entry;
    if (approval?.diffs) {
        const head = [
            reviewLine(approval, width, ansi),
            ...reviewDetail(
                { ...approval, expanded: entry.expanded ?? false, toggles: entry.toggles ?? false },
                width,
                ansi
            ),
        ];
        // An accepted edit that then failed says why under its diff.
        if (entry.status === "failed") head.push(...wrapLines(clean(entry.title), width));
        return head;
    }
    const quiet = entry.status === "denied" || entry.status === "cancelled";
    const status = quiet ? ansi.dim(` (${entry.status})`) : "";
    const title =
        entry.status === "failed" ? clean(entry.title) : ansi.fg("dim", clean(entry.title));
    if (entry.awaiting !== undefined && !approval) {
        return wrapLines(title + ansi.dim(" · waiting for your review"), width);
    }
    if (approval && reviewOk(approval)) {
        const label = APPROVED_SUFFIXES[approval.status] ?? approval.status;
        return wrapLines(`${title}${status}${ansi.dim(` · ${label}`)}`, width);
    }
    const head = wrapLines(title + status, width);
    if (approval) head.push(reviewLine(approval, width, ansi));
    return head;
}

function toolLines(entry: ToolEntry, width: number, ansi: Ansi): string[] {
    const clean = sanitizeText;
    const lines = toolHead(entry, width, ansi);
    if (entry.status === "running" && entry.live) {
        // The last lines as they come; the finished result replaces them.
        const live = clean(entry.live).replace(/\s+$/, "").split("\n").slice(-LIVE_OUTPUT_LINES);
        for (const line of live) lines.push(ansi.dim(truncatePlain(line, width)));
        return lines;
    }
    const full = entry.expanded && entry.fullDetail ? entry.fullDetail : entry.detail;
    const fold = entry.expanded ? null : foldOf(entry.detail, entry.fullDetail);
    full.forEach((raw, index) => {
        if (fold && index === fold.at) lines.push(ansi.dim(fold.hint));
        const line = clean(raw);
        const color = entry.status === "failed" ? ansi.fg("error", line) : ansi.dim(line);
        lines.push(...wrapLines(color, width, false));
    });
    if (fold && fold.at >= full.length) lines.push(ansi.dim(fold.hint));
    if (entry.diagnostics) lines.push(...diagnosticLines(entry.diagnostics, width, ansi));
    return lines;
}

/**
 * Where a folded result's hidden lines are and the hint that says so: a
 * tail (a command's last lines, after its status line) hides the lines
 * above it, so the hint goes on top of the tail; a head hides those below.
 * `at` is the index in `shown` before which the hint is drawn.
 */
export function foldOf(
    shown: readonly string[],
    full: readonly string[] | undefined
): { at: number; hint: string } | null {
    const hidden = (full?.length ?? 0) - shown.length;
    if (!full || hidden <= 0) return null;
    let head = 0;
    while (head < shown.length && shown[head] === full[head]) head++;
    if (head === shown.length) {
        return { at: shown.length, hint: `… ${plural(hidden, "more line")} below${READ_ALL}` };
    }
    return { at: head, hint: `… ${plural(hidden, "earlier line")} above${READ_ALL}` };
}

/** An edit's diagnostics under its result: each introduced problem in its severity's colour. */
function diagnosticLines(shown: ToolDiagnostics, width: number, ansi: Ansi): string[] {
    if (shown.pending) return [ansi.dim("… diagnostics pending (the language server is slow)")];
    const lines: string[] = [];
    for (const line of shown.lines) {
        const text = sanitizeText(line.text);
        lines.push(...wrapLines(ansi.fg(line.severity, text), width, false));
    }
    if (shown.more > 0) lines.push(ansi.dim(`and ${shown.more} more`));
    if (!shown.baselineKnown && shown.lines.length > 0) {
        lines.push(ansi.dim("(the language server had not checked the file before the edit)"));
    }
    if (shown.fixed > 0) {
        const fixed = `${shown.fixed} problem${shown.fixed === 1 ? "" : "s"} fixed`;
        lines.push(ansi.fg("success", fixed));
    }
    return lines;
}

function toolGlyph(entry: ToolEntry, ansi: Ansi): string {
    // A reviewed edit's line is its review's outcome: it takes the review's mark once written.
    if (entry.approval?.diffs && entry.status === "done") {
        return ansi.fg("success", "✓");
    }
    switch (entry.status) {
        case "failed":
            return ansi.fg("error", "✗");
        case "denied":
        case "cancelled":
        case "not_run":
            return ansi.dim("⊘");
        default:
            return ansi.fg("toolRunning", "⚡");
    }
}

/**
 * The glyph of an entry's first line, padded to its column width. `frame`
 * (a counter) animates streaming and running entries; undefined: still.
 */
export function entryGlyph(entry: Entry, ansi: Ansi, frame?: number): string {
    const width = GLYPH_WIDTH[entry.kind];
    let glyph: string;
    switch (entry.kind) {
        case "user":
            glyph = ansi.bold(ansi.fg("user", "❯"));
            break;
        case "assistant":
        case "thinking": {
            const symbol = entry.kind === "assistant" ? "●" : "∴";
            if (frame !== undefined && entry.streaming) {
                const pulse = ansi.theme.assistantPulse;
                glyph = ansi.hex(pulse[frame % pulse.length] ?? ansi.theme.assistant, symbol);
            } else
                glyph =
                    entry.kind === "assistant" ? ansi.fg("assistant", symbol) : ansi.dim(symbol);
            break;
        }
        case "tool":
            glyph =
                frame !== undefined && entry.status === "running"
                    ? ansi.fg("toolRunning", SPINNER_FRAMES[frame % SPINNER_FRAMES.length] ?? "⠋")
                    : toolGlyph(entry, ansi);
            break;
        case "review":
            glyph = reviewOk(entry)
                ? entry.reviewKind === "shell"
                    ? ansi.dim("✓")
                    : ansi.fg("success", "✓")
                : entry.status === "cancelled"
                  ? ansi.dim("⊘")
                  : ansi.fg("error", "✗");
            break;
        case "notice":
            glyph =
                entry.level === "error"
                    ? ansi.fg("error", "✗")
                    : entry.level === "warning"
                      ? ansi.fg("warning", "!")
                      : ansi.dim("·");
            break;
        case "command":
            glyph = entry.isError ? ansi.fg("error", "⚙") : ansi.fg("tool", "⚙");
            break;
    }
    return pad(glyph, width);
}

function bodyLines(entry: Entry, width: number, ansi: Ansi): string[] {
    const clean = sanitizeText;
    switch (entry.kind) {
        case "user": {
            const lines = clean(entry.text)
                .split("\n")
                .flatMap((line) => wrapLines(line, width));
            if (entry.attachments.length > 0) {
                const names = entry.attachments.join(", ");
                lines.push(...wrapLines(ansi.dim(`📎 ${names}`), width));
            }
            return lines;
        }
        case "assistant": {
            const lines = renderMarkdown(clean(entry.text), width, ansi);
            if (lines.length === 0) lines.push(entry.streaming ? ansi.dim("…") : "");
            if (entry.cancelled) lines.push(ansi.fg("warning", "[Cancelled]"));
            return lines;
        }
        case "thinking":
            return thinkingLines(entry, width, ansi);
        case "tool":
            return toolLines(entry, width, ansi);
        case "review":
            return [reviewLine(entry, width, ansi), ...reviewDetail(entry, width, ansi)];
        case "notice": {
            const style =
                entry.level === "error"
                    ? (t: string) => ansi.fg("error", t)
                    : entry.level === "warning"
                      ? (t: string) => ansi.fg("warning", t)
                      : (t: string) => ansi.dim(t);
            return clean(entry.text)
                .split("\n")
                .flatMap((line) => wrapLines(style(line), width));
        }
        case "command": {
            const lines = wrapLines(ansi.bold(clean(entry.command)), width);
            const style = entry.isError
                ? (t: string) => ansi.fg("error", t)
                : (t: string) => ansi.dim(t);
            for (const line of clean(entry.result).split("\n")) {
                if (line !== "") lines.push(...wrapLines(style(line), width, false));
            }
            return lines;
        }
    }
}

/** Renders an entry for a transcript `width` columns wide. */
export function renderEntry(entry: Entry, width: number, ansi: Ansi): RenderedEntry {
    const glyphWidth = GLYPH_WIDTH[entry.kind];
    const body = bodyLines(entry, Math.max(1, width - glyphWidth), ansi);
    if (body.length === 0) body.push("");
    const indent = " ".repeat(glyphWidth);
    const glyph = entryGlyph(entry, ansi);
    const firstBody = body[0] ?? "";
    return {
        lines: body.map((line, i) => (i === 0 ? glyph + line : indent + line)),
        firstBody,
    };
}

/** A blank line between entries, except inside a run of tool lines and reviews. */
export function gapBetween(previous: Entry, next: Entry): boolean {
    const compact = (e: Entry) => e.kind === "tool" || e.kind === "review";
    return !(compact(previous) && compact(next));
}
