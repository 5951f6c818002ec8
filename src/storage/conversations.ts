import { randomBytes } from "node:crypto";
import {
    closeSync,
    copyFileSync,
    existsSync,
    fstatSync,
    mkdirSync,
    openSync,
    readdirSync,
    readFileSync,
    statSync,
    truncateSync,
    unlinkSync,
} from "node:fs";
import { join, resolve } from "node:path";
import {
    CURRENT_VERSION,
    LOG_FORMAT,
    invalidIdError,
    isValidConversationId,
    repoHashOf,
    type LogHeader,
    type StoredEntry,
} from "./conversations/format";
import {
    readIndex,
    upsertIfNewer,
    updateIndex,
    type ConversationSummary,
    type IndexRecord,
} from "./conversations/index-file";
import { writeAll, writeFileAtomicSync } from "../util/atomic-write";
import { lockConversation } from "./conversations/lock";
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
    parseLog,
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
    /** The most recently updated conversation of a repo, for `--continue`. */
    latestForRepo(repoRoot: string): ConversationSummary | undefined;
}

const LOG_NAME = /^([0-9a-f]{6})\.jsonl$/;

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
const MAX_ID_TRIES = 100;

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

function fsErrorText(error: unknown): string {
    const code = (error as NodeJS.ErrnoException).code;
    const reasons: Record<string, string> = {
        EACCES: "permission denied",
        EPERM: "permission denied",
        EROFS: "read-only file system",
        ENOTDIR: "a parent path is a file, not a directory",
        EEXIST: "a file is in the way of the directory",
        ENOSPC: "no space left on device",
    };
    const reason = code ? reasons[code] : undefined;
    const message = error instanceof Error ? error.message : String(error);
    return reason ? `${reason} (${message})` : message;
}

