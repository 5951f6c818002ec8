/**
 * The list of conversations: the index where it still matches a log's size,
 * the log itself where not (and the index repaired from it), so a list is
 * right even after a crash left the index behind.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { repoHashOf } from "./format";
import {
    readIndex,
    upsertIfNewer,
    updateIndex,
    type ConversationSummary,
    type IndexRecord,
} from "./index-file";
import type { ConversationFiles } from "./files";
import { recordOf } from "./log";

const LOG_NAME = /^([0-9a-f]{6})\.jsonl$/;

function logIdsIn(dir: string): Set<string> {
    let names: string[];
    try {
        names = readdirSync(dir);
    } catch {
        return new Set();
    }
    return new Set(names.map((n) => LOG_NAME.exec(n)?.[1]).filter((id) => id !== undefined));
}

function scanRecords(files: ConversationFiles): IndexRecord[] {
    const logIds = logIdsIn(files.dir);
    const index = readIndex(files.indexPath);
    const out: IndexRecord[] = [];
    const fresh: IndexRecord[] = [];
    for (const id of logIds) {
        const cached = index.records.get(id);
        try {
            if (cached && statSync(files.logPath(id)).size === cached.logBytes) {
                out.push(cached);
                continue;
            }
        } catch {
            continue;
        }
        const loaded = files.read(id);
        if (!loaded.ok) continue;
        const record = recordOf(loaded.parsed.conversation, loaded.bytes);
        out.push(record);
        fresh.push(record);
    }
    const gone = [...index.records.keys()].filter((id) => !logIds.has(id));
    if (fresh.length > 0 || gone.length > 0 || index.status !== "ok") {
        try {
            updateIndex(files.indexPath, (records) => {
                for (const record of fresh) upsertIfNewer(records, record);
                for (const id of gone) if (!existsSync(files.logPath(id))) records.delete(id);
            });
        } catch {
            // still listed from the logs; the next list() retries
        }
    }
    return out;
}

/** Newest (last updated) first, only `repoRoot`'s when given. */
export function listConversations(
    files: ConversationFiles,
    filter: { repoRoot?: string } = {}
): ConversationSummary[] {
    const hash = filter.repoRoot === undefined ? undefined : repoHashOf(resolve(filter.repoRoot));
    return scanRecords(files)
        .filter((r) => hash === undefined || r.repoHash === hash)
        .sort(
            (a, b) =>
                b.updatedAt.localeCompare(a.updatedAt) ||
                b.createdAt.localeCompare(a.createdAt) ||
                a.id.localeCompare(b.id)
        )
        .map(({ logBytes: _bytes, ...summary }) => summary);
}
