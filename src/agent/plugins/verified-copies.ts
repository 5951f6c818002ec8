/**
 * Skips rehashing an installed copy whose files have not been touched since
 * it was last found at its approved fingerprint: a stat-only signature of
 * every entry (path, mode, size, inode and ctime, which no user can set
 * back) is remembered with the fingerprint in `plugins/verified.json`. Any
 * change to a file (content, mode, a rename, a new file) changes the
 * signature and the copy is hashed again. Start-up with ten plugins then
 * pays a directory walk, not reading every file.
 */
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../../util/atomic-write";

/** More entries than this: no signature (the fingerprint bounds the copy anyway). */
const MAX_ENTRIES = 5000;

export interface VerifiedCopies {
    /**
     * Whether `root` is untouched since it matched `fingerprint`; otherwise
     * its signature now, to pass to `remember` once hashing found it matches.
     */
    unchanged(
        id: string,
        root: string,
        fingerprint: string
    ): Promise<{ unchanged: true } | { unchanged: false; before?: string }>;
    /**
     * Remembers that `root` matches `fingerprint`, only if its signature is
     * still `before` (taken before hashing: nothing changed while hashing).
     */
    remember(id: string, root: string, fingerprint: string, before?: string): Promise<void>;
    /** Writes what changed (once per load). */
    save(): void;
}

/**
 * A stat signature of every entry under `root`. Synchronous on purpose: a
 * few hundred lstat calls cost well under a millisecond each in one go, where
 * the async ones queue on the thread pool beside the start's other reads.
 */
function signature(root: string): string | undefined {
    const lines: string[] = [];
    const walk = (dir: string, rel: string): boolean => {
        for (const name of readdirSync(dir).sort()) {
            const path = join(dir, name);
            const stat = lstatSync(path, { bigint: true });
            const relPath = rel === "" ? name : `${rel}/${name}`;
            lines.push(`${relPath}\0${stat.mode}\0${stat.size}\0${stat.ino}\0${stat.ctimeNs}`);
            if (lines.length > MAX_ENTRIES) return false;
            if (stat.isDirectory() && !walk(path, relPath)) return false;
        }
        return true;
    };
    try {
        const rootStat = lstatSync(root, { bigint: true });
        lines.push(`.\0${rootStat.mode}\0${rootStat.ino}\0${rootStat.ctimeNs}`);
        if (!walk(root, "")) return undefined;
    } catch {
        return undefined;
    }
    return createHash("sha256").update(lines.join("\n")).digest("hex");
}

export function openVerifiedCopies(file: string): VerifiedCopies {
    let entries: Record<string, { fingerprint: string; signature: string }> = {};
    try {
        const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
        if (typeof parsed === "object" && parsed !== null) entries = parsed as typeof entries;
    } catch {
        // Missing or broken: every copy is hashed (and the file rewritten).
    }
    let dirty = false;
    return {
        async unchanged(id, root, fingerprint) {
            const before = signature(root);
            const known = entries[id];
            if (
                before !== undefined &&
                known?.fingerprint === fingerprint &&
                known.signature === before
            ) {
                return { unchanged: true };
            }
            return { unchanged: false, before };
        },
        async remember(id, root, fingerprint, before) {
            const now = signature(root);
            if (now === undefined || now !== before) return;
            entries[id] = { fingerprint, signature: now };
            dirty = true;
        },
        save() {
            if (!dirty) return;
            dirty = false;
            try {
                writeFileAtomicSync(file, `${JSON.stringify(entries, null, 2)}\n`);
            } catch {
                // Only a cache: the next start hashes again.
            }
        },
    };
}
