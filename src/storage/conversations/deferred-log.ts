/**
 * A conversation that exists once something is said in it: its log file is
 * created on the first transcript entry, so a chat started and quit leaves
 * nothing behind. Events before that (a command's view record, a model
 * change) wait in memory and open the file with it; closing before any entry
 * drops them.
 */
import type { ConversationEvent } from "./format";
import type { AppendResult, ConversationLog } from "./log";

/** Events that make a conversation worth keeping. */
function opensLog(event: ConversationEvent): boolean {
    return (
        event.type === "entry_added" ||
        (event.type === "transcript_replaced" && event.entries.length > 0)
    );
}

export function createDeferredLog(
    id: string,
    path: string,
    create: () => ConversationLog
): ConversationLog {
    return new DeferredLog(id, path, create);
}

class DeferredLog implements ConversationLog {
    private log: ConversationLog | null = null;
    private waiting: ConversationEvent[] = [];
    private closed = false;
    /** Entry ids are handed out here, before and after the file exists, so they never repeat. */
    private seq = 0;

    constructor(
        readonly id: string,
        readonly path: string,
        private readonly create: () => ConversationLog
    ) {}

    append(event: ConversationEvent): AppendResult {
        if (this.closed) return { ok: false, error: `conversation ${this.id} is closed` };
        if (this.log) return this.log.append(event);
        if (!opensLog(event)) {
            this.waiting.push(event);
            return { ok: true };
        }
        try {
            this.log = this.create();
        } catch (error) {
            return { ok: false, error: (error as Error).message };
        }
        const earlier = this.waiting;
        this.waiting = [];
        for (const before of earlier) {
            const written = this.log.append(before);
            if (!written.ok) return written;
        }
        return this.log.append(event);
    }

    newEntryId(): string {
        return `m${++this.seq}`;
    }

    close(): void {
        if (this.closed) return;
        this.closed = true;
        this.waiting = [];
        this.log?.close();
    }
}
