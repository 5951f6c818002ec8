/**
 * What the language servers say an applied edit introduced. The view before
 * the edit is taken while the review is open (the user's reading time hides
 * it); the view after, within a budget once the edit landed. The difference
 * goes into the edit's result for the model and out as a `diagnostics`
 * event. A server that is slow, fails or is missing never fails or blocks an
 * edit: past the budget the result says the diagnostics are pending, and a
 * late answer is still announced and handed to the model with its next tool
 * result.
 */
import {
    type IntroducedDiagnostics,
    formatDiagnostic,
    introducedDiagnostics,
} from "../tools/lsp/introduced";
import type { DiagnosticsView, LanguageService, LspDiagnostic } from "../tools/lsp/types";
import type { ToolResult } from "../tools/types";
import type { EngineEvent } from "./events";

/** Time from an applied edit to its diagnostics in the result; later they are pending. */
export const DIAGNOSTICS_BUDGET_MS = 5_000;
/** How long a pending answer is still awaited for the event and the model's next result. */
export const LATE_DIAGNOSTICS_MS = 60_000;
/** Beyond the service's own budget, before a view that never came counts as missing. */
const SERVICE_GRACE_MS = 1_000;
/** Introduced diagnostics listed in a result; the rest are counted. */
export const MAX_SHOWN_DIAGNOSTICS = 10;

/** What the model reads about an edit's diagnostics (`diagnostics` in the edit's result). */
export interface DiagnosticsNote {
    /** "1 error introduced, 2 fixed", "no new errors or warnings", or why they are pending. */
    summary: string;
    /** `path:line:col severity message (source code)`, by file, at most `MAX_SHOWN_DIAGNOSTICS`. */
    introduced?: string[];
    /** Introduced ones beyond those listed. */
    more?: number;
    /** What limits the list: the servers had not reported before the edit, or not all answered after it. */
    note?: string;
}

/** One file a write lands on, as the review resolved it. */
export interface DiagnosedTarget {
    /** Absolute real path. */
    realPath: string;
    /** The write creates it: it had no problems before. */
    isNew: boolean;
}

/** The edit's call, for the event and the late note. */
export interface DiagnosedEdit {
    toolCallId: string;
    /** Repo-relative paths, as the review showed them. */
    paths: readonly string[];
}

type Settled<T> =
    { kind: "done"; value: T } | { kind: "timeout" } | { kind: "aborted" } | { kind: "failed" };

/** `work`'s outcome, or a timeout after `ms`, or the abort of `signal`, whichever comes first. */
function settleWithin<T>(work: Promise<T>, ms: number, signal: AbortSignal): Promise<Settled<T>> {
    if (signal.aborted) return Promise.resolve({ kind: "aborted" });
    return new Promise((resolve) => {
        const timer = setTimeout(() => finish({ kind: "timeout" }), ms);
        const onAbort = (): void => finish({ kind: "aborted" });
        function finish(outcome: Settled<T>): void {
            clearTimeout(timer);
            signal.removeEventListener("abort", onAbort);
            resolve(outcome);
        }
        signal.addEventListener("abort", onAbort, { once: true });
        work.then(
            (value) => finish({ kind: "done", value }),
            () => finish({ kind: "failed" })
        );
    });
}

const EMPTY_VIEW: DiagnosticsView = { byPath: new Map(), text: new Map(), complete: true };

