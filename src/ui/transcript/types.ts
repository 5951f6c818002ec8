/**
 * The transcript as the TUI shows it: a list of entries built from engine
 * events plus the App's own (the user's prompts, notices, resolved reviews).
 * Entries are immutable; every change makes a new object with a higher
 * `version`, so the line cache knows when to re-wrap.
 */

import type { KeptFileDiff } from "../render/diff-rows";
import type { ResolvedReview } from "../review-types";

interface EntryBase {
    /** Stable for the entry's life. */
    id: string;
    /** Bumped on every change of the entry. */
    version: number;
}

export interface UserEntry extends EntryBase {
    kind: "user";
    text: string;
    /** Files attached with @, repo-relative. */
    attachments: string[];
}

export interface AssistantEntry extends EntryBase {
    kind: "assistant";
    /** Markdown. */
    text: string;
    streaming: boolean;
    /** The run was cancelled while (or right after) this answer streamed. */
    cancelled: boolean;
}

export interface ThinkingEntry extends EntryBase {
    kind: "thinking";
    text: string;
    streaming: boolean;
    /** Shown whole; once the answer starts it folds to one line until expanded. */
    expanded: boolean;
    /** The latest entry that expands: the expand action (`app:toggleExpand`) acts on it. */
    toggles: boolean;
}

/** `not_run`: the run stopped at its turn cap before the call could run. */
export type ToolStatus = "running" | "done" | "failed" | "denied" | "cancelled" | "not_run";

export interface ToolEntry extends EntryBase {
    kind: "tool";
    /** The tool call id (or `file:PATH` for a NORTH_FILE block). */
    callId: string;
    name: string;
    /** "Reading a.ts", "Editing 2 files (+3/-1)". */
    title: string;
    status: ToolStatus;
    /** Extra lines under the title: an error, the tail of a command's output. */
    detail: string[];
    /** The end of the output so far while it runs (bounded), drawn live. */
    live?: string;
    /** When it started (ms since the epoch), for the elapsed time while it runs. */
    startedAt?: number;
    /** All the lines the result keeps, when there are more than `detail` shows. */
    fullDetail?: string[];
    expanded?: boolean;
    /** The latest entry that expands: the expand action (`app:toggleExpand`) acts on it. */
    toggles?: boolean;
    /**
     * Drawn before the engine's displays were known (a resumed conversation in
     * the first frame): the call's arguments and result details, to title it
     * once they are; dropped then.
     */
    untitled?: { input: unknown; details?: unknown };
    /** What the language servers say the call (an edit) introduced, drawn under its result. */
    diagnostics?: ToolDiagnostics;
    /**
     * The id of the review the call waits for: it has not started, so no
     * clock runs; the review's outcome then becomes `approval`.
     */
    awaiting?: string;
    /** The user's decision on the call, shown on its title line (an edit: with its diff). */
    approval?: ToolApproval;
}

/** A reviewed call's outcome as its entry shows it. */
export interface ToolApproval {
    /** As a review entry's status ("accepted", "ran", "denied"…). */
    status: string;
    summary: string;
    /** An accepted edit's diff (bounded). */
    diffs?: KeptFileDiff[];
}

/** An edit's diagnostics as the transcript draws them. */
export interface ToolDiagnostics {
    /** The servers had not answered yet. */
    pending: boolean;
    /** `path:line:col severity message (source code)`, coloured by severity. */
    lines: Array<{ severity: "error" | "warning"; text: string }>;
    /** Introduced beyond those listed. */
    more: number;
    fixed: number;
    /** False: the server had not reported on the files before the edit, so the lines may be older problems. */
    baselineKnown: boolean;
}

export interface ReviewEntry extends EntryBase {
    kind: "review";
    reviewKind: ResolvedReview["kind"];
    summary: string;
    /** "accepted", "always", "auto", "rejected", "ran", "denied", "selected", "cancelled". */
    status: string;
    /** An accepted edit's diff (bounded): a few lines, all of them when expanded. */
    diffs?: KeptFileDiff[];
    /** A plan's Markdown: whole when expanded (an accepted plan starts so). */
    plan?: string;
    expanded: boolean;
    /** The latest entry that expands: the expand action (`app:toggleExpand`) acts on it. */
    toggles: boolean;
}

export interface NoticeEntry extends EntryBase {
    kind: "notice";
    level: "info" | "warning" | "error";
    text: string;
}

/** A slash command and its result (blue ⚙). */
export interface CommandEntry extends EntryBase {
    kind: "command";
    command: string;
    result: string;
    /** The command failed (bad arguments, unknown alias…): its result is shown in red. */
    isError: boolean;
}

export type Entry =
    | UserEntry
    | AssistantEntry
    | ThinkingEntry
    | ToolEntry
    | ReviewEntry
    | NoticeEntry
    | CommandEntry;

/** True when the entry has more to show than its collapsed form. */
export function isExpandable(entry: Entry): boolean {
    switch (entry.kind) {
        case "review":
            return (entry.diffs?.length ?? 0) > 0 || Boolean(entry.plan);
        case "tool":
            return (
                (entry.fullDetail?.length ?? 0) > entry.detail.length ||
                (entry.approval?.diffs?.length ?? 0) > 0
            );
        case "thinking":
            return !entry.streaming && entry.text.trim() !== "";
        default:
            return false;
    }
}

/** True while an entry may still change (it is streaming or its tool is running). */
export function isEntryActive(entry: Entry): boolean {
    switch (entry.kind) {
        case "assistant":
        case "thinking":
            return entry.streaming;
        case "tool":
            return entry.status === "running";
        default:
            return false;
    }
}
