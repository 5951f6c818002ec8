import { readFileSync } from "node:fs";
import * as z from "zod";
import { lazyValue } from "../../util/lazy-value";
import { withFileLock } from "../file-lock";
import { writeFileAtomicSync } from "./io";

/** One line of `north conversations`: what the index caches about a log. */
export interface ConversationSummary {
    id: string;
    repoRoot: string;
    repoHash: string;
    model: string;
    firstPrompt: string | null;
    createdAt: string;
    updatedAt: string;
    /** Entries in the transcript (after any summary trimmed it). */
    messageCount: number;
    /** The conversation this one was forked from. */
    forkedFrom?: string;
}

/** An index entry: the summary plus the log size it was computed from. */
export interface IndexRecord extends ConversationSummary {
    /** Byte size of the log when this record was made; logs only grow, so bigger is newer. */
    logBytes: number;
}

const INDEX_FORMAT = "north-conversation-index";
const INDEX_VERSION = 1;

const recordSchema = lazyValue(() =>
    z.object({
        id: z.string(),
        repoRoot: z.string(),
        repoHash: z.string(),
        model: z.string(),
        firstPrompt: z.string().nullable(),
        createdAt: z.string(),
        updatedAt: z.string(),
        messageCount: z.number().int().nonnegative(),
        logBytes: z.number().int().nonnegative(),
        forkedFrom: z.string().optional(),
    })
);

const indexSchema = lazyValue(() =>
    z.object({
        format: z.literal(INDEX_FORMAT),
        version: z.number().int(),
        conversations: z.record(z.string(), z.unknown()),
    })
);

export interface IndexRead {
    status: "ok" | "missing" | "corrupt";
    records: Map<string, IndexRecord>;
}

/** Reads the index; bad records are dropped (the logs will restore them). */
export function readIndex(path: string): IndexRead {
    let text: string;
    try {
        text = readFileSync(path, "utf8");
    } catch {
        return { status: "missing", records: new Map() };
    }
    let parsed;
    try {
        parsed = indexSchema().safeParse(JSON.parse(text));
    } catch {
        return { status: "corrupt", records: new Map() };
    }
    if (!parsed.success) return { status: "corrupt", records: new Map() };
    const records = new Map<string, IndexRecord>();
    let dropped = false;
    for (const [id, value] of Object.entries(parsed.data.conversations)) {
        const record = recordSchema().safeParse(value);
        if (record.success && record.data.id === id) records.set(id, record.data);
        else dropped = true;
    }
    return { status: dropped ? "corrupt" : "ok", records };
}

/** Keeps `record` unless the index already holds a newer one (from a longer log). */
export function upsertIfNewer(records: Map<string, IndexRecord>, record: IndexRecord): void {
    const existing = records.get(record.id);
    if (!existing || existing.logBytes <= record.logBytes) records.set(record.id, record);
}

/**
 * Re-reads the index under a cross-process lock, lets `mutate` change only its own
 * records, and writes it back atomically, so concurrent writers never drop each other's.
 */
export function updateIndex(
    path: string,
    mutate: (records: Map<string, IndexRecord>) => void
): void {
    withFileLock(path, () => {
        const { records } = readIndex(path);
        mutate(records);
        const sorted = [...records.values()].sort((a, b) => a.id.localeCompare(b.id));
        const body = {
            format: INDEX_FORMAT,
            version: INDEX_VERSION,
            conversations: Object.fromEntries(sorted.map((r) => [r.id, r])),
        };
        writeFileAtomicSync(path, JSON.stringify(body, null, 2) + "\n");
    });
}
