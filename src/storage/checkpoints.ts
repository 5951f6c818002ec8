/**
 * Checkpoints: what each file held before North changed it, per conversation,
 * so a rewind can put the code back as it was before a prompt. In
 * `<dir>/<conversationId>/`, `manifest.jsonl` gets one record per change,
 * appended (one write) before the change lands; `blobs/` holds prior contents
 * by sha256 (see checkpoint-blobs.ts), stored only where a rewind can need
 * one: the first change of a file in each run of one prompt's changes (later
 * ones in the run restore to that). Dirs 0700, files 0600. Old and oversized
 * stores are pruned once per process.
 */
import { promises as fs, statSync } from "node:fs";
import { join } from "node:path";
import { type BlobWrites, createBlobStore, sha256, tidyBlobs } from "./checkpoint-blobs";
import {
    type ApplyRestoreOptions,
    type PlanResult,
    type RestoreOutcome,
    type RestorePlan,
    applyRestorePlan,
    planRestores,
} from "./checkpoints-restore";
import { dataDir } from "./paths";

export { sha256 } from "./checkpoint-blobs";
export type {
    ApplyRestoreOptions,
    PlanResult,
    RestoreFile,
    RestoreOutcome,
    RestorePlan,
    RestoreReport,
} from "./checkpoints-restore";

export const DEFAULT_MAX_AGE_DAYS = 30;
export const DEFAULT_MAX_TOTAL_BYTES = 1024 ** 3;
/** The promptId of the records a rewind writes for its own changes. */
export const REWIND_PROMPT_ID = "rewind";
const MANIFEST = "manifest.jsonl";
const BLOBS = "blobs";
/** Temp and raw blob files left by a killed process are tidied by pruning after this long. */
const STALE_MS = 10 * 60 * 1000;
const CONVERSATION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A file about to change: absolute real path, repo-relative path, bytes before
 * (null: absent) and after (null: deleted). Same shape as tools' `FileChange`.
 */
export interface CheckpointChange {
    path: string;
    relPath: string;
    before: Buffer | null;
    after: Buffer | null;
}

export type CheckpointOutcome = { ok: true } | { ok: false; error: string };

/** Records changes before they land; structurally the tools' `FileCheckpointer`. */
export interface Checkpointer {
    record(changes: readonly CheckpointChange[]): Promise<CheckpointOutcome>;
}

/** One line of a manifest: a change North was about to make. */
export interface CheckpointRecord {
    seq: number;
    /** The conversation entry id of the user prompt the change answered ("rewind" for a rewind's). */
    promptId: string;
    /** Repo-relative POSIX path. */
    path: string;
    /** sha256 of the bytes before; null: the file did not exist. */
    before: string | null;
    /** sha256 of the bytes after; null: the change deletes it. */
    after: string | null;
    ts: string;
}

/** The writes a store makes; tests inject failures (a full disk) here. */
export interface CheckpointFs extends BlobWrites {
    /** Creates a folder and its parents, 0700. */
    mkdir(path: string): Promise<void>;
    /** Appends with one write, creating the file 0600. */
    appendFile(path: string, data: string): Promise<void>;
}

const localFs: CheckpointFs = {
    mkdir: async (path) => {
        await fs.mkdir(path, { recursive: true, mode: 0o700 });
    },
    writeFile: (path, data) => fs.writeFile(path, data, { flag: "wx", mode: 0o600 }),
    rename: (from, to) => fs.rename(from, to),
    appendFile: (path, data) => fs.appendFile(path, data, { mode: 0o600 }),
};

export interface CheckpointStoreOptions {
    /** Clock (ms since epoch); injected by tests. */
    now?: () => number;
    /** Conversations whose checkpoints were last written longer ago are pruned (default 30). */
    maxAgeDays?: number;
    /** Beyond this many bytes in all, the oldest conversations' checkpoints go (default 1 GiB). */
    maxTotalBytes?: number;
    fs?: Partial<CheckpointFs>;
    /** Prune once per process when the first checkpointer is made (default true). */
    autoPrune?: boolean;
}