export function createConversationStore(
    dir: string = join(dataDir(), "conversations"),
    options: ConversationStoreOptions = {}
): ConversationStore {
    const indexPath = join(dir, "index.json");
    const randomId = options.randomId ?? (() => randomBytes(3).toString("hex"));
    const firstPromptOf = options.firstPromptOf ?? defaultFirstPromptOf;
    const deps: LogWriterDeps = {
        indexPath,
        now: options.now ?? Date.now,
        firstPromptOf,
        indexIntervalMs: options.indexIntervalMs ?? 5000,
    };
    const logPath = (id: string) => join(dir, `${id}.jsonl`);
    const ensureDir = () => mkdirSync(dir, { recursive: true, mode: 0o700 });

    const read = (
        id: string
    ): { ok: true; parsed: ParsedLog; bytes: number } | { ok: false; error: string } => {
        if (!isValidConversationId(id)) return { ok: false, error: invalidIdError(id) };
        let data: Buffer;
        try {
            data = readFileSync(logPath(id));
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code === "ENOENT") {
                return { ok: false, error: `no conversation with id ${id}` };
            }
            return { ok: false, error: `could not read conversation ${id}: ${fsErrorText(error)}` };
        }
        const result = parseLog(id, data, firstPromptOf);
        return result.ok ? { ok: true, parsed: result.log, bytes: data.length } : result;
    };

    const newId = (): string => {
        const known = readIndex(indexPath).records;
        for (let i = 0; i < MAX_ID_TRIES; i++) {
            const id = randomId();
            if (isValidConversationId(id) && !known.has(id) && !existsSync(logPath(id))) return id;
        }
        throw new Error(`could not find a free conversation id in ${dir}`);
    };

    /** Rewrites an old-format log in the current format, keeping the original as a backup. */
    const upgrade = (id: string, parsed: ParsedLog): void => {
        const started = parsed.events.find((e) => e.type === "conversation_started");
        const conv = parsed.conversation;
        const header: LogHeader = {
            type: "header",
            format: LOG_FORMAT,
            version: CURRENT_VERSION,
            id,
            repoRoot: started?.repoRoot ?? conv.repoRoot,
            repoHash: started?.repoHash ?? conv.repoHash,
            model: started?.model ?? conv.model,
            createdAt: conv.createdAt,
            ...(conv.forkedFrom ? { forkedFrom: conv.forkedFrom } : {}),
        };
        const lines = [JSON.stringify(header) + "\n"];
        for (const event of parsed.events) lines.push(eventLine(event, event.ts));
        copyFileSync(logPath(id), `${logPath(id)}.v${parsed.version}.bak`);
        writeFileAtomicSync(logPath(id), lines.join(""), true);
    };

    /** Creates a new log with O_EXCL, so two processes can never share an id. */
    const createLogFile = (requested: string | undefined): { fd: number; id: string } => {
        try {
            ensureDir();
        } catch (error) {
            throw new Error(`cannot save conversations in ${dir}: ${fsErrorText(error)}`, {
                cause: error,
            });
        }
        for (let i = 0; ; i++) {
            const id = requested ?? newId();
            try {
                return { fd: openSync(logPath(id), "ax", 0o600), id };
            } catch (error) {
                const taken = (error as NodeJS.ErrnoException).code === "EEXIST";
                if (taken && requested !== undefined)
                    throw new Error(`conversation ${id} already exists`);
                if (!taken || i >= MAX_ID_TRIES) {
                    throw new Error(`cannot save conversation ${id}: ${fsErrorText(error)}`, {
                        cause: error,
                    });
                }
            }
        }
    };

    const lockPath = (id: string) => join(dir, `${id}.lock`);

    /**
     * Creates a log (O_EXCL, locked for this process) holding the header and
     * `events`, and opens it for appending.
     */
    const createLog = (
        requested: string | undefined,
        init: {
            repoRoot: string;
            repoHash: string;
            model: string;
            createdAt: string;
            firstPrompt: string | null;
            forkedFrom?: string;
            events: (id: string) => Array<{ type: string; ts?: string }>;
        }
    ): ConversationLog => {
        const { fd, id } = createLogFile(requested);
        const lock = lockConversation(lockPath(id));
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
        const data = lines.join("");
        let bytes: number;
        try {
            if (!lock.ok) {
                throw lock.held
                    ? new Error(`conversation ${id} is locked by process ${lock.pid}`)
                    : lock.error;
            }
            bytes = writeAll(fd, data);
        } catch (error) {
            closeSync(fd);
            if (lock.ok) lock.release();
            try {
                unlinkSync(logPath(id));
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
            messageCount: 0,
            logBytes: bytes,
            ...(init.forkedFrom ? { forkedFrom: init.forkedFrom } : {}),
        };
        // Not indexed yet: the writer indexes it on its interval and at close, and
        // list() reads a log the index lacks, so starting costs no locked index write.
        return createLogWriter(
            fd,
            logPath(id),
            { record, entryIds: [], entrySeq: 0, release: lock.release },
            deps
        );
    };

    /** A new conversation holding `parsed`'s events (up to `beforeEntryId`), open for appending. */
    const forkParsed = (
        parentId: string,
        parsed: ParsedLog,
        beforeEntryId: string | undefined
    ): OpenResult => {
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
            created = createLog(undefined, {
                repoRoot: conv.repoRoot,
                repoHash: conv.repoHash,
                model: conv.model,
                createdAt: new Date(deps.now()).toISOString(),
                firstPrompt: clipPrompt(conv.firstPrompt),
                forkedFrom: parentId,
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
        const reopened = store.open(created.id);
        if (!reopened.ok) return reopened;
        return { ...reopened, forkedFrom: parentId };
    };

    const scanRecords = (): IndexRecord[] => {
        let names: string[];
        try {
            names = readdirSync(dir);
        } catch {
            return [];
        }
        const logIds = new Set(
            names.map((n) => LOG_NAME.exec(n)?.[1]).filter((id) => id !== undefined)
        );
        const index = readIndex(indexPath);
        const out: IndexRecord[] = [];
        const fresh: IndexRecord[] = [];
        for (const id of logIds) {
            const cached = index.records.get(id);
            try {
                if (cached && statSync(logPath(id)).size === cached.logBytes) {
                    out.push(cached);
                    continue;
                }
            } catch {
                continue;
            }
            const loaded = read(id);
            if (!loaded.ok) continue;
            const record = recordOf(loaded.parsed.conversation, loaded.bytes);
            out.push(record);
            fresh.push(record);
        }
        const gone = [...index.records.keys()].filter((id) => !logIds.has(id));
        if (fresh.length > 0 || gone.length > 0 || index.status !== "ok") {
            try {
                updateIndex(indexPath, (records) => {
                    for (const record of fresh) upsertIfNewer(records, record);
                    for (const id of gone) if (!existsSync(logPath(id))) records.delete(id);
                });
            } catch {
                // still listed from the logs; the next list() retries
            }
        }
        return out;
    };

    const list = (filter: { repoRoot?: string } = {}): ConversationSummary[] => {
        const hash =
            filter.repoRoot === undefined ? undefined : repoHashOf(resolve(filter.repoRoot));
        return scanRecords()
            .filter((r) => hash === undefined || r.repoHash === hash)
            .sort(
                (a, b) =>
                    b.updatedAt.localeCompare(a.updatedAt) ||
                    b.createdAt.localeCompare(a.createdAt) ||
                    a.id.localeCompare(b.id)
            )
            .map(({ logBytes: _bytes, ...summary }) => summary);
    };

    const store: ConversationStore = {
        dir,
        checkWritable() {
            const probe = join(dir, `.probe-${process.pid}-${randomBytes(4).toString("hex")}`);
            try {
                ensureDir();
                closeSync(openSync(probe, "wx", 0o600));
                unlinkSync(probe);
                return { ok: true };
            } catch (error) {
                return {
                    ok: false,
                    error: `cannot save conversations in ${dir}: ${fsErrorText(error)}`,
                };
            }
        },

        newId,

        start({ id: requested, repoRoot, model, firstPrompt }) {
            if (requested !== undefined && !isValidConversationId(requested)) {
                throw new Error(invalidIdError(requested));
            }
            const root = resolve(repoRoot);
            const prompt = clipPrompt(firstPrompt);
            return createLog(requested, {
                repoRoot: root,
                repoHash: repoHashOf(root),
                model,
                createdAt: new Date(deps.now()).toISOString(),
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
        },

        open(id, options = {}) {
            const loaded = read(id);
            if (!loaded.ok) return loaded;
            const { parsed } = loaded;
            const warnings = [...parsed.warnings];
            if (parsed.version > CURRENT_VERSION) {
                return {
                    ok: false,
                    error: `conversation ${id} was written by a newer North (format version ${parsed.version}); update North to continue it`,
                };
            }
            const lock = lockConversation(lockPath(id));
            if (!lock.ok) {
                if (!lock.held) {
                    return {
                        ok: false,
                        error: `cannot continue conversation ${id}: ${fsErrorText(lock.error)}`,
                    };
                }
                if (options.ifOpenElsewhere === "fail") {
                    return {
                        ok: false,
                        error: `conversation ${id} is open in another North process (pid ${lock.pid}); use it there or close it first`,
                    };
                }
                // Two writers would interleave one log: continue in a copy instead,
                // without the exchange the other process may still be answering.
                const forked = forkParsed(id, parsed, unsettledPromptOf(parsed.conversation));
                if (!forked.ok) return forked;
                forked.warnings.unshift(
                    `conversation ${id} is open in another North process (pid ${lock.pid}); continuing in a fork of it: ${forked.log.id}`
                );
                return forked;
            }
            let fd: number | undefined;
            let size: number;
            try {
                if (parsed.version < CURRENT_VERSION) {
                    upgrade(id, parsed);
                    warnings.push(
                        `upgraded from format version ${parsed.version} (original kept as .bak)`
                    );
                } else if (parsed.tail === "torn") {
                    truncateSync(logPath(id), parsed.cleanBytes);
                }
                fd = openSync(logPath(id), "a", 0o600);
                if (parsed.version === CURRENT_VERSION && parsed.tail === "unterminated")
                    writeAll(fd, "\n");
                size = fstatSync(fd).size;
            } catch (error) {
                if (fd !== undefined) closeSync(fd);
                lock.release();
                return {
                    ok: false,
                    error: `cannot continue conversation ${id}: ${fsErrorText(error)}`,
                };
            }
            const conversation = parsed.conversation;
            return {
                ok: true,
                log: createLogWriter(
                    fd,
                    logPath(id),
                    {
                        record: recordOf(conversation, size),
                        entryIds: conversation.entries.map((e) => e.id),
                        entrySeq: parsed.entrySeq,
                        release: lock.release,
                    },
                    deps
                ),
                conversation,
                warnings,
            };
        },

        fork(id, options = {}) {
            const loaded = read(id);
            if (!loaded.ok) return loaded;
            if (loaded.parsed.version > CURRENT_VERSION) {
                return {
                    ok: false,
                    error: `conversation ${id} was written by a newer North (format version ${loaded.parsed.version}); update North to fork it`,
                };
            }
            return forkParsed(id, loaded.parsed, options.beforeEntryId);
        },

        resolveId(prefix) {
            const wanted = prefix.trim().toLowerCase();
            if (!/^[0-9a-f]{1,6}$/.test(wanted))
                return { ok: false, error: invalidIdError(prefix) };
            if (wanted.length === 6 && existsSync(logPath(wanted))) return { ok: true, id: wanted };
            const matches = list().filter((c) => c.id.startsWith(wanted));
            const only = matches[0];
            if (matches.length === 1 && only) return { ok: true, id: only.id };
            if (matches.length === 0)
                return { ok: false, error: `no conversation with id ${prefix}` };
            const lines = matches.map(
                (c) =>
                    `  ${c.id}  ${(c.firstPrompt ?? "(no prompt yet)").replace(/\s+/g, " ").slice(0, 70)}`
            );
            return {
                ok: false,
                error: `${matches.length} conversations start with ${wanted}; give more of the id:\n${lines.join("\n")}`,
            };
        },

        load(id) {
            const loaded = read(id);
            if (!loaded.ok) return loaded;
            const { conversation, warnings } = loaded.parsed;
            return { ok: true, conversation, warnings };
        },

        list,

        latestForRepo(repoRoot) {
            return list({ repoRoot })[0];
        },
    };
    return store;
}
