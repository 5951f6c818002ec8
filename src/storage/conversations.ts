import { randomBytes } from "node:crypto";
import { closeSync, existsSync, fstatSync, openSync, truncateSync, unlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { writeAll } from "../util/atomic-write";
import { tryLockFile, type LockAttempt } from "../util/file-lock";
import { ConversationFiles, fsErrorText } from "./conversations/files";
import {
    CURRENT_VERSION,
    LOG_FORMAT,
    invalidIdError,
    isValidConversationId,
    repoHashOf,
    type LogHeader,
    type StoredEntry,
} from "./conversations/format";
import { createDeferredLog } from "./conversations/deferred-log";
import type { ConversationSummary, IndexRecord } from "./conversations/index-file";
import { listConversations } from "./conversations/listing";
import {
    clipPrompt,
    createLogWriter,
    eventLine,
    recordOf,
    type ConversationLog,
    type LogWriterDeps,
} from "./conversations/log";
import {
    entryAddedAt,
    type FirstPromptOf,
    type LoadedConversation,
    type ParsedLog,
} from "./conversations/replay";
import { dataDir } from "./paths";

export {
    CURRENT_VERSION,
    migrate,
    repoHashOf,
    type ConversationEvent,
    type LoggedEvent,
    type LogHeader,
    type StoredEntry,
} from "./conversations/format";
export type { ConversationSummary } from "./conversations/index-file";
export type { AppendResult, ConversationLog } from "./conversations/log";
export type { FirstPromptOf, LoadedConversation } from "./conversations/replay";

export interface ConversationStoreOptions {
    /** Candidate ids (6 lowercase hex); default crypto-random. Injected by tests. */
    randomId?: () => string;
    /** The prompt text of a user entry, undefined for other entries; see `defaultFirstPromptOf`. */
    firstPromptOf?: FirstPromptOf;
    /** While streaming, the index is rewritten at most this often (ms); default 5000. */
    indexIntervalMs?: number;
    /** Clock (ms since epoch); injected by tests. */
    now?: () => number;
}

export interface StartOptions {
    /** From `newId()`; generated when omitted. */
    id?: string;
    repoRoot: string;
    model: string;
    firstPrompt?: string;
}

export type WritableCheck = { ok: true } | { ok: false; error: string };

export type LoadResult =
    | { ok: true; conversation: LoadedConversation; warnings: string[] }
    | { ok: false; error: string };

export type OpenResult =
    | {
          ok: true;
          log: ConversationLog;
          conversation: LoadedConversation;
          warnings: string[];
          /** Set when the conversation was open in another process and a fork was opened instead. */
          forkedFrom?: string;
      }
    | { ok: false; error: string };

export type ResolveResult = { ok: true; id: string } | { ok: false; error: string };

export interface ConversationStore {
    readonly dir: string;
    /** Call at start: can conversations be saved here? A clear message when not. */
    checkWritable(): WritableCheck;
    /** A fresh 6-hex id, checked against existing logs and the index. */
    newId(): string;
    /** Creates `<id>.jsonl` (0600) with header and `conversation_started`; throws a clear Error when it cannot. */
    start(options: StartOptions): ConversationLog;
    /**
     * As `start`, but `<id>.jsonl` is created with the first transcript entry:
     * a conversation nothing was said in leaves no file.
     */
    startOnFirstEntry(options: StartOptions): ConversationLog;
    /**
     * Loads a conversation and opens its log for appending (resume). One process
     * writes a conversation at a time: when another one has it open, a fork is
     * opened instead (`forkedFrom` set, a warning says so).
     */
    open(id: string, options?: { ifOpenElsewhere?: "fork" | "fail" }): OpenResult;
    /**
     * Copies a conversation into a new one (header `forkedFrom`), up to just
     * before entry `beforeEntryId` when given, and opens it for appending.
     */
    fork(id: string, options?: { beforeEntryId?: string }): OpenResult;
    /** A full id or a unique prefix of one; an ambiguous prefix lists the matches. */
    resolveId(prefix: string): ResolveResult;
    /** Rebuilds a conversation from its log, skipping bad lines with warnings. */
    load(id: string): LoadResult;
    /** Newest (last updated) first; the index is repaired from the logs when stale or missing. */
    list(filter?: { repoRoot?: string }): ConversationSummary[];
    /** The most recently updated conversation of a repo with something in it, for `--continue`. */
    latestForRepo(repoRoot: string): ConversationSummary | undefined;
}

/**
 * The last prompt, when the transcript does not end with a final answer to
 * it (a run may be under way in the process holding the conversation).
 */
function unsettledPromptOf(conversation: LoadedConversation): string | undefined {
    const last = conversation.entries.at(-1);
    const answered =
        last?.role === "assistant" &&
        !(Array.isArray(last.content) && last.content.some((b) => b?.type === "tool_call"));
    if (!last || answered) return undefined;
    for (let i = conversation.entries.length - 1; i >= 0; i--) {
        const entry = conversation.entries[i];
        const prompt =
            entry?.role === "user" &&
            (entry.prompt === true ||
                (entry.prompt === undefined && typeof entry.content === "string"));
        if (prompt) return entry.id;
    }
    return undefined;
}

function textOf(value: unknown): string | undefined {
    if (typeof value === "string") return value.trim() === "" ? undefined : value;
    if (!Array.isArray(value)) return undefined;
    for (const block of value) {
        if (typeof block !== "object" || block === null) continue;
        const { type, text } = block as Record<string, unknown>;
        if (type === "text" && typeof text === "string" && text.trim() !== "") return text;
    }
    return undefined;
}

/** A user entry is one whose `role`, `kind` or `type` is "user"; its text is `text` or `content`. */
export function defaultFirstPromptOf(entry: StoredEntry): string | undefined {
    const isUser = entry.role === "user" || entry.kind === "user" || entry.type === "user";
    if (!isUser) return undefined;
    return textOf(entry.text) ?? textOf(entry.content) ?? "";
}

/** What a new log holds besides its id. */
interface NewLog {
    repoRoot: string;
    repoHash: string;
    model: string;
    createdAt: string;
    firstPrompt: string | null;
    forkedFrom?: string;
    events: (id: string) => Array<{ type: string; ts?: string }>;
    /** Entries `events` holds (a fork's copy), so `north list` and `--continue` count them at once. */
    messageCount?: number;
}

/** A conversation with an entry: one a start-and-quit left empty is nothing to continue. */
export function hasEntries(summary: ConversationSummary): boolean {
    return summary.messageCount > 0;
}

/** "another North process (pid 12)", or without the pid when the lock file does not say. */
function otherProcess(pid: number | undefined): string {
    return pid === undefined ? "another North process" : `another North process (pid ${pid})`;
}

function newerFormatError(id: string, version: number, action: string): string {
    return `conversation ${id} was written by a newer North (format version ${version}); update North to ${action}`;
}

/**
 * Conversations as append-only JSONL logs in one folder, one writer per log
 * (its lock), and an index that only speeds up listing.
 */
class JsonlConversationStore implements ConversationStore {
    private readonly files: ConversationFiles;
    private readonly deps: LogWriterDeps;

    constructor(
        readonly dir: string,
        options: ConversationStoreOptions
    ) {
        const firstPromptOf = options.firstPromptOf ?? defaultFirstPromptOf;
        this.files = new ConversationFiles(
            dir,
            options.randomId ?? (() => randomBytes(3).toString("hex")),
            firstPromptOf
        );
        this.deps = {
            indexPath: this.files.indexPath,
            now: options.now ?? Date.now,
            firstPromptOf,
            indexIntervalMs: options.indexIntervalMs ?? 5000,
        };
    }

    checkWritable(): WritableCheck {
        try {
            this.files.probeWritable();
            return { ok: true };
        } catch (error) {
            return {
                ok: false,
                error: `cannot save conversations in ${this.dir}: ${fsErrorText(error)}`,
            };
        }
    }

    newId(): string {
        return this.files.newId();
    }

    start({ id: requested, repoRoot, model, firstPrompt }: StartOptions): ConversationLog {
        if (requested !== undefined && !isValidConversationId(requested)) {
            throw new Error(invalidIdError(requested));
        }
        const root = resolve(repoRoot);
        const prompt = clipPrompt(firstPrompt);
        return this.createLog(requested, {
            repoRoot: root,
            repoHash: repoHashOf(root),
            model,
            createdAt: new Date(this.deps.now()).toISOString(),
            firstPrompt: prompt,
            events: (id) => [
                {
                    type: "conversation_started",
                    id,
                    repoRoot: root,
                    repoHash: repoHashOf(root),
                    model,
                    ...(prompt === null ? {} : { firstPrompt: prompt }),
                },
            ],
        });
    }

    startOnFirstEntry(options: StartOptions): ConversationLog {
        if (options.id !== undefined && !isValidConversationId(options.id)) {
            throw new Error(invalidIdError(options.id));
        }
        const id = options.id ?? this.newId();
        return createDeferredLog(id, this.files.logPath(id), () => this.start({ ...options, id }));
    }

    open(id: string, options: { ifOpenElsewhere?: "fork" | "fail" } = {}): OpenResult {
        const loaded = this.files.read(id);
        if (!loaded.ok) return loaded;
        const { parsed } = loaded;
        if (parsed.version > CURRENT_VERSION) {
            return { ok: false, error: newerFormatError(id, parsed.version, "continue it") };
        }
        let lock: LockAttempt;
        try {
            lock = tryLockFile(this.files.lockPath(id));
        } catch (error) {
            return {
                ok: false,
                error: `cannot continue conversation ${id}: ${fsErrorText(error)}`,
            };
        }
        if (lock.ok) return this.continueLocked(id, parsed, lock.release);
        const holder = otherProcess(lock.pid);
        if (options.ifOpenElsewhere === "fail") {
            return {
                ok: false,
                error: `conversation ${id} is open in ${holder}; use it there or close it first`,
            };
        }
        // Two writers would interleave one log: continue in a copy instead,
        // without the exchange the other process may still be answering.
        const forked = this.forkParsed(id, parsed, unsettledPromptOf(parsed.conversation));
        if (!forked.ok) return forked;
        forked.warnings.unshift(
            `conversation ${id} is open in ${holder}; continuing in a fork of it: ${forked.log.id}`
        );
        return forked;
    }

    fork(id: string, options: { beforeEntryId?: string } = {}): OpenResult {
        const loaded = this.files.read(id);
        if (!loaded.ok) return loaded;
        if (loaded.parsed.version > CURRENT_VERSION) {
            return { ok: false, error: newerFormatError(id, loaded.parsed.version, "fork it") };
        }
        return this.forkParsed(id, loaded.parsed, options.beforeEntryId);
    }

    resolveId(prefix: string): ResolveResult {
        const wanted = prefix.trim().toLowerCase();
        if (!/^[0-9a-f]{1,6}$/.test(wanted)) return { ok: false, error: invalidIdError(prefix) };
        if (wanted.length === 6 && existsSync(this.files.logPath(wanted))) {
            return { ok: true, id: wanted };
        }
        const matches = this.list().filter((c) => c.id.startsWith(wanted));
        const only = matches[0];
        if (matches.length === 1 && only) return { ok: true, id: only.id };
        if (matches.length === 0) return { ok: false, error: `no conversation with id ${prefix}` };
        const lines = matches.map(
            (c) =>
                `  ${c.id}  ${(c.firstPrompt ?? "(no prompt yet)").replace(/\s+/g, " ").slice(0, 70)}`
        );
        return {
            ok: false,
            error: `${matches.length} conversations start with ${wanted}; give more of the id:\n${lines.join("\n")}`,
        };
    }

    load(id: string): LoadResult {
        const loaded = this.files.read(id);
        if (!loaded.ok) return loaded;
        const { conversation, warnings } = loaded.parsed;
        return { ok: true, conversation, warnings };
    }

    list(filter: { repoRoot?: string } = {}): ConversationSummary[] {
        return listConversations(this.files, filter);
    }

    latestForRepo(repoRoot: string): ConversationSummary | undefined {
        return this.list({ repoRoot }).find(hasEntries);
    }

    /** The log of `id`, locked for this process: upgraded or repaired, then opened for appending. */
    private continueLocked(id: string, parsed: ParsedLog, release: () => void): OpenResult {
        const path = this.files.logPath(id);
        const warnings = [...parsed.warnings];
        let fd: number | undefined;
        let size: number;
        try {
            if (parsed.version < CURRENT_VERSION) {
                this.files.upgrade(id, parsed);
                warnings.push(
                    `upgraded from format version ${parsed.version} (original kept as .bak)`
                );
            } else if (parsed.tail === "torn") {
                truncateSync(path, parsed.cleanBytes);
            }
            fd = openSync(path, "a", 0o600);
            if (parsed.version === CURRENT_VERSION && parsed.tail === "unterminated")
                writeAll(fd, "\n");
            size = fstatSync(fd).size;
        } catch (error) {
            if (fd !== undefined) closeSync(fd);
            release();
            return {
                ok: false,
                error: `cannot continue conversation ${id}: ${fsErrorText(error)}`,
            };
        }
        const conversation = parsed.conversation;
        const state = {
            record: recordOf(conversation, size),
            entryIds: conversation.entries.map((e) => e.id),
            entrySeq: parsed.entrySeq,
            release,
        };
        return {
            ok: true,
            log: createLogWriter(fd, path, state, this.deps),
            conversation,
            warnings,
        };
    }

    /**
     * Creates a log (O_EXCL, locked for this process) holding the header and
     * `init.events`, and opens it for appending.
     */
    private createLog(requested: string | undefined, init: NewLog): ConversationLog {
        const { fd, id } = this.files.createLogFile(requested);
        const path = this.files.logPath(id);
        let release: (() => void) | undefined;
        let bytes: number;
        try {
            const lock = tryLockFile(this.files.lockPath(id));
            if (!lock.ok)
                throw new Error(`conversation ${id} is locked by ${otherProcess(lock.pid)}`);
            release = lock.release;
            bytes = writeAll(fd, logStart(id, init));
        } catch (error) {
            closeSync(fd);
            release?.();
            try {
                unlinkSync(path);
            } catch {
                // nothing was kept
            }
            throw new Error(`cannot save conversation ${id}: ${fsErrorText(error)}`, {
                cause: error,
            });
        }
        const record: IndexRecord = {
            id,
            repoRoot: init.repoRoot,
            repoHash: init.repoHash,
            model: init.model,
            firstPrompt: init.firstPrompt,
            createdAt: init.createdAt,
            updatedAt: init.createdAt,
            messageCount: init.messageCount ?? 0,
            logBytes: bytes,
            ...(init.forkedFrom ? { forkedFrom: init.forkedFrom } : {}),
        };
        // Not indexed yet: the writer indexes it on its interval and at close, and
        // list() reads a log the index lacks, so starting costs no locked index write.
        return createLogWriter(fd, path, { record, entryIds: [], entrySeq: 0, release }, this.deps);
    }

    /** A new conversation holding `parsed`'s events (up to `beforeEntryId`), open for appending. */
    private forkParsed(
        parentId: string,
        parsed: ParsedLog,
        beforeEntryId: string | undefined
    ): OpenResult {
        let end = parsed.events.length;
        if (beforeEntryId !== undefined) {
            const at = entryAddedAt(parsed.events).get(beforeEntryId);
            if (at === undefined) {
                return {
                    ok: false,
                    error: `conversation ${parentId} has no entry ${beforeEntryId} to fork at`,
                };
            }
            end = at;
        }
        const conv = parsed.conversation;
        const copied = parsed.events
            .slice(0, end)
            .filter((e) => e.type !== "conversation_ended" && e.type !== "conversation_started");
        let created: ConversationLog;
        try {
            created = this.createLog(undefined, {
                repoRoot: conv.repoRoot,
                repoHash: conv.repoHash,
                model: conv.model,
                createdAt: new Date(this.deps.now()).toISOString(),
                firstPrompt: clipPrompt(conv.firstPrompt),
                forkedFrom: parentId,
                messageCount: entryAddedAt(copied).size,
                events: (id) => [
                    {
                        type: "conversation_started",
                        id,
                        repoRoot: conv.repoRoot,
                        repoHash: conv.repoHash,
                        model: conv.model,
                        ...(conv.firstPrompt ? { firstPrompt: clipPrompt(conv.firstPrompt) } : {}),
                    },
                    ...copied,
                ],
            });
        } catch (error) {
            return {
                ok: false,
                error: `cannot fork conversation ${parentId}: ${(error as Error).message}`,
            };
        }
        // Reopened, so its writer continues from the copied transcript and numbering.
        created.close();
        const reopened = this.open(created.id);
        if (!reopened.ok) return reopened;
        return { ...reopened, forkedFrom: parentId };
    }
}

/** The header and first events of a new log, as written. */
function logStart(id: string, init: NewLog): string {
    const header: LogHeader = {
        type: "header",
        format: LOG_FORMAT,
        version: CURRENT_VERSION,
        id,
        repoRoot: init.repoRoot,
        repoHash: init.repoHash,
        model: init.model,
        createdAt: init.createdAt,
        ...(init.forkedFrom ? { forkedFrom: init.forkedFrom } : {}),
    };
    const lines = [JSON.stringify(header) + "\n"];
    for (const { ts, ...event } of init.events(id)) {
        lines.push(eventLine(event, ts ?? init.createdAt));
    }
    return lines.join("");
}

export function createConversationStore(
    dir: string = join(dataDir(), "conversations"),
    options: ConversationStoreOptions = {}
): ConversationStore {
    return new JsonlConversationStore(dir, options);
}
