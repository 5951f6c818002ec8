import { closeSync, fsyncSync } from "node:fs";
import type { ConversationEvent, StoredEntry } from "./format";
import { upsertIfNewer, updateIndex, type IndexRecord } from "./index-file";
import { writeAll } from "../../util/atomic-write";
import type { FirstPromptOf, LoadedConversation } from "./replay";

export type AppendResult = { ok: true } | { ok: false; error: string };

/** An open, append-only conversation log. */
export interface ConversationLog {
    readonly id: string;
    /** Absolute path of `<id>.jsonl`. */
    readonly path: string;
    /**
     * Writes one JSON line (with `ts`) straight to the file before returning, so a
     * `kill -9` right after loses nothing. Never throws: a failed write is returned.
     */
    append(event: ConversationEvent): AppendResult;
    /** An entry id no process has used in this log (`mN`, continuing the log's numbering). */
    newEntryId(): string;
    /** Writes the index entry, closes the file and releases the conversation. Does not append `conversation_ended`. */
    close(): void;
}

/** What a log writer starts from: the log as it stands. */
export interface LogWriterState {
    /** Its `logBytes` is the current size. */
    record: IndexRecord;
    /** Ids of the transcript's entries, in order. */
    entryIds: Iterable<string>;
    /** The highest `mN` id in the log. */
    entrySeq: number;
    /** Releases the one-writer lock (called by `close`). */
    release: () => void;
}

export interface LogWriterDeps {
    indexPath: string;
    now: () => number;
    firstPromptOf: FirstPromptOf;
    /** The index is rewritten at most this often while streaming (user entries force it). */
    indexIntervalMs: number;
}

const MAX_PROMPT_CHARS = 500;

export function clipPrompt(prompt: string | null | undefined): string | null {
    if (prompt === null || prompt === undefined) return null;
    const text = prompt.trim();
    if (text === "") return null;
    return text.length > MAX_PROMPT_CHARS ? text.slice(0, MAX_PROMPT_CHARS) : text;
}

/** The index record for a replayed conversation whose log is `logBytes` long. */
export function recordOf(conv: LoadedConversation, logBytes: number): IndexRecord {
    return {
        id: conv.id,
        repoRoot: conv.repoRoot,
        repoHash: conv.repoHash,
        model: conv.model,
        firstPrompt: clipPrompt(conv.firstPrompt),
        createdAt: conv.createdAt,
        updatedAt: conv.updatedAt,
        messageCount: conv.entries.length,
        logBytes,
        ...(conv.forkedFrom ? { forkedFrom: conv.forkedFrom } : {}),
    };
}

/** Serializes an event as one line: `type`, then `ts`, then its fields. */
export function eventLine(event: { type: string }, ts: string): string {
    const { type, ...rest } = event;
    return JSON.stringify({ type, ts, ...rest }) + "\n";
}

function errorText(error: unknown): string {
    return error instanceof Error ? error.message : String(error);
}

/** Wraps an fd opened for appending. */
export function createLogWriter(
    fd: number,
    path: string,
    state: LogWriterState,
    deps: LogWriterDeps
): ConversationLog {
    return new LogWriter(fd, path, state, deps);
}

/**
 * Appends to one log and keeps its index record up to date: the record is
 * written on an interval, at once for a rewind or a model change, and at close.
 */
class LogWriter implements ConversationLog {
    readonly id: string;
    private readonly record: IndexRecord;
    /** Ids of the transcript's entries, in order, and the same as a set. */
    private ids: string[];
    private known: Set<string>;
    /** The highest `mN` entry id handed out or found in the log. */
    private seq: number;
    private closed = false;
    private lastIndexAt: number;

    constructor(
        private readonly fd: number,
        readonly path: string,
        private readonly state: LogWriterState,
        private readonly deps: LogWriterDeps
    ) {
        this.record = { ...state.record };
        this.id = this.record.id;
        this.ids = [...state.entryIds];
        this.known = new Set(this.ids);
        this.seq = state.entrySeq;
        this.lastIndexAt = deps.now();
    }

    append(event: ConversationEvent): AppendResult {
        if (this.closed) return { ok: false, error: `conversation ${this.id} is closed` };
        const ts = new Date(this.deps.now()).toISOString();
        try {
            this.record.logBytes += writeAll(this.fd, eventLine(event, ts));
        } catch (error) {
            return { ok: false, error: `could not save to ${this.path}: ${errorText(error)}` };
        }
        this.record.updatedAt = ts;
        const urgent = this.track(event);
        if (urgent || this.deps.now() - this.lastIndexAt >= this.deps.indexIntervalMs) {
            this.writeIndex();
        }
        return { ok: true };
    }

    newEntryId(): string {
        return `m${++this.seq}`;
    }

    close(): void {
        if (this.closed) return;
        this.closed = true;
        this.writeIndex();
        this.state.release();
        try {
            fsyncSync(this.fd);
        } catch {
            // best effort: the data is already with the OS
        }
        try {
            closeSync(this.fd);
        } catch {
            // already closed
        }
    }

    private writeIndex(): void {
        this.lastIndexAt = this.deps.now();
        const snapshot = { ...this.record };
        try {
            updateIndex(this.deps.indexPath, (records) => upsertIfNewer(records, snapshot));
        } catch {
            // The index is a cache; list() rebuilds it from the logs.
        }
    }

    /** Follows the transcript in the record; true when the index must hear of it at once. */
    private track(event: ConversationEvent): boolean {
        switch (event.type) {
            case "entry_added":
                this.added(event.entry);
                return false;
            case "transcript_replaced":
                this.setIds(event.entries.map((e) => e.id));
                return false;
            case "rewound": {
                const at = this.ids.indexOf(event.entryId);
                this.setIds(at === -1 ? this.ids : this.ids.slice(0, at));
                return true;
            }
            case "model_changed":
                this.record.model = event.model;
                return true;
            default:
                return false;
        }
    }

    private added(entry: StoredEntry): void {
        if (!this.known.has(entry.id)) {
            this.known.add(entry.id);
            this.ids.push(entry.id);
            this.record.messageCount = this.ids.length;
        }
        // Entries reach the index with the periodic or closing write, not at
        // once: the first prompt would otherwise cost a locked index
        // rewrite before the first request (list() reads unindexed logs).
        if (this.record.firstPrompt === null) {
            const prompt = this.deps.firstPromptOf(entry);
            if (prompt) this.record.firstPrompt = clipPrompt(prompt);
        }
    }

    private setIds(ids: string[]): void {
        this.ids = ids;
        this.known = new Set(ids);
        this.record.messageCount = ids.length;
    }
}
