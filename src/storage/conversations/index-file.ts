import { readFileSync } from "node:fs";
import { withFileLock } from "../../util/file-lock";
import { writeFileAtomicSync } from "../../util/atomic-write";

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

const RECORD_STRINGS = ["id", "repoRoot", "repoHash", "model", "createdAt", "updatedAt"] as const;

function isPlainObject(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
    return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/**
 * One index record checked field by field, unknown fields dropped; undefined
 * when malformed. Hand-written rather than a schema: the index holds every
 * conversation ever saved and is re-read on each write.
 */
function parseRecord(value: unknown): IndexRecord | undefined {
    if (!isPlainObject(value)) return undefined;
    const v = value;
    for (const key of RECORD_STRINGS) if (typeof v[key] !== "string") return undefined;
    if (v.firstPrompt !== null && typeof v.firstPrompt !== "string") return undefined;
    if (!isCount(v.messageCount) || !isCount(v.logBytes)) return undefined;
    if (v.forkedFrom !== undefined && typeof v.forkedFrom !== "string") return undefined;
    const record: IndexRecord = {
        id: v.id as string,
        repoRoot: v.repoRoot as string,
        repoHash: v.repoHash as string,
        model: v.model as string,
        firstPrompt: v.firstPrompt,
        createdAt: v.createdAt as string,
        updatedAt: v.updatedAt as string,
        messageCount: v.messageCount,
        logBytes: v.logBytes,
    };
    if (v.forkedFrom !== undefined) record.forkedFrom = v.forkedFrom;
    return record;
}

/** The index file's own fields: its format, an integer version and the records by id. */
function indexConversations(json: unknown): Record<string, unknown> | undefined {
    if (!isPlainObject(json) || json.format !== INDEX_FORMAT) return undefined;
    if (!Number.isSafeInteger(json.version)) return undefined;
    return isPlainObject(json.conversations) ? json.conversations : undefined;
}

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
    let conversations: Record<string, unknown> | undefined;
    try {
        conversations = indexConversations(JSON.parse(text));
    } catch {
        return { status: "corrupt", records: new Map() };
    }
    if (!conversations) return { status: "corrupt", records: new Map() };
    const records = new Map<string, IndexRecord>();
    let dropped = false;
    for (const [id, value] of Object.entries(conversations)) {
        const record = parseRecord(value);
        if (record?.id === id) records.set(id, record);
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
