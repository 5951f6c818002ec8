import { createHash } from "node:crypto";
import { lazySchema } from "../../util/zod-runtime";

/**
 * Format version written in every new log's header line. Version 2: entry ids
 * are unique across every process that appended to the log (version 1 reused
 * `m1`, `m2`… in each process), and `view`, `usage` and `rewound` events.
 */
export const CURRENT_VERSION = 2;
export const LOG_FORMAT = "north-conversation";

/** Any JSON object with a string `id`; the storage layer knows no engine types. */
export type StoredEntry = { id: string } & Record<string, unknown>;

/** Events a caller appends to an open log. */
export type ConversationEvent =
    | { type: "entry_added"; entry: StoredEntry }
    | { type: "entry_updated"; id: string; patch: Record<string, unknown> }
    | { type: "model_changed"; model: string }
    | { type: "rolling_summary_set"; summary: unknown }
    | { type: "transcript_replaced"; entries: StoredEntry[] }
    /** What a front-end showed (a transcript action), replayed on resume. */
    | { type: "view"; record: Record<string, unknown> }
    /** One response's usage and cost, so a resumed conversation knows what it cost. */
    | { type: "usage"; model: string; usage: Record<string, number>; costUsd: number | null }
    /** Back to the state just before entry `entryId` was added (a conversation rewind). */
    | { type: "rewound"; entryId: string }
    | { type: "conversation_ended" };

/** Written once by `start()`, right after the header. */
export interface ConversationStartedEvent {
    type: "conversation_started";
    id: string;
    repoRoot: string;
    repoHash: string;
    model: string;
    firstPrompt?: string;
}

/** One line of the log after the header, as stored: every event carries `ts` (ISO time). */
export type LoggedEvent = (ConversationEvent | ConversationStartedEvent) & { ts: string };

/** First line of every log since version 1. */
export interface LogHeader {
    type: "header";
    format: typeof LOG_FORMAT;
    version: number;
    id: string;
    repoRoot: string;
    repoHash: string;
    model: string;
    createdAt: string;
    /** Set on a fork: the conversation it was copied from. */
    forkedFrom?: string;
}

const ID_PATTERN = /^[0-9a-f]{6}$/;

/** Conversation ids are 6 lowercase hex chars; nothing else may reach a file path. */
export function isValidConversationId(id: string): boolean {
    return ID_PATTERN.test(id);
}

export function invalidIdError(id: string): string {
    return `invalid conversation id ${JSON.stringify(id)}: expected 6 lowercase hex characters`;
}

/** Stable id of a repository: sha256 of its root path, first 16 hex chars. */
export function repoHashOf(repoRoot: string): string {
    return createHash("sha256").update(repoRoot).digest("hex").slice(0, 16);
}

const headerSchema = lazySchema((z) =>
    z.object({
        type: z.literal("header"),
        format: z.literal(LOG_FORMAT),
        version: z.number().int().nonnegative(),
        id: z.string(),
        repoRoot: z.string(),
        repoHash: z.string(),
        model: z.string(),
        createdAt: z.string(),
        forkedFrom: z.string().optional(),
    })
);

const eventSchema = lazySchema((z) => {
    const entrySchema = z.looseObject({ id: z.string() });
    const ts = z.string();
    return z.discriminatedUnion("type", [
        z.object({
            type: z.literal("conversation_started"),
            ts,
            id: z.string(),
            repoRoot: z.string(),
            repoHash: z.string(),
            model: z.string(),
            firstPrompt: z.string().optional(),
        }),
        z.object({ type: z.literal("entry_added"), ts, entry: entrySchema }),
        z.object({
            type: z.literal("entry_updated"),
            ts,
            id: z.string(),
            patch: z.record(z.string(), z.unknown()),
        }),
        z.object({ type: z.literal("model_changed"), ts, model: z.string() }),
        z.object({ type: z.literal("rolling_summary_set"), ts, summary: z.unknown() }),
        z.object({ type: z.literal("transcript_replaced"), ts, entries: z.array(entrySchema) }),
        z.object({ type: z.literal("view"), ts, record: z.record(z.string(), z.unknown()) }),
        z.object({
            type: z.literal("usage"),
            ts,
            model: z.string(),
            usage: z.record(z.string(), z.number()),
            costUsd: z.number().nullable(),
        }),
        z.object({ type: z.literal("rewound"), ts, entryId: z.string() }),
        z.object({ type: z.literal("conversation_ended"), ts }),
    ]);
});

export function parseHeader(value: unknown): LogHeader | undefined {
    const result = headerSchema().safeParse(value);
    return result.success ? result.data : undefined;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);

export function parseEvent(value: unknown): LoggedEvent | undefined {
    // The two events a long log is made of, checked by hand: a 10,000-entry
    // conversation loads in the time of its JSON.parse, not twice that.
    if (isPlainObject(value) && typeof value.ts === "string") {
        if (value.type === "entry_added") {
            const entry = value.entry;
            if (isPlainObject(entry) && typeof entry.id === "string")
                return { type: "entry_added", ts: value.ts, entry: entry as StoredEntry };
            return undefined;
        }
        if (value.type === "view") {
            if (isPlainObject(value.record))
                return { type: "view", ts: value.ts, record: value.record };
            return undefined;
        }
    }
    const result = eventSchema().safeParse(value);
    if (!result.success) return undefined;
    const event = result.data;
    if (event.type === "rolling_summary_set") return { ...event, summary: event.summary ?? null };
    return event;
}

type RawEvent = Record<string, unknown>;

/**
 * One step per old version, turning an event of version `v` into version `v + 1`.
 * Version 0 (before the header line existed): no header, `timestamp` instead of `ts`,
 * `conversation_started` carried `conversationId`, `entry_updated` carried `entryId` and `updates`.
 */
const STEPS: Array<(event: RawEvent) => RawEvent> = [
    (event) => {
        const { timestamp, ...rest } = event;
        const out: RawEvent = { ...rest, ts: rest.ts ?? timestamp };
        if (out.type === "conversation_started" && out.id === undefined) {
            out.id = out.conversationId;
            delete out.conversationId;
        }
        if (out.type === "entry_updated" && out.id === undefined) {
            out.id = out.entryId;
            out.patch = out.updates;
            delete out.entryId;
            delete out.updates;
        }
        return out;
    },
    // 1 → 2: same events; duplicate entry ids are renamed while parsing (replay.ts).
    (event) => event,
];

/** Brings a raw event written by format `version` up to `CURRENT_VERSION`. */
export function migrate(version: number, event: RawEvent): RawEvent {
    let out = event;
    for (let v = version; v < CURRENT_VERSION; v++) {
        const step = STEPS[v];
        if (step) out = step(out);
    }
    return out;
}
