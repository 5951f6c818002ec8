/**
 * The files of a conversation folder: `<id>.jsonl` logs, their `<id>.lock`
 * and `index.json`. Reading a log, choosing a free id, creating a log with
 * O_EXCL and upgrading an old-format one; what the store does with them is
 * in `../conversations.ts`.
 */
import { randomBytes } from "node:crypto";
import {
    closeSync,
    copyFileSync,
    existsSync,
    mkdirSync,
    openSync,
    readFileSync,
    unlinkSync,
} from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../../util/atomic-write";
import {
    CURRENT_VERSION,
    LOG_FORMAT,
    invalidIdError,
    isValidConversationId,
    type LogHeader,
} from "./format";
import { readIndex } from "./index-file";
import { eventLine } from "./log";
import { parseLog, type FirstPromptOf, type ParsedLog } from "./replay";

const MAX_ID_TRIES = 100;

export type ReadLogResult =
    { ok: true; parsed: ParsedLog; bytes: number } | { ok: false; error: string };

/** An fs error as a user reads it: the reason first, then the system's message. */
export function fsErrorText(error: unknown): string {
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

export class ConversationFiles {
    readonly indexPath: string;

    constructor(
        readonly dir: string,
        /** Candidate ids (6 lowercase hex). */
        private readonly randomId: () => string,
        private readonly firstPromptOf: FirstPromptOf
    ) {
        this.indexPath = join(dir, "index.json");
    }

    logPath(id: string): string {
        return join(this.dir, `${id}.jsonl`);
    }

    lockPath(id: string): string {
        return join(this.dir, `${id}.lock`);
    }

    ensureDir(): void {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    }

    /** Can files be created here? Throws the fs error when not. */
    probeWritable(): void {
        const probe = join(this.dir, `.probe-${process.pid}-${randomBytes(4).toString("hex")}`);
        this.ensureDir();
        closeSync(openSync(probe, "wx", 0o600));
        unlinkSync(probe);
    }

    read(id: string): ReadLogResult {
        if (!isValidConversationId(id)) return { ok: false, error: invalidIdError(id) };
        let data: Buffer;
        try {
            data = readFileSync(this.logPath(id));
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code === "ENOENT") {
                return { ok: false, error: `no conversation with id ${id}` };
            }
            return { ok: false, error: `could not read conversation ${id}: ${fsErrorText(error)}` };
        }
        const result = parseLog(id, data, this.firstPromptOf);
        return result.ok ? { ok: true, parsed: result.log, bytes: data.length } : result;
    }

    /** A fresh id, checked against existing logs and the index. */
    newId(): string {
        const known = readIndex(this.indexPath).records;
        for (let i = 0; i < MAX_ID_TRIES; i++) {
            const id = this.randomId();
            if (isValidConversationId(id) && !known.has(id) && !existsSync(this.logPath(id))) {
                return id;
            }
        }
        throw new Error(`could not find a free conversation id in ${this.dir}`);
    }

    /** Creates a new log with O_EXCL, so two processes can never share an id. */
    createLogFile(requested: string | undefined): { fd: number; id: string } {
        try {
            this.ensureDir();
        } catch (error) {
            throw new Error(`cannot save conversations in ${this.dir}: ${fsErrorText(error)}`, {
                cause: error,
            });
        }
        for (let i = 0; ; i++) {
            const id = requested ?? this.newId();
            try {
                return { fd: openSync(this.logPath(id), "ax", 0o600), id };
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
    }

    /** Rewrites an old-format log in the current format, keeping the original as a backup. */
    upgrade(id: string, parsed: ParsedLog): void {
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
        const path = this.logPath(id);
        copyFileSync(path, `${path}.v${parsed.version}.bak`);
        writeFileAtomicSync(path, lines.join(""), true);
    }
}
