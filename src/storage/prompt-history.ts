/**
 * The prompts sent in a project's chat, kept across restarts at
 * `~/.north/history/<project hash>.jsonl`: one JSON line per prompt, appended
 * with one write, so every chat open in the project keeps its own and a
 * killed process loses nothing. Bounded: past twice the limit the file is
 * rewritten atomically with the newest prompts.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { withFileLock } from "../util/file-lock";
import { writeAll, writeConfigFileAtomicSync } from "../util/atomic-write";
import { projectHash } from "./profile";

/** Prompts kept per project. */
export const HISTORY_LIMIT = 1000;
/** Longer prompts (a pasted log, say) are not kept. */
export const MAX_PROMPT_BYTES = 16 * 1024;
/** A file bigger than this is compacted; a load never reads more than this. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** What compaction keeps at most, so the file stays well under MAX_FILE_BYTES. */
const KEEP_BYTES = MAX_FILE_BYTES / 2;
/** Appends wait at most this long for a compaction by another chat. */
const LOCK_TIMEOUT_MS = 1000;

export interface PromptHistoryOptions {
    /** Prompts kept (default HISTORY_LIMIT); the file is compacted past twice this. */
    limit?: number;
    /** Told once when the history cannot be read or written; the chat goes on without it. */
    warn?: (message: string) => void;
    /** The time stamped on each line. */
    now?: () => Date;
}

export interface PromptHistoryStore {
    /** Where the history lives. */
    readonly path: string;
    /** Sent prompts, oldest first: the same array until `add` changes it. */
    entries(): readonly string[];
    /** Records a sent prompt: blank ones, repeats of the last one and huge ones are skipped. */
    add(text: string): void;
}

interface Line {
    text: string;
    /** The line as stored, rewritten verbatim by compaction. */
    raw: string;
}

/** The history file of the project at `repoRoot`. */
export function promptHistoryPath(dataDirectory: string, repoRoot: string): string {
    return join(dataDirectory, "history", `${projectHash(repoRoot)}.jsonl`);
}

const keepable = (text: string): boolean =>
    text.trim() !== "" && Buffer.byteLength(text, "utf8") <= MAX_PROMPT_BYTES;

function parseLine(raw: string): Line | null {
    if (raw.trim() === "") return null;
    try {
        const value: unknown = JSON.parse(raw);
        if (typeof value !== "object" || value === null) return null;
        const text = (value as Record<string, unknown>).text;
        return typeof text === "string" && keepable(text) ? { text, raw } : null;
    } catch {
        return null; // a corrupt line (a disk error, a hand edit) costs only itself
    }
}

/** Bytes `start`..`end` of the file as text. */
function readRange(fd: number, start: number, end: number): string {
    const buffer = Buffer.alloc(Math.max(0, end - start));
    let done = 0;
    while (done < buffer.length) {
        const n = readSync(fd, buffer, done, buffer.length - done, start + done);
        if (n === 0) break;
        done += n;
    }
    return buffer.subarray(0, done).toString("utf8");
}

/** The last `maxBytes` of the file as text, from its first whole line. */
function readTail(fd: number, size: number, maxBytes: number): string {
    const start = Math.max(0, size - maxBytes);
    const text = readRange(fd, start, size);
    return start > 0 ? text.slice(text.indexOf("\n") + 1) : text;
}

/** Consecutive repeats collapsed (two chats may send the same prompt one after the other). */
function collapse(lines: Line[]): Line[] {
    return lines.filter((line, i) => i === 0 || line.text !== lines[i - 1]?.text);
}

/** The newest `limit` lines that fit in KEEP_BYTES. */
function newest(lines: Line[], limit: number): Line[] {
    let bytes = 0;
    let first = lines.length;
    while (first > 0 && lines.length - first < limit) {
        bytes += Buffer.byteLength(lines[first - 1]!.raw, "utf8") + 1;
        if (bytes > KEEP_BYTES) break;
        first--;
    }
    return lines.slice(first);
}

function endsWithNewline(fd: number, size: number): boolean {
    const last = Buffer.alloc(1);
    return readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === 0x0a;
}

const countLines = (text: string): number => text.split("\n").length - 1;

const errorText = (error: unknown): string =>
    error instanceof Error ? error.message : String(error);

/**
 * Opens the prompt history of the project at `repoRoot` under `dataDirectory`:
 * reads it once when first asked (the tail only, if it is big) and appends
 * each prompt added.
 * Never throws: a history that cannot be read or written warns once and the
 * prompts stay in memory for this chat.
 */
