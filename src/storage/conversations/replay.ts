import {
    CURRENT_VERSION,
    LOG_FORMAT,
    migrate,
    parseEvent,
    parseHeader,
    type LogHeader,
    type LoggedEvent,
    type StoredEntry,
} from "./format";

/** A conversation rebuilt from its log. */
export interface LoadedConversation {
    id: string;
    repoRoot: string;
    repoHash: string;
    model: string;
    createdAt: string;
    /** `ts` of the last event. */
    updatedAt: string;
    /** From `start()` or the first user entry; null when none yet. */
    firstPrompt: string | null;
    /** entry_added / entry_updated / transcript_replaced / rewound applied in order. */
    entries: StoredEntry[];
    rollingSummary: unknown | null;
    /** What the front-ends showed (`view` records), as of the last rewind. */
    view: Array<Record<string, unknown>>;
    /** Entries added before the first view record (written by a North that kept no views). */
    entriesBeforeView: number;
    /** Every entry id the log ever added, in order, rewound ones included (checkpoints name them). */
    loggedEntryIds: string[];
    /** Every response's usage, in order (rewound ones too: they were paid for). */
    usage: Array<{ model: string; usage: Record<string, number>; costUsd: number | null }>;
    /** The conversation this one was forked from. */
    forkedFrom: string | null;
    /** True when the last event is `conversation_ended` (a clean exit). */
    ended: boolean;
}

/** How the file ends: with a newline, with a complete line lacking one, or with a cut line. */
export type LogTail = "clean" | "unterminated" | "torn";

export interface ParsedLog {
    conversation: LoadedConversation;
    /** Format version the file was written with (0 = headerless legacy). */
    version: number;
    /** Every readable event after the header, migrated to the current version. */
    events: LoggedEvent[];
    warnings: string[];
    tail: LogTail;
    /** Byte length up to and including the last newline. */
    cleanBytes: number;
    /** The highest `mN` entry id in the log: new entries continue after it. */
    entrySeq: number;
}

export type FirstPromptOf = (entry: StoredEntry) => string | undefined;

type ParseResult = { ok: true; log: ParsedLog } | { ok: false; error: string };

