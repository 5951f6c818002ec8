import { NorthFileStream } from "../tools/north-file/stream";
import { continuationPrompt, type ResumeInfo } from "../tools/north-file/writer";
import type { PreparedWrite } from "../tools/types";
import type { EngineEvent } from "./events";
import { type ToolExecutorDeps, reviewPreparedWrite } from "./tool-executor";

/** At most this many automatic continuations of one cut-off NORTH_FILE block. */
export const MAX_NORTH_FILE_CONTINUATIONS = 3;

export interface NorthFileOutcome {
    completed: Array<{ path: string; linesWritten: number; prepared: PreparedWrite }>;
    interrupted: ResumeInfo[];
    errors: Array<{ path: string; message: string }>;
}

/**
 * Routes assistant text through the NORTH_FILE parser: plain text is shown,
 * block content goes to disk as it streams and is replaced on screen by
 * "Writing path (N lines)". Outcomes are collected for review after the turn.
 */
export class NorthFileRouter {
    private readonly stream: NorthFileStream;
    private readonly continuations = new Map<string, number>();
    private outcome: NorthFileOutcome = { completed: [], interrupted: [], errors: [] };

    constructor(repoRoot: string) {
        this.stream = new NorthFileStream(repoRoot);
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

    /** The run was cancelled: undo blocks that never completed. */
    async discardUnfinished(): Promise<string[]> {
        this.outcome = { completed: [], interrupted: [], errors: [] };
        return this.stream.discardUnfinished();
    }

    /** Counts a continuation for `path`; false once the limit is reached (the file is then abandoned). */
    allowContinuation(path: string): boolean {
        const used = this.continuations.get(path) ?? 0;
        if (used >= MAX_NORTH_FILE_CONTINUATIONS) {
            this.stream.abandon(path);
            this.continuations.delete(path);
            return false;
        }
        this.continuations.set(path, used + 1);
        return true;
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
                    this.outcome.errors.push({ path: event.path, message: event.error.message });
                    break;
            }
        }
    }
}

/**
 * After a model turn: reviews each completed NORTH_FILE block, reports
 * failures, and asks for the continuation of a cut-off block (at most 3
 * times). Returns the notes the model reads next.
 */
export async function settleNorthFiles(
    router: NorthFileRouter,
    turn: number,
    signal: AbortSignal,
    deps: Pick<ToolExecutorDeps, "approver" | "settings" | "logger" | "emit">
): Promise<string[]> {
    const outcome = await router.finish(deps.emit);
    const notes: string[] = [];
    let index = 0;
    for (const file of outcome.completed) {
        const result = await reviewPreparedWrite(
            file.prepared,
            {
                toolName: "north_file",
                toolCallId: `nf-${turn}-${index++}`,
                input: { path: file.path },
            },
            signal,
            deps
        );
        if (result.ok) {
            notes.push(
                `[North] NORTH_FILE ${file.path}: written (${file.linesWritten} lines) and accepted.`
            );
        } else if (result.error.code === "denied") {
            notes.push(
                `[North] NORTH_FILE ${file.path}: rejected (${result.error.message}); the file was restored to what it was before.`
            );
        } else notes.push(`[North] NORTH_FILE ${file.path}: not written: ${result.error.message}`);
    }
    for (const error of outcome.errors) {
        notes.push(
            `[North] NORTH_FILE ${error.path}: failed: ${error.message}. Nothing was written.`
        );
    }
    for (const resume of outcome.interrupted) {
        if (router.allowContinuation(resume.path)) notes.push(continuationPrompt(resume));
        else {
            const message = `NORTH_FILE ${resume.path} was cut off again after 3 continuations; the partial file (${resume.linesWritten} lines) was kept.`;
            deps.emit({ type: "warning", message });
            notes.push(`[North] ${message} Finish it with small edits instead.`);
        }
    }
    return notes;
}