export interface PruneReport {
    /** Conversation ids whose checkpoints were removed. */
    removed: string[];
    /** Bytes left in the store. */
    totalBytes: number;
}

export interface ConversationCheckpoints {
    readonly conversationId: string;
    /** Folder of this conversation's checkpoints. */
    readonly dir: string;
    /**
     * A checkpointer recording under the prompt `currentPromptId()` names at
     * each change. Creates the (empty) store in the background, so a missing
     * one later means pruned or deleted, not "never changed a file".
     */
    checkpointer(currentPromptId: () => string): Checkpointer;
    /** Every record, in order; `exists` false when the store is missing (pruned or deleted). */
    records(): Promise<{ exists: boolean; records: CheckpointRecord[] }>;
    /**
     * One plan per set of ids (each: a target prompt's entry id and every
     * later entry's): what restoring the code to before that prompt would do.
     * The first record under any id of the set marks the point.
     */
    planRestores(
        promptSets: readonly (readonly string[])[],
        repoRoot: string
    ): Promise<PlanResult[]>;
    planRestore(promptIds: readonly string[], repoRoot: string): Promise<PlanResult>;
    /** Carries out a plan; records its own changes first (promptId "rewind"). */
    applyRestore(plan: RestorePlan, options: ApplyRestoreOptions): Promise<RestoreOutcome>;
    /** The bytes of a stored copy, checked against its hash. */
    readBlob(sha: string): Promise<Buffer>;
    /** Compresses the copies still raw now (normally a moment after each record); resolves when done. */
    idle(): Promise<void>;
}

export interface CheckpointStore {
    readonly dir: string;
    forConversation(conversationId: string): ConversationCheckpoints;
    /** Removes conversations' checkpoints past the age and size limits (skipping ones open here). */
    prune(): Promise<PruneReport>;
}

function errorText(error: unknown): string {
    const code = (error as NodeJS.ErrnoException).code;
    const reasons: Record<string, string> = {
        ENOSPC: "the disk is full",
        EDQUOT: "the disk quota is used up",
        EROFS: "read-only file system",
        EACCES: "permission denied",
        EPERM: "permission denied",
        ENOTDIR: "a parent path is a file, not a folder",
        EEXIST: "a file is in the way of the folder",
    };
    const message = error instanceof Error ? error.message : String(error);
    const reason = code ? reasons[code] : undefined;
    return reason ? `${reason}: ${message}` : message;
}

function isRecord(value: unknown): value is CheckpointRecord {
    if (typeof value !== "object" || value === null) return false;
    const r = value as Record<string, unknown>;
    const hash = (v: unknown) => v === null || (typeof v === "string" && /^[0-9a-f]{64}$/.test(v));
    return (
        typeof r.seq === "number" &&
        typeof r.promptId === "string" &&
        typeof r.path === "string" &&
        hash(r.before) &&
        hash(r.after)
    );
}

/** Parses a manifest; a torn or foreign line (a kill mid-append) is skipped. */
export function parseManifest(text: string): CheckpointRecord[] {
    const records: CheckpointRecord[] = [];
    for (const line of text.split("\n")) {
        if (line.trim() === "") continue;
        try {
            const value: unknown = JSON.parse(line);
            if (isRecord(value)) records.push(value);
        } catch {
            // torn line
        }
    }
    return records;
}

/** What the next append needs to know about the manifest on disk. */
interface ManifestState {
    size: number;
    nextSeq: number;
    /** The file ends without a newline (a torn last line): the next append starts a new one. */
    needsNewline: boolean;
    lastPromptId: string | null;
    /** Paths changed in the trailing run of `lastPromptId`'s records. */
    runPaths: Set<string>;
}