function tryJson(text: string): unknown {
    try {
        return JSON.parse(text);
    } catch {
        return undefined;
    }
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The lines of a log read: its header (none in a legacy log) and its events. */
interface ReadLog {
    header: LogHeader | undefined;
    /** Format version the file was written with (0 = headerless legacy). */
    version: number;
    events: LoggedEvent[];
    tail: LogTail;
}

/**
 * A first line that is a header: its fields, or nothing when unreadable
 * (a warning says so), or an error for a file of another format.
 */
function headerLine(
    id: string,
    value: Record<string, unknown>,
    lineNo: number,
    warnings: string[]
): { ok: true; header: LogHeader | undefined } | { ok: false; error: string } {
    if (value.format !== LOG_FORMAT) {
        return {
            ok: false,
            error: `conversation ${id}: not a North conversation log (format ${JSON.stringify(value.format)})`,
        };
    }
    const header = parseHeader(value);
    if (!header) {
        warnings.push(`line ${lineNo}: unreadable header; skipped`);
        return { ok: true, header: undefined };
    }
    if (header.version > CURRENT_VERSION) {
        warnings.push(
            `written by a newer North (format version ${header.version}); loading what this version understands`
        );
    }
    return { ok: true, header };
}

/** Reads every line of `text`; bad lines are skipped with a warning naming the line. */
function readLines(
    id: string,
    text: string,
    warnings: string[]
): ({ ok: true } & ReadLog) | { ok: false; error: string } {
    const lines = text.split("\n");
    const last = lines.length - 1;
    const endsClean = text.endsWith("\n");
    const read: ReadLog = { header: undefined, version: 0, events: [], tail: "clean" };
    let sawFirstLine = false;
    for (let i = 0; i < lines.length; i++) {
        const line = lines[i] ?? "";
        if (line.trim() === "") continue;
        const lineNo = i + 1;
        const value = tryJson(line);
        const isTail = i === last && !endsClean;
        if (isTail) read.tail = value === undefined ? "torn" : "unterminated";
        if (!isRecord(value)) {
            warnings.push(
                isTail
                    ? `line ${lineNo}: last line was cut off mid-write; skipped`
                    : `line ${lineNo}: not valid JSON; skipped`
            );
            sawFirstLine = true;
            continue;
        }
        const first = !sawFirstLine;
        sawFirstLine = true;
        if (first && value.type === "header") {
            const header = headerLine(id, value, lineNo, warnings);
            if (!header.ok) return header;
            read.header = header.header;
            read.version = header.header?.version ?? read.version;
            continue;
        }
        const event = parseEvent(migrate(read.version, value));
        if (!event) {
            warnings.push(`line ${lineNo}: unrecognised event; skipped`);
            continue;
        }
        read.events.push(event);
    }
    return { ok: true, ...read };
}

/** Parses and replays one log. Bad lines are skipped with a warning naming the line. */
export function parseLog(id: string, data: Buffer, firstPromptOf: FirstPromptOf): ParseResult {
    const text = data.toString("utf8");
    if (text.trim() === "") return { ok: false, error: `conversation ${id}: the log is empty` };
    const warnings: string[] = [];
    const read = readLines(id, text, warnings);
    if (!read.ok) return read;
    const { header, version, events, tail } = read;
    if (version < 2) renameReusedIds(events, warnings);

    const started = events.find((e) => e.type === "conversation_started");
    if (!header && !started) {
        return { ok: false, error: `conversation ${id}: the log has no readable header` };
    }
    const base = header ?? {
        id: started?.id ?? id,
        repoRoot: started?.repoRoot ?? "",
        repoHash: started?.repoHash ?? "",
        model: started?.model ?? "",
        createdAt: started?.ts ?? "",
    };
    if (base.id !== id) warnings.push(`header names conversation ${base.id}; using ${id}`);

    const conversation = replay(
        {
            id,
            repoRoot: base.repoRoot,
            repoHash: base.repoHash,
            model: base.model,
            createdAt: base.createdAt,
            updatedAt: base.createdAt,
            firstPrompt: null,
            entries: [],
            rollingSummary: null,
            view: [],
            entriesBeforeView: 0,
            loggedEntryIds: [],
            usage: [],
            forkedFrom: header?.forkedFrom ?? null,
            ended: false,
        },
        events,
        firstPromptOf,
        warnings
    );
    const newline = data.lastIndexOf(0x0a);
    return {
        ok: true,
        log: {
            conversation,
            version,
            events,
            warnings,
            tail,
            cleanBytes: newline + 1,
            entrySeq: maxEntrySeq(events),
        },
    };
}

/** The part of a conversation a rewind takes back: entries, summary and what was shown. */
interface Transcript {
    entries: StoredEntry[];
    positions: Map<string, number>;
    rollingSummary: unknown | null;
    view: Array<Record<string, unknown>>;
    entriesBeforeView: number;
}

/**
 * Where a rewind or fork to just before each entry cuts the log (event index):
 * where it was added, or for a prompt, where its run started or the front-end
 * recorded showing it (view records just ahead of the entry), whichever came
 * first, so neither the prompt nor an unfinished run of it is shown again.
 */
export function entryAddedAt(events: readonly LoggedEvent[]): Map<string, number> {
    const at = new Map<string, number>();
    let shownAt: number | null = null;
    let startedAt: number | null = null;
    events.forEach((event, index) => {
        if (event.type === "view") {
            const { record } = event;
            const inner = record.event as { type?: unknown } | null | undefined;
            if (record.type === "user") shownAt = index;
            if (record.type === "engine" && inner?.type === "run_start") startedAt = index;
        }
        if (event.type !== "entry_added") return;
        if (!at.has(event.entry.id)) {
            const ahead = [shownAt, startedAt].filter((k): k is number => k !== null);
            const cut = event.entry.role === "user" ? Math.min(index, ...ahead) : index;
            at.set(event.entry.id, cut);
        }
        shownAt = null;
        startedAt = null;
    });
    return at;
}

/** Replays entries, summary and view over `events[0, end)`; a rewind replays the prefix it names. */
function replayTranscript(
    events: readonly LoggedEvent[],
    end: number,
    addedAt: Map<string, number>,
    warnings: string[]
): Transcript {
    let t: Transcript = {
        entries: [],
        positions: new Map(),
        rollingSummary: null,
        view: [],
        entriesBeforeView: 0,
    };
    for (let i = 0; i < end; i++) {
        const event = events[i] as LoggedEvent;
        switch (event.type) {
            case "entry_added": {
                const at = t.positions.get(event.entry.id);
                if (at === undefined) {
                    t.positions.set(event.entry.id, t.entries.length);
                    t.entries.push(event.entry);
                } else {
                    t.entries[at] = event.entry;
                }
                break;
            }
            case "entry_updated": {
                const at = t.positions.get(event.id);
                const current = at === undefined ? undefined : t.entries[at];
                if (at === undefined || !current) {
                    warnings.push(`update for unknown entry ${event.id}; skipped`);
                    break;
                }
                t.entries[at] = { ...current, ...event.patch, id: current.id };
                break;
            }
            case "transcript_replaced":
                t.entries = [...event.entries];
                t.positions = new Map(t.entries.map((entry, k) => [entry.id, k]));
                break;
            case "rolling_summary_set":
                t.rollingSummary = event.summary ?? null;
                break;
            case "view":
                if (t.view.length === 0) t.entriesBeforeView = t.entries.length;
                t.view.push(event.record);
                break;
            case "rewound": {
                const target = addedAt.get(event.entryId);
                if (target === undefined || target >= i) {
                    warnings.push(`rewind to unknown entry ${event.entryId}; skipped`);
                    break;
                }
                t = replayTranscript(events, target, addedAt, warnings);
                break;
            }
            default:
                break;
        }
    }
    return t;
}

function replay(
    conv: LoadedConversation,
    events: readonly LoggedEvent[],
    firstPromptOf: FirstPromptOf,
    warnings: string[]
): LoadedConversation {
    let startedSeen = false;
    for (const event of events) {
        conv.updatedAt = event.ts;
        conv.ended = event.type === "conversation_ended";
        switch (event.type) {
            case "conversation_started":
                if (!startedSeen && event.firstPrompt) conv.firstPrompt = event.firstPrompt;
                startedSeen = true;
                break;
            case "entry_added":
                if (conv.firstPrompt === null) {
                    const prompt = firstPromptOf(event.entry);
                    if (prompt !== undefined && prompt.trim() !== "") conv.firstPrompt = prompt;
                }
                break;
            case "model_changed":
                conv.model = event.model;
                break;
            case "usage":
                // Spent even when rewound away.
                conv.usage.push({ model: event.model, usage: event.usage, costUsd: event.costUsd });
                break;
            default:
                break;
        }
    }
    const added = entryAddedAt(events);
    conv.loggedEntryIds = [...added.keys()];
    const t = replayTranscript(events, events.length, added, warnings);
    conv.entries = t.entries;
    conv.rollingSummary = t.rollingSummary;
    conv.view = t.view;
    conv.entriesBeforeView = t.view.length === 0 ? t.entries.length : t.entriesBeforeView;
    return conv;
}

const SEQ_ID = /^m(\d+)$/;

/** The highest `mN` entry id in `events` (0 when none). */
export function maxEntrySeq(events: readonly LoggedEvent[]): number {
    let max = 0;
    const see = (id: string): void => {
        const match = SEQ_ID.exec(id);
        if (match) max = Math.max(max, Number(match[1]));
    };
    for (const event of events) {
        if (event.type === "entry_added") see(event.entry.id);
        else if (event.type === "transcript_replaced") event.entries.forEach((e) => see(e.id));
    }
    return max;
}

/**
 * Format 1 numbered entries from `m1` in every process, so a resumed
 * conversation's new entries reused ids already in the transcript, and
 * replay took them for replacements. No version-1 writer ever replaced an
 * entry by re-adding it, so a repeated id is a new entry: it gets a fresh id.
 */
function renameReusedIds(events: LoggedEvent[], warnings: string[]): void {
    let next = maxEntrySeq(events);
    let present = new Set<string>();
    let renamed = 0;
    for (let i = 0; i < events.length; i++) {
        const event = events[i] as LoggedEvent;
        if (event.type === "transcript_replaced") {
            present = new Set(event.entries.map((e) => e.id));
        } else if (event.type === "entry_added") {
            let id = event.entry.id;
            if (present.has(id)) {
                id = `m${++next}`;
                events[i] = { ...event, entry: { ...event.entry, id } };
                renamed++;
            }
            present.add(id);
        }
    }
    if (renamed > 0) {
        warnings.push(
            `${renamed} entries written by later sessions reused earlier ids; every one is kept`
        );
    }
}
