/**
 * Parser and writer together: feed the assistant's text deltas, get display
 * text and file events. One instance should live as long as the session's
 * assistant turns, so a block cut off in one turn can be continued by a
 * `mode="append"` block in the next.
 */
import path from "node:path";
import type { PreparedWrite, ToolError, ToolResult } from "../types";
import type { FileBlockMode } from "./parser";
import { FileBlockParser } from "./parser";
import type { ResumeInfo, WriteSessionOptions } from "./writer";
import { FileWriteSession } from "./writer";

export type NorthFileEvent =
    | { type: "display_text"; text: string }
    /** A block opened; show "Writing path" instead of its content. */
    | { type: "file_started"; path: string; mode: FileBlockMode }
    /** More content went to the sidecar. */
    | { type: "file_progress"; path: string; linesWritten: number }
    /** The block closed: review `prepared` (apply() renames the sidecar over the target, discard() drops it). */
    | { type: "file_completed"; path: string; linesWritten: number; prepared: PreparedWrite }
    /** The stream ended inside the block; the sidecar stays, `resume` feeds a continuation. */
    | { type: "file_interrupted"; path: string; resume: ResumeInfo }
    /** The block could not be written (path outside the project, disk error, ...); nothing changed. */
    | { type: "file_error"; path: string; error: ToolError };

export class NorthFileStream {
    private readonly parser = new FileBlockParser();
    private active: FileWriteSession | null = null;
    private lastLines = -1;
    private readonly interrupted = new Map<string, FileWriteSession>();

    /** Calls run one after another even if the caller does not await each. */
    private queue: Promise<unknown> = Promise.resolve();

    constructor(
        private readonly repoRoot: string,
        private readonly options: WriteSessionOptions = {}
    ) {}

    /**
     * True when `chunk` cannot touch a block: the parser is idle and the chunk
     * has no "<". The caller may then show it as is and skip `push`, which
     * keeps long plain answers cheap.
     */
    canPassThrough(chunk: string): boolean {
        return this.active === null && this.parser.idle && !chunk.includes("<");
    }

    /** Feeds one text delta (any split); returns the events it completes. */
    push(chunk: string): Promise<NorthFileEvent[]> {
        return this.serial(() => this.process(chunk));
    }

    /** The stream ended (done, error or timeout); an open block becomes interrupted. */
    end(): Promise<NorthFileEvent[]> {
        return this.serial(() => this.finishStream());
    }

    private serial<T>(work: () => Promise<T>): Promise<T> {
        const next = this.queue.then(work);
        this.queue = next.catch(() => undefined);
        return next;
    }

    private async process(chunk: string): Promise<NorthFileEvent[]> {
        const out: NorthFileEvent[] = [];
        for (const event of this.parser.push(chunk)) {
            switch (event.type) {
                case "display_text":
                    out.push(event);
                    break;
                case "session_start":
                    out.push(...(await this.open(event.path, event.mode)));
                    break;
                case "session_content":
                    // A failed write ends the block at once; its remaining content is dropped.
                    if (this.active?.failed) out.push(...(await this.abortActive()));
                    if (this.active) {
                        this.active.write(event.text);
                        const lines = this.active.linesWritten;
                        if (lines !== this.lastLines) {
                            this.lastLines = lines;
                            out.push({
                                type: "file_progress",
                                path: this.active.relPath,
                                linesWritten: lines,
                            });
                        }
                    }
                    break;
                case "session_complete":
                    out.push(...(await this.finish()));
                    break;
                case "session_incomplete":
                    break;
            }
        }
        return out;
    }

    private async finishStream(): Promise<NorthFileEvent[]> {
        const out: NorthFileEvent[] = [];
        for (const event of this.parser.end()) {
            if (event.type === "display_text") out.push(event);
        }
        const session = this.active;
        this.active = null;
        if (session) {
            const resume = await session.interrupt();
            const flushed = await session.flush();
            if (!flushed.ok) {
                await session.discard();
                out.push({ type: "file_error", path: session.relPath, error: flushed.error });
            } else {
                this.interrupted.set(session.relPath, session);
                out.push({ type: "file_interrupted", path: session.relPath, resume });
            }
        }
        return out;
    }

    /** Ends the active block after a failed write: sidecar removed, the error reported. */
    private async abortActive(): Promise<NorthFileEvent[]> {
        const session = this.active;
        this.active = null;
        if (!session) return [];
        const flushed = await session.flush();
        await session.discard();
        return flushed.ok
            ? []
            : [{ type: "file_error", path: session.relPath, error: flushed.error }];
    }

    /** Sessions cut off and waiting for a `mode="append"` continuation. */
    pending(): ResumeInfo[] {
        return [...this.interrupted.values()].map((s) => s.getResumeInfo());
    }

    /** Drops every unfinished block (cancel): their sidecars go, no target was touched. */
    async discardUnfinished(): Promise<string[]> {
        const sessions = [...this.interrupted.values()];
        if (this.active) sessions.push(this.active);
        this.active = null;
        this.interrupted.clear();
        for (const session of sessions) await session.discard().catch(() => undefined);
        return sessions.map((s) => s.relPath);
    }

    /**
     * Stops waiting for a continuation (retries exhausted): the partial content
     * as a write to review, or null when no block for `relPath` was cut off.
     */
    async takePartial(relPath: string): Promise<ToolResult<PreparedWrite> | null> {
        return this.serial(async () => {
            const session = this.interrupted.get(relPath);
            if (!session) return null;
            this.interrupted.delete(relPath);
            return session.complete(true);
        });
    }

    private key(userPath: string): string {
        const abs = path.resolve(this.repoRoot, userPath);
        return path.relative(this.repoRoot, abs).split(path.sep).join("/");
    }

    private async open(userPath: string, mode: FileBlockMode): Promise<NorthFileEvent[]> {
        this.lastLines = -1;
        // A cut-off session for this path continues (append) or starts over (create)
        // in the same sidecar, compared with the same original.
        const previous = this.interrupted.get(this.key(userPath));
        if (previous) {
            this.interrupted.delete(previous.relPath);
            const resumed = mode === "append" ? await previous.resume() : await previous.restart();
            if (!resumed.ok) {
                await previous.discard();
                return this.fail(userPath, resumed.error);
            }
            this.active = previous;
            return [{ type: "file_started", path: previous.relPath, mode }];
        }
        const started = await FileWriteSession.start(this.repoRoot, userPath, mode, this.options);
        if (!started.ok) return this.fail(userPath, started.error);
        this.active = started.data;
        return [{ type: "file_started", path: started.data.relPath, mode }];
    }

    /** The block's content is then dropped: `active` stays null until it closes. */
    private fail(userPath: string, error: ToolError): NorthFileEvent[] {
        return [{ type: "file_error", path: userPath, error }];
    }

    private async finish(): Promise<NorthFileEvent[]> {
        const session = this.active;
        this.active = null;
        if (!session) return [];
        const linesWritten = session.linesWritten;
        const prepared = await session.complete();
        if (!prepared.ok)
            return [{ type: "file_error", path: session.relPath, error: prepared.error }];
        return [
            {
                type: "file_completed",
                path: session.relPath,
                linesWritten,
                prepared: prepared.data,
            },
        ];
    }
}
