import { closeSync, fsyncSync } from "node:fs";
import type { ConversationEvent } from "./format";
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
    const record: IndexRecord = { ...state.record };
    let ids = [...state.entryIds];
    let known = new Set(ids);
    let seq = state.entrySeq;
    let closed = false;
    let lastIndexAt = deps.now();

    const writeIndex = (): void => {
        lastIndexAt = deps.now();
        const snapshot = { ...record };
        try {
            updateIndex(deps.indexPath, (records) => upsertIfNewer(records, snapshot));
        } catch {
            // The index is a cache; list() rebuilds it from the logs.
        }
    };

    const track = (event: ConversationEvent): boolean => {
        switch (event.type) {
            case "entry_added": {
                if (!known.has(event.entry.id)) {
                    known.add(event.entry.id);
                    ids.push(event.entry.id);
                    record.messageCount = ids.length;
                }
                // Entries reach the index with the periodic or closing write, not at
                // once: the first prompt would otherwise cost a locked index
                // rewrite before the first request (list() reads unindexed logs).
                if (record.firstPrompt === null) {
                    const prompt = deps.firstPromptOf(event.entry);
                    if (prompt) record.firstPrompt = clipPrompt(prompt);
                }
                return false;
            }
            case "transcript_replaced":
                ids = event.entries.map((e) => e.id);
                known = new Set(ids);
                record.messageCount = ids.length;
                return false;
            case "rewound": {
                const at = ids.indexOf(event.entryId);
                if (at !== -1) ids = ids.slice(0, at);
                known = new Set(ids);
                record.messageCount = ids.length;
                return true;
            }
            case "model_changed":
                record.model = event.model;
                return true;
            default:
                return false;
        }
    };

    return {
        id: record.id,
        path,
        append(event) {
            if (closed) return { ok: false, error: `conversation ${record.id} is closed` };
            const ts = new Date(deps.now()).toISOString();
            try {
                record.logBytes += writeAll(fd, eventLine(event, ts));
            } catch (error) {
                return { ok: false, error: `could not save to ${path}: ${errorText(error)}` };
            }
            record.updatedAt = ts;
            const urgent = track(event);
            if (urgent || deps.now() - lastIndexAt >= deps.indexIntervalMs) writeIndex();
            return { ok: true };
        },
        newEntryId: () => `m${++seq}`,
        close() {
            if (closed) return;
            closed = true;
            writeIndex();
            state.release();
            try {
                fsyncSync(fd);
            } catch {
                // best effort: the data is already with the OS
            }
            try {
                closeSync(fd);
            } catch {
                // already closed
            }
        },
    };
}
