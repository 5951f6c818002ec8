import { NorthFileStream } from "../tools/north-file/stream";
import {
    continuationPrompt,
    type ResumeInfo,
    type WriteSessionOptions,
} from "../tools/north-file/writer";
import type { PreparedWrite, ToolResult } from "../tools/types";
import type { EngineEvent } from "./events";
import { type WriteReviewDeps, reviewPreparedWrite } from "./write-review";
import { diagnosticsNoteOf, diagnosticsText } from "./edit-diagnostics";

/** At most this many automatic continuations of one cut-off NORTH_FILE block. */
export const MAX_NORTH_FILE_CONTINUATIONS = 3;

export interface NorthFileOutcome {
    completed: Array<{ path: string; linesWritten: number; prepared: PreparedWrite }>;
    interrupted: ResumeInfo[];
    errors: Array<{ path: string; message: string }>;
}

/**
 * Routes assistant text through the NORTH_FILE parser: plain text is shown,
 * block content goes to a sidecar as it streams (the target is untouched until
 * the review accepts it) and is replaced on screen by "Writing path (N lines)".
 * Outcomes are collected for review after the turn.
 */
export class NorthFileRouter {
    private readonly stream: NorthFileStream;
    private readonly continuations = new Map<string, number>();
    private outcome: NorthFileOutcome = { completed: [], interrupted: [], errors: [] };

    constructor(repoRoot: string, options: WriteSessionOptions = {}) {
        this.stream = new NorthFileStream(repoRoot, options);
    }

    /** Feeds one text delta; emits what the user should see. */
    async feed(text: string, emit: (event: EngineEvent) => void): Promise<void> {
        if (this.stream.canPassThrough(text)) {
            emit({ type: "text_delta", text });
            return;
        }
        this.handle(await this.stream.push(text), emit);
    }

    /** The model turn's stream ended; returns everything that needs an answer. */
    async finish(emit: (event: EngineEvent) => void): Promise<NorthFileOutcome> {
        this.handle(await this.stream.end(), emit);
        const outcome = this.outcome;
        this.outcome = { completed: [], interrupted: [], errors: [] };
        return outcome;
    }

    /**
     * The answer failed and will be retried: its completed blocks are dropped
     * unreviewed (sidecars removed); cut-off ones wait for the retried answer.
     */
    async dropTurn(): Promise<void> {
        const outcome = await this.finish(() => undefined);
        for (const file of outcome.completed) await file.prepared.discard?.();
    }

    /** The run was cancelled: drop blocks that never completed. */
    async discardUnfinished(): Promise<string[]> {
        this.outcome = { completed: [], interrupted: [], errors: [] };
        return this.stream.discardUnfinished();
    }

    /** Counts a continuation for `path`; false once the limit is reached (see takePartial). */
    allowContinuation(path: string): boolean {
        const used = this.continuations.get(path) ?? 0;
        if (used >= MAX_NORTH_FILE_CONTINUATIONS) {
            this.continuations.delete(path);
            return false;
        }
        this.continuations.set(path, used + 1);
        return true;
    }

    /** The partial content of a block given up on, as a write to review (null if none is waiting). */
    takePartial(path: string): Promise<ToolResult<PreparedWrite> | null> {
        return this.stream.takePartial(path);
    }

    private handle(
        events: Awaited<ReturnType<NorthFileStream["push"]>>,
        emit: (event: EngineEvent) => void
    ): void {
        for (const event of events) {
            switch (event.type) {
                case "display_text":
                    emit({ type: "text_delta", text: event.text });
                    break;
                case "file_started":
                    emit({
                        type: "file_write",
                        path: event.path,
                        linesWritten: 0,
                        status: "writing",
                    });
                    break;
                case "file_progress":
                    emit({
                        type: "file_write",
                        path: event.path,
                        linesWritten: event.linesWritten,
                        status: "writing",
                    });
                    break;
                case "file_completed":
                    this.continuations.delete(event.path);
                    emit({
                        type: "file_write",
                        path: event.path,
                        linesWritten: event.linesWritten,
                        status: "written",
                    });
                    this.outcome.completed.push({
                        path: event.path,
                        linesWritten: event.linesWritten,
                        prepared: event.prepared,
                    });
                    break;
                case "file_interrupted":
                    emit({
                        type: "file_write",
                        path: event.path,
                        linesWritten: event.resume.linesWritten,
                        status: "interrupted",
                    });
                    this.outcome.interrupted.push(event.resume);
                    break;
                case "file_error":
                    emit({
                        type: "file_write",
                        path: event.path,
                        linesWritten: 0,
                        status: "error",
                    });
                    emit({
                        type: "warning",
                        message: `NORTH_FILE ${event.path}: ${sentence(event.error.message)} Nothing was written.`,
                    });
                    this.outcome.errors.push({ path: event.path, message: event.error.message });
                    break;
            }
        }
    }
}