function stateOf(text: string): ManifestState {
    const records = parseManifest(text);
    const state: ManifestState = {
        size: Buffer.byteLength(text),
        nextSeq: records.reduce((max, r) => Math.max(max, r.seq + 1), 1),
        needsNewline: text !== "" && !text.endsWith("\n"),
        lastPromptId: null,
        runPaths: new Set(),
    };
    for (const r of records) {
        if (r.promptId !== state.lastPromptId) state.runPaths = new Set();
        state.lastPromptId = r.promptId;
        state.runPaths.add(r.path);
    }
    return state;
}

/** Size in bytes, -1 when the file does not exist (sync: one cheap call per record). */
function sizeOf(path: string): number {
    try {
        return statSync(path).size;
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return -1;
        throw error;
    }
}

export function createCheckpointStore(
    dir: string = join(dataDir(), "checkpoints"),
    options: CheckpointStoreOptions = {}
): CheckpointStore {
    const now = options.now ?? Date.now;
    const maxAgeMs = (options.maxAgeDays ?? DEFAULT_MAX_AGE_DAYS) * 86_400_000;
    const maxTotalBytes = options.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES;
    const io: CheckpointFs = { ...localFs, ...options.fs };
    /** Conversations recorded by this process: never pruned under it. */
    const open = new Set<string>();
    /** Pruning runs at most once per store (one per process: the session's). */
    let pruned = false;

    const prune = async (): Promise<PruneReport> => {
        pruned = true;
        return pruneStore(dir, io, { now: now(), maxAgeMs, maxTotalBytes, keep: open });
    };

    const forConversation = (conversationId: string): ConversationCheckpoints => {
        if (!CONVERSATION_ID.test(conversationId)) {
            throw new Error(`invalid conversation id ${JSON.stringify(conversationId)}`);
        }
        const convDir = join(dir, conversationId);
        const blobsDir = join(convDir, BLOBS);
        const manifestPath = join(convDir, MANIFEST);
        const blobs = createBlobStore(blobsDir, io);
        let state: ManifestState | null = null;
        let dirsReady = false;
        let queue: Promise<unknown> = Promise.resolve();

        const attempt = async (
            changes: readonly CheckpointChange[],
            promptId: string
        ): Promise<void> => {
            if (!dirsReady) {
                await io.mkdir(blobsDir);
                dirsReady = true;
            }
            // Another process (a rewind) may have appended since: then re-read.
            const size = sizeOf(manifestPath);
            if (!state || state.size !== Math.max(size, 0)) {
                state = stateOf(size < 0 ? "" : await fs.readFile(manifestPath, "utf8"));
            }
            const runPaths =
                promptId === state.lastPromptId ? new Set(state.runPaths) : new Set<string>();
            const ts = new Date(now()).toISOString();
            const copies: Array<Promise<void>> = [];
            const lines = changes.map((change, i) => {
                const before = change.before ? sha256(change.before) : null;
                if (change.before && before && !runPaths.has(change.relPath)) {
                    copies.push(blobs.put(before, change.before));
                }
                runPaths.add(change.relPath);
                const entry: CheckpointRecord = {
                    seq: (state as ManifestState).nextSeq + i,
                    promptId,
                    path: change.relPath,
                    before,
                    after: change.after ? sha256(change.after) : null,
                    ts,
                };
                return JSON.stringify(entry) + "\n";
            });
            await Promise.all(copies);
            const text = (state.needsNewline ? "\n" : "") + lines.join("");
            await io.appendFile(manifestPath, text);
            state = {
                size: state.size + Buffer.byteLength(text),
                nextSeq: state.nextSeq + changes.length,
                needsNewline: false,
                lastPromptId: promptId,
                runPaths,
            };
        };

        const record = async (
            changes: readonly CheckpointChange[],
            promptId: string
        ): Promise<CheckpointOutcome> => {
            try {
                await attempt(changes, promptId);
                return { ok: true };
            } catch (first) {
                state = null;
                dirsReady = false;
                if ((first as NodeJS.ErrnoException).code !== "ENOENT") {
                    return { ok: false, error: errorText(first) };
                }
            }
            // The folder went away (pruned or deleted while open): start it again.
            try {
                await attempt(changes, promptId);
                return { ok: true };
            } catch (error) {
                state = null;
                dirsReady = false;
                return { ok: false, error: errorText(error) };
            }
        };

        const enqueue = (changes: readonly CheckpointChange[], promptId: string) => {
            const run = queue.then(() => record(changes, promptId));
            queue = run;
            return run;
        };

        const records = async (): Promise<{ exists: boolean; records: CheckpointRecord[] }> => {
            try {
                return {
                    exists: true,
                    records: parseManifest(await fs.readFile(manifestPath, "utf8")),
                };
            } catch (error) {
                if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
                return { exists: false, records: [] };
            }
        };

        const conversation: ConversationCheckpoints = {
            conversationId,
            dir: convDir,
            checkpointer(currentPromptId) {
                open.add(conversationId);
                void (async () => {
                    await io.mkdir(blobsDir);
                    await io.appendFile(manifestPath, "");
                })().catch(() => undefined);
                if (options.autoPrune !== false && !pruned) {
                    void prune().catch(() => undefined);
                }
                return { record: (changes) => enqueue(changes, currentPromptId()) };
            },
            records,
            async planRestores(promptSets, repoRoot) {
                return planRestores(await records(), promptSets, {
                    conversationId,
                    repoRoot,
                    storeDir: convDir,
                    blobExists: async (hash) => blobs.has(hash),
                });
            },
            async planRestore(promptIds, repoRoot) {
                const [plan] = await conversation.planRestores([promptIds], repoRoot);
                return plan as PlanResult;
            },
            applyRestore(plan, applyOptions) {
                open.add(conversationId);
                return applyRestorePlan(plan, applyOptions, {
                    readBlob: (hash) => blobs.get(hash),
                    record: (changes) => enqueue(changes, REWIND_PROMPT_ID),
                });
            },
            readBlob: (hash) => blobs.get(hash),
            idle: () => blobs.idle(),
        };
        return conversation;
    };

    return { dir, forConversation, prune };
}

