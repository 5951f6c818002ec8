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
    /** entry_added / entry_updated / transcript_replaced applied in order. */
    entries: StoredEntry[];
    rollingSummary: unknown | null;
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

/** Parses and replays one log. Bad lines are skipped with a warning naming the line. */
export function parseLog(id: string, data: Buffer, firstPromptOf: FirstPromptOf): ParseResult {
    const text = data.toString("utf8");
    if (text.trim() === "") return { ok: false, error: `conversation ${id}: the log is empty` };
    const lines = text.split("\n");
    const last = lines.length - 1;
    const endsClean = text.endsWith("\n");
    const warnings: string[] = [];
    let tail: LogTail = "clean";
    let header: LogHeader | undefined;
    let version = 0;
    let sawFirstLine = false;
    const events: LoggedEvent[] = [];

    for (let i = 0; i < lines.length; i++) {
        const line = lines[i] ?? "";
        if (line.trim() === "") continue;
        const lineNo = i + 1;
        const value = tryJson(line);
        const isTail = i === last && !endsClean;
        if (isTail) tail = value === undefined ? "torn" : "unterminated";
        if (!isRecord(value)) {
            warnings.push(
                isTail
                    ? `line ${lineNo}: last line was cut off mid-write; skipped`
                    : `line ${lineNo}: not valid JSON; skipped`
            );
            sawFirstLine = true;
            continue;
        }
        if (!sawFirstLine) {
            sawFirstLine = true;
            if (value.type === "header") {
                if (value.format !== LOG_FORMAT) {
                    return {
                        ok: false,
                        error: `conversation ${id}: not a North conversation log (format ${JSON.stringify(value.format)})`,
                    };
                }
                header = parseHeader(value);
                if (!header) {
                    warnings.push(`line ${lineNo}: unreadable header; skipped`);
                    continue;
                }
                version = header.version;
                if (version > CURRENT_VERSION) {
                    warnings.push(
                        `written by a newer North (format version ${version}); loading what this version understands`
                    );
                }
                continue;
            }
        }
        const event = parseEvent(migrate(version, value));
        if (!event) {
            warnings.push(`line ${lineNo}: unrecognised event; skipped`);
            continue;
        }
        events.push(event);
    }

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
            ended: false,
        },
        events,
        firstPromptOf,
        warnings
    );
    const newline = data.lastIndexOf(0x0a);
    return {
        ok: true,
        log: { conversation, version, events, warnings, tail, cleanBytes: newline + 1 },
    };
}

function replay(
    conv: LoadedConversation,
    events: readonly LoggedEvent[],
    firstPromptOf: FirstPromptOf,
    warnings: string[]
): LoadedConversation {
    let entries: StoredEntry[] = [];
    let positions = new Map<string, number>();
    let startedSeen = false;
    for (const event of events) {
        conv.updatedAt = event.ts;
        conv.ended = event.type === "conversation_ended";
        switch (event.type) {
            case "conversation_started":
                if (!startedSeen && event.firstPrompt) conv.firstPrompt = event.firstPrompt;
                startedSeen = true;
                break;
            case "entry_added": {
                const at = positions.get(event.entry.id);
                if (at === undefined) {
                    positions.set(event.entry.id, entries.length);
                    entries.push(event.entry);
                } else {
                    entries[at] = event.entry;
                }
                if (conv.firstPrompt === null) {
                    const prompt = firstPromptOf(event.entry);
                    if (prompt !== undefined && prompt.trim() !== "") conv.firstPrompt = prompt;
                }
                break;
            }
            case "entry_updated": {
                const at = positions.get(event.id);
                const current = at === undefined ? undefined : entries[at];
                if (at === undefined || !current) {
                    warnings.push(`update for unknown entry ${event.id}; skipped`);
                    break;
                }
                entries[at] = { ...current, ...event.patch, id: current.id };
                break;
            }
            case "transcript_replaced":
                entries = [...event.entries];
                positions = new Map(entries.map((entry, i) => [entry.id, i]));
                break;
            case "model_changed":
                conv.model = event.model;
                break;
            case "rolling_summary_set":
                conv.rollingSummary = event.summary ?? null;
                break;
            case "conversation_ended":
                break;
        }
    }
    conv.entries = entries;
    return conv;
}