/**
 * After a model turn: reviews each completed NORTH_FILE block, reports
 * failures, and asks for the continuation of a cut-off block (at most 3
 * times, then its partial content goes to review). Returns the notes the
 * model reads next.
 */
export async function settleNorthFiles(
    router: NorthFileRouter,
    turn: number,
    signal: AbortSignal,
    deps: WriteReviewDeps
): Promise<string[]> {
    const outcome = await router.finish(deps.emit);
    const notes: string[] = [];
    let index = 0;
    const review = (prepared: PreparedWrite, path: string, partial: boolean) =>
        reviewPreparedWrite(
            prepared,
            {
                toolName: "north_file",
                toolCallId: `nf-${turn}-${index++}`,
                input: partial ? { path, partial: true } : { path },
            },
            signal,
            deps
        );
    for (const file of outcome.completed) {
        const result = await review(file.prepared, file.path, false);
        if (result.ok) {
            notes.push(
                `[North] NORTH_FILE ${file.path}: written (${file.linesWritten} lines) and accepted.${diagnosticsSuffix(result.data)}`
            );
        } else if (result.error.code === "denied") {
            notes.push(
                `[North] NORTH_FILE ${file.path}: rejected (${result.error.message}); nothing was written, the file is as it was before.`
            );
        } else notes.push(`[North] NORTH_FILE ${file.path}: not written: ${result.error.message}`);
    }
    for (const error of outcome.errors) {
        notes.push(
            `[North] NORTH_FILE ${error.path}: failed: ${sentence(error.message)} Nothing was written.`
        );
    }
    for (const resume of outcome.interrupted) {
        if (router.allowContinuation(resume.path)) {
            notes.push(continuationPrompt(resume));
            continue;
        }
        const cutOff = `NORTH_FILE ${resume.path} was cut off again after ${MAX_NORTH_FILE_CONTINUATIONS} continuations`;
        const lines = `${resume.linesWritten} lines`;
        deps.emit({
            type: "warning",
            message: `${cutOff}; its partial content (${lines}) goes to review.`,
        });
        const partial = await router.takePartial(resume.path);
        if (!partial) continue;
        if (!partial.ok) {
            notes.push(
                `[North] ${cutOff}: ${sentence(partial.error.message)} Nothing was written.`
            );
            continue;
        }
        const result = await review(partial.data, resume.path, true);
        if (result.ok) {
            notes.push(
                `[North] ${cutOff}; its partial content (${lines}) was written and accepted. Check how it ends and finish it with small edits.${diagnosticsSuffix(result.data)}`
            );
        } else if (result.error.code === "denied") {
            notes.push(
                `[North] ${cutOff}; its partial content (${lines}) was rejected (${result.error.message}) and not written: ${resume.path} is as it was before. Write it in smaller pieces.`
            );
        } else {
            notes.push(
                `[North] ${cutOff}; its partial content was not written: ${result.error.message}`
            );
        }
    }
    return notes;
}

/** A run that did not succeed: blocks that never completed are undone, and the user is told. */
export async function undoUnfinishedNorthFiles(
    router: NorthFileRouter,
    emit: (event: EngineEvent) => void
): Promise<void> {
    const undone = await router.discardUnfinished();
    if (undone.length > 0) {
        emit({
            type: "warning",
            message: `unfinished NORTH_FILE writes undone: ${undone.join(", ")}`,
        });
    }
}

/** What the language servers said about a written block, on the lines after its note. */
function diagnosticsSuffix(data: unknown): string {
    const note = diagnosticsNoteOf(data);
    return note ? `\n${diagnosticsText(note)}` : "";
}

/** `text` ending with a full stop, so a following sentence reads right. */
function sentence(text: string): string {
    return /[.!?]$/.test(text.trimEnd()) ? text.trimEnd() : `${text.trimEnd()}.`;
}