function plural(n: number, word: string): string {
    return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function summaryOf(found: IntroducedDiagnostics): string {
    const errors = found.introduced.filter((d) => d.severity === "error").length;
    const warnings = found.introduced.length - errors;
    const parts: string[] = [];
    if (errors > 0) parts.push(plural(errors, "error"));
    if (warnings > 0) parts.push(plural(warnings, "warning"));
    const fixed = found.fixed > 0 ? `; ${found.fixed} fixed` : "";
    if (parts.length === 0) return `no new errors or warnings${fixed}`;
    return `${parts.join(" and ")} introduced by this edit${fixed}`;
}

/** `d` with its path relative to `root` when inside it (events carry project paths). */
function relative(d: LspDiagnostic, root: string): LspDiagnostic {
    const prefix = root.endsWith("/") ? root : `${root}/`;
    return d.path.startsWith(prefix) ? { ...d, path: d.path.slice(prefix.length) } : d;
}

/** One line for NORTH_FILE notes and late notes: the summary, then the listed problems. */
export function diagnosticsText(note: DiagnosticsNote): string {
    const lines = [
        `Diagnostics: ${note.summary}${note.note ? ` (${note.note})` : ""}.`,
        ...(note.introduced ?? []),
    ];
    if (note.more) lines.push(`and ${note.more} more`);
    return lines.join("\n");
}

/** The diagnostics note of an applied write's data, if it has one. */
export function diagnosticsNoteOf(data: unknown): DiagnosticsNote | undefined {
    if (typeof data !== "object" || data === null) return undefined;
    const note = (data as { diagnostics?: DiagnosticsNote }).diagnostics;
    return typeof note?.summary === "string" ? note : undefined;
}

/** What one check needs from its session: the service, where paths are relative to, the budget, the late-note sink. */
interface CheckSetup {
    languages: LanguageService;
    repoRoot: string;
    budgetMs: number;
    addLateNote(text: string): void;
    /** A pending answer is awaited under `controller` until it comes or the run ends. */
    awaitLate(controller: AbortController): () => void;
}

/**
 * Diagnostics around edits for one session: starts checks, and keeps the
 * notes of answers that came after their edit's result for the model's next
 * tool result.
 */
export class EditDiagnostics {
    private readonly lateNotes: string[] = [];
    /** Pending answers still awaited in this run. */
    private readonly lateWaits = new Set<AbortController>();
    private readonly setup: CheckSetup;

    constructor(languages: LanguageService, repoRoot: string, budgetMs = DIAGNOSTICS_BUDGET_MS) {
        this.setup = {
            languages,
            repoRoot,
            budgetMs,
            addLateNote: (text) => this.lateNotes.push(text),
            awaitLate: (controller) => {
                this.lateWaits.add(controller);
                return () => this.lateWaits.delete(controller);
            },
        };
    }

    /**
     * Starts the view before the write for the targets a server handles (on
     * disk now; new files have none); null when no server handles any.
     */
    begin(targets: readonly DiagnosedTarget[], signal: AbortSignal): EditCheck | null {
        const handled = targets.filter((t) => {
            try {
                return this.setup.languages.handles(t.realPath);
            } catch {
                return false;
            }
        });
        if (handled.length === 0) return null;
        return new EditCheck(this.setup, handled, signal);
    }

    /** The same servers for a subagent: its late answers go to its own next results. */
    forChild(): EditDiagnostics {
        const { languages, repoRoot, budgetMs } = this.setup;
        return new EditDiagnostics(languages, repoRoot, budgetMs);
    }

    /** Notes of late answers, each once, for the next tool result. */
    takeLateNotes(): string[] {
        return this.lateNotes.splice(0);
    }

    /**
     * The run ended: answers still pending are no longer awaited (stream-json
     * ends a run with its result) and notes nobody will read are dropped.
     */
    endRun(): void {
        for (const controller of this.lateWaits) controller.abort();
        this.lateWaits.clear();
        this.lateNotes.length = 0;
    }
}

/** One write's check: the before view under way, then the after view and the comparison. */
export class EditCheck {
    /** Aborts the service calls when the write is refused or the run is cancelled. */
    private readonly controller = new AbortController();
    private readonly before: Promise<Settled<DiagnosticsView | null>>;
    private readonly unlink: () => void;

    constructor(
        private readonly setup: CheckSetup,
        private readonly targets: readonly DiagnosedTarget[],
        signal: AbortSignal
    ) {
        const abort = (): void => this.controller.abort();
        signal.addEventListener("abort", abort, { once: true });
        this.unlink = () => signal.removeEventListener("abort", abort);
        const existing = targets.filter((t) => !t.isNew).map((t) => t.realPath);
        const { budgetMs } = setup;
        this.before =
            existing.length === 0
                ? Promise.resolve({ kind: "done", value: EMPTY_VIEW })
                : settleWithin(
                      this.call(existing, budgetMs),
                      budgetMs + SERVICE_GRACE_MS,
                      this.controller.signal
                  );
    }

    /** The write will not happen: stop asking. */
    cancel(): void {
        this.controller.abort();
        this.unlink();
    }

    /**
     * Waits (bounded) for the view before the write, which must describe the
     * files as they are before it lands.
     */
    async beforeApply(): Promise<void> {
        await this.before;
    }

    /**
     * After the write landed: the after view within the budget, compared with
     * the before; `applied`'s data gains `diagnostics`. Never fails the write.
     */
    async afterApply(
        applied: ToolResult,
        edit: DiagnosedEdit,
        emit: (event: EngineEvent) => void
    ): Promise<ToolResult> {
        if (!applied.ok) {
            this.cancel();
            return applied;
        }
        const beforeOutcome = await this.before;
        const before = beforeOutcome.kind === "done" ? beforeOutcome.value : null;
        const { budgetMs } = this.setup;
        const paths = this.targets.map((t) => t.realPath);
        const afterCall = this.call(paths, LATE_DIAGNOSTICS_MS);
        const after = await settleWithin(afterCall, budgetMs, this.controller.signal);
        if (after.kind === "aborted") {
            this.unlink();
            return applied;
        }
        if (after.kind === "timeout") {
            this.announceLate(afterCall, before, edit, emit);
            emit({
                type: "diagnostics",
                toolCallId: edit.toolCallId,
                introduced: [],
                more: 0,
                fixed: 0,
                pending: true,
                baselineKnown: before?.complete === true,
            });
            const seconds = Math.round(budgetMs / 100) / 10;
            return withNote(applied, {
                summary: `diagnostics pending: the language server did not answer within ${seconds}s; if it answers, they come with a later tool result`,
            });
        }
        this.unlink();
        if (after.kind === "failed" || after.value === null) return applied;
        return withNote(applied, this.report(before, after.value, edit, emit));
    }

    private call(paths: readonly string[], budgetMs: number): Promise<DiagnosticsView | null> {
        try {
            return this.setup.languages.diagnostics(paths, {
                signal: this.controller.signal,
                budgetMs,
            });
        } catch (error) {
            return Promise.reject(error as Error);
        }
    }

    /** The comparison, told to front-ends; the note for the model. */
    private report(
        before: DiagnosticsView | null,
        after: DiagnosticsView,
        edit: DiagnosedEdit,
        emit: (event: EngineEvent) => void
    ): DiagnosticsNote {
        const { repoRoot } = this.setup;
        const baselineKnown = before?.complete === true;
        const found = introducedDiagnostics(
            before ?? EMPTY_VIEW,
            after,
            this.targets.map((t) => t.realPath)
        );
        const shown = found.introduced.slice(0, MAX_SHOWN_DIAGNOSTICS);
        const more = found.introduced.length - shown.length;
        emit({
            type: "diagnostics",
            toolCallId: edit.toolCallId,
            introduced: shown.map((d) => relative(d, repoRoot)),
            more,
            fixed: found.fixed,
            pending: false,
            baselineKnown,
        });
        const note: DiagnosticsNote = { summary: summaryOf(found) };
        if (shown.length > 0) note.introduced = shown.map((d) => formatDiagnostic(d, repoRoot));
        if (more > 0) note.more = more;
        const caveats: string[] = [];
        if (!baselineKnown && found.introduced.length > 0) {
            caveats.push(
                "the language server had not reported on the file before the edit, so these may include problems that were there already"
            );
        }
        // A server that crashed or did not start: its files' problems are unknown, not gone.
        if (!after.complete) caveats.push("not every language server answered after the edit");
        if (caveats.length > 0) note.note = caveats.join("; ");
        return note;
    }

    /** A pending answer: announced when it comes, and noted for the model's next result. */
    private announceLate(
        afterCall: Promise<DiagnosticsView | null>,
        before: DiagnosticsView | null,
        edit: DiagnosedEdit,
        emit: (event: EngineEvent) => void
    ): void {
        const done = this.setup.awaitLate(this.controller);
        void settleWithin(afterCall, LATE_DIAGNOSTICS_MS + SERVICE_GRACE_MS, this.controller.signal)
            .then((late) => {
                done();
                this.unlink();
                if (late.kind !== "done" || late.value === null) return;
                const note = this.report(before, late.value, edit, emit);
                this.setup.addLateNote(
                    `[North] The diagnostics of the earlier edit of ${edit.paths.join(", ")} (call ${edit.toolCallId}) came after its result. ${diagnosticsText(note)}`
                );
            })
            .catch(() => undefined);
    }
}

function withNote(applied: ToolResult, note: DiagnosticsNote): ToolResult {
    if (!applied.ok || typeof applied.data !== "object" || applied.data === null) return applied;
    return { ...applied, data: { ...applied.data, diagnostics: note } };
}
