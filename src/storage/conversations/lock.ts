/**
 * One writer per conversation: `<id>.lock` holds the pid of the process
 * appending to `<id>.jsonl`. A lock whose process is gone (a `kill -9`) is
 * taken over; a live one means the conversation is open elsewhere, and the
 * caller forks instead of interleaving two writers in one log.
 */
import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { isProcessAlive } from "../../util/process-alive";

export type ConversationLockResult =
    | { ok: true; release: () => void }
    | { ok: false; held: true; pid: number }
    | { ok: false; held: false; error: Error };

/** Locks held by this process, so a second open in the same process sees them too. */
const heldHere = new Set<string>();

function ownerOf(lockPath: string): number | undefined {
    try {
        const value = JSON.parse(readFileSync(lockPath, "utf8")) as { pid?: unknown };
        return typeof value.pid === "number" ? value.pid : undefined;
    } catch {
        return undefined;
    }
}

export function lockConversation(lockPath: string): ConversationLockResult {
    const token = randomBytes(6).toString("hex");
    // Written aside and linked into place, so a lock is never seen half-written.
    const temp = `${lockPath}.${process.pid}.${token}`;
    try {
        writeFileSync(temp, JSON.stringify({ pid: process.pid, token }), { mode: 0o600 });
    } catch (error) {
        return { ok: false, held: false, error: error as Error };
    }
    let linked = false;
    try {
        for (let attempt = 0; attempt < 3 && !linked; attempt++) {
            try {
                linkSync(temp, lockPath);
                linked = true;
            } catch (error) {
                if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
                    return { ok: false, held: false, error: error as Error };
                }
                const pid = ownerOf(lockPath);
                const alive =
                    pid !== undefined &&
                    (pid === process.pid ? heldHere.has(lockPath) : isProcessAlive(pid));
                if (alive) return { ok: false, held: true, pid };
                // Its writer died: take it over.
                try {
                    unlinkSync(lockPath);
                } catch {
                    // removed by someone else meanwhile; try again
                }
            }
        }
    } finally {
        try {
            unlinkSync(temp);
        } catch {
            // best effort
        }
    }
    if (!linked) return { ok: false, held: false, error: new Error(`could not lock ${lockPath}`) };
    heldHere.add(lockPath);
    let released = false;
    return {
        ok: true,
        release: () => {
            if (released) return;
            released = true;
            heldHere.delete(lockPath);
            try {
                const current = JSON.parse(readFileSync(lockPath, "utf8")) as {
                    token?: unknown;
                };
                if (current.token === token) unlinkSync(lockPath);
            } catch {
                // gone already
            }
        },
    };
}
