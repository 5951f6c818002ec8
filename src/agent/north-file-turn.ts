import { NorthFileStream } from "../tools/north-file/stream";
import { continuationPrompt, type ResumeInfo } from "../tools/north-file/writer";
import type { PreparedWrite } from "../tools/types";
import type { EngineEvent } from "./events";

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

export { continuationPrompt };