export function openPromptHistory(
    dataDirectory: string,
    repoRoot: string,
    options: PromptHistoryOptions = {}
): PromptHistoryStore {
    const path = promptHistoryPath(dataDirectory, repoRoot);
    const limit = Math.max(1, options.limit ?? HISTORY_LIMIT);
    const now = options.now ?? (() => new Date());
    let warned = false;
    const warn = (what: string, error: unknown): void => {
        if (warned) return;
        warned = true;
        options.warn?.(`prompt history ${what} (${path}): ${errorText(error)}`);
    };

    // The file as this process last saw it (under the lock), to know when it needs compacting.
    let fileLines = 0;
    let fileBytes = 0;
    let fileIno = -1;

    const readLines = (fd: number, stats: Stats): Line[] => {
        const text = readTail(fd, stats.size, MAX_FILE_BYTES);
        fileLines = countLines(text);
        fileBytes = stats.size;
        fileIno = stats.ino;
        return text.split("\n").flatMap((raw) => parseLine(raw) ?? []);
    };

    const needsCompaction = (): boolean => fileLines > 2 * limit || fileBytes > MAX_FILE_BYTES;

    /** Rewrites the file with its newest lines; call with the lock held. */
    const compact = (): Line[] => {
        const fd = openSync(path, "r");
        let lines: Line[];
        try {
            lines = readLines(fd, fstatSync(fd));
        } finally {
            closeSync(fd);
        }
        const kept = newest(collapse(lines), limit);
        const body = kept.map((line) => `${line.raw}\n`).join("");
        writeConfigFileAtomicSync(path, body);
        const stats = statSync(path);
        fileLines = kept.length;
        fileBytes = stats.size;
        fileIno = stats.ino;
        return kept;
    };

    const load = (): string[] => {
        let lines: Line[];
        try {
            const fd = openSync(path, "r");
            try {
                lines = readLines(fd, fstatSync(fd));
            } finally {
                closeSync(fd);
            }
        } catch (error) {
            // Nothing saved yet; a path that cannot exist is reported when the first prompt is saved.
            const code = (error as NodeJS.ErrnoException).code;
            if (code !== "ENOENT" && code !== "ENOTDIR") warn("could not be read", error);
            return [];
        }
        if (needsCompaction()) {
            try {
                lines = withFileLock(path, compact, { timeoutMs: LOCK_TIMEOUT_MS });
            } catch (error) {
                warn("could not be compacted", error);
            }
        }
        return newest(collapse(lines), limit).map((line) => line.text);
    };

    /** Counts what other chats appended (or notices they compacted) since this one last looked. */
    const catchUp = (fd: number): void => {
        const stats = fstatSync(fd);
        if (stats.ino === fileIno && stats.size === fileBytes) return;
        if (stats.ino !== fileIno || stats.size < fileBytes) {
            fileLines = countLines(readTail(fd, stats.size, MAX_FILE_BYTES));
        } else {
            fileLines += countLines(readRange(fd, fileBytes, stats.size));
        }
        fileBytes = stats.size;
        fileIno = stats.ino;
    };

    const append = (text: string): void => {
        const line = JSON.stringify({ ts: now().toISOString(), text }) + "\n";
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        // The lock keeps a compaction by another chat from dropping this line.
        withFileLock(
            path,
            () => {
                const fd = openSync(path, "a+", 0o600);
                try {
                    catchUp(fd);
                    // A last line cut short (a full disk, a hand edit) must not swallow this one.
                    const start = fileBytes > 0 && !endsWithNewline(fd, fileBytes) ? "\n" : "";
                    fileBytes += writeAll(fd, start + line);
                    fileLines += 1;
                } finally {
                    closeSync(fd);
                }
                if (needsCompaction()) compact();
            },
            { timeoutMs: LOCK_TIMEOUT_MS }
        );
    };

    // Read on first use (the first Up, Ctrl+R or prompt), not before the chat's first frame.
    let loaded: readonly string[] | null = null;
    const entries = (): readonly string[] => (loaded ??= load());
    return {
        path,
        entries,
        add(text) {
            if (!keepable(text) || entries().at(-1) === text) return;
            loaded = [...entries(), text].slice(-limit);
            try {
                append(text);
            } catch (error) {
                warn("could not be saved", error);
            }
        },
    };
}