interface PruneLimits {
    now: number;
    maxAgeMs: number;
    maxTotalBytes: number;
    keep: ReadonlySet<string>;
}

async function pruneStore(dir: string, io: BlobWrites, limits: PruneLimits): Promise<PruneReport> {
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    const removed: string[] = [];
    const kept: Array<{ id: string; mtime: number; bytes: number }> = [];
    for (const id of names) {
        if (!CONVERSATION_ID.test(id)) continue;
        const convDir = join(dir, id);
        const stat = await fs
            .stat(join(convDir, MANIFEST))
            .catch(() => fs.stat(convDir).catch(() => null));
        if (!stat) continue;
        if (!limits.keep.has(id) && limits.now - stat.mtimeMs > limits.maxAgeMs) {
            await fs.rm(convDir, { recursive: true, force: true });
            removed.push(id);
            continue;
        }
        const blobBytes = await tidyBlobs(join(convDir, BLOBS), io, limits.now, STALE_MS);
        const manifestBytes = Math.max(0, sizeOf(join(convDir, MANIFEST)));
        kept.push({ id, mtime: stat.mtimeMs, bytes: manifestBytes + blobBytes });
    }
    let totalBytes = kept.reduce((sum, c) => sum + c.bytes, 0);
    kept.sort((a, b) => a.mtime - b.mtime);
    for (const c of kept) {
        if (totalBytes <= limits.maxTotalBytes) break;
        if (limits.keep.has(c.id)) continue;
        await fs.rm(join(dir, c.id), { recursive: true, force: true });
        removed.push(c.id);
        totalBytes -= c.bytes;
    }
    return { removed, totalBytes };
}
