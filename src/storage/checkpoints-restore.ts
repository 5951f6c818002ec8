/**
 * Restoring code from checkpoints. For a target prompt, each file goes back to
 * the `before` of its first record at or after the first record of the
 * target prompt (or any later one). A file whose bytes are neither the
 * `before` nor the `after` of North's last record for it (or that changed
 * between two of North's changes) was changed by someone else since: it is
 * flagged and only overwritten when the caller says so.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { writeFileAtomic } from "../util/atomic-write";
import { isPathInside } from "../util/read-regular-file";
import type { CheckpointChange, CheckpointOutcome, CheckpointRecord } from "./checkpoints";

/** What restoring one file would do. */
export interface RestoreFile {
    /** Repo-relative POSIX path. */
    path: string;
    /** restore: put the earlier bytes back; delete: North created it; unchanged: it already holds them. */
    action: "restore" | "delete" | "unchanged";
    /** Something other than North changed it after North did, since the target prompt. */
    changedSince: boolean;
    /** Why it cannot be restored (its saved copy is gone, it cannot be read). */
    problem?: string;
    /** sha256 of the bytes to restore; null: the file must not exist. */
    target: string | null;
    /** sha256 of the file when planned; null: it does not exist. */
    current: string | null;
}

export interface RestorePlan {
    conversationId: string;
    repoRoot: string;
    /** Files North changed since the target prompt, in the order it first changed them. */
    files: RestoreFile[];
}

export type PlanResult = { ok: true; plan: RestorePlan } | { ok: false; error: string };

export interface RestoreReport {
    restored: string[];
    deleted: string[];
    /** Not touched: changed by someone else (`changed`, without `includeChanged`), or not restorable. */
    skipped: Array<{ path: string; reason: string; changed: boolean }>;
}

export type RestoreOutcome = { ok: true; report: RestoreReport } | { ok: false; error: string };

export type ResolvedPath = { ok: true; realPath: string } | { ok: false; error: string };

export interface ApplyRestoreOptions {
    /** Also overwrite files changed by someone else since North changed them. */
    includeChanged: boolean;
    /** Where a repo-relative path leads now; default: symlinks followed, confined to the root. */
    resolve?: (repoRoot: string, relPath: string) => Promise<ResolvedPath>;
    /** Locks real paths against North's edits in other processes; resolves to the release. */
    lock?: (realPaths: readonly string[]) => Promise<() => Promise<void>>;
}

export interface PlanContext {
    conversationId: string;
    repoRoot: string;
    storeDir: string;
    blobExists(hash: string): Promise<boolean>;
}

export interface RestoreDeps {
    readBlob(hash: string): Promise<Buffer>;
    record(changes: readonly CheckpointChange[]): Promise<CheckpointOutcome>;
}

const CHANGED_SINCE = "changed since North last changed it";

function sha256(data: Uint8Array): string {
    return createHash("sha256").update(data).digest("hex");
}

function errorText(error: unknown): string {
    return error instanceof Error ? error.message : String(error);
}

async function readOrNull(path: string): Promise<Buffer | null> {
    try {
        return await fs.readFile(path);
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
    }
}

/** The file's hash now (null: absent), or the reason it cannot be read. */
async function currentHash(
    repoRoot: string,
    relPath: string
): Promise<{ hash: string | null } | { error: string }> {
    try {
        const bytes = await readOrNull(join(repoRoot, relPath));
        return { hash: bytes ? sha256(bytes) : null };
    } catch (error) {
        return { error: `cannot read it: ${errorText(error)}` };
    }
}

/** True when someone else changed the file between North's changes from `from` on, or after. */
function changedSince(records: readonly CheckpointRecord[], current: string | null): boolean {
    for (let k = 1; k < records.length; k++) {
        const prev = records[k - 1] as CheckpointRecord;
        const { before } = records[k] as CheckpointRecord;
        // A change whose write never happened left the file at its `before`.
        if (before !== prev.before && before !== prev.after) return true;
    }
    const last = records[records.length - 1] as CheckpointRecord;
    return current !== last.before && current !== last.after;
}

/** One plan per prompt set, hashing each current file once. */
export async function planRestores(
    found: { exists: boolean; records: CheckpointRecord[] },
    promptSets: readonly (readonly string[])[],
    ctx: PlanContext
): Promise<PlanResult[]> {
    if (!found.exists) {
        const error =
            `the checkpoints of conversation ${ctx.conversationId} are gone (${ctx.storeDir} was pruned or deleted, ` +
            "or the conversation is older than checkpoints): its code cannot be restored";
        return promptSets.map(() => ({ ok: false, error }));
    }
    const { records } = found;
    const hashes = new Map<string, Promise<{ hash: string | null } | { error: string }>>();
    const hashOf = (path: string) => {
        let pending = hashes.get(path);
        if (!pending) hashes.set(path, (pending = currentHash(ctx.repoRoot, path)));
        return pending;
    };
    const plans: PlanResult[] = [];
    for (const ids of promptSets) {
        const wanted = new Set(ids);
        const start = records.findIndex((r) => wanted.has(r.promptId));
        const byPath = new Map<string, CheckpointRecord[]>();
        if (start >= 0) {
            for (const r of records.slice(start)) {
                const list = byPath.get(r.path) ?? [];
                list.push(r);
                byPath.set(r.path, list);
            }
        }
        const files: RestoreFile[] = [];
        for (const [path, list] of byPath) {
            const target = (list[0] as CheckpointRecord).before;
            const now = await hashOf(path);
            const current = "hash" in now ? now.hash : null;
            const file: RestoreFile = {
                path,
                action: current === target ? "unchanged" : target === null ? "delete" : "restore",
                changedSince: changedSince(list, current),
                target,
                current,
            };
            if ("error" in now) file.problem = now.error;
            else if (file.action === "restore" && !(await ctx.blobExists(target as string))) {
                file.problem = "its saved copy is missing from the checkpoint store";
            }
            files.push(file);
        }
        plans.push({
            ok: true,
            plan: { conversationId: ctx.conversationId, repoRoot: ctx.repoRoot, files },
        });
    }
    return plans;
}

/** Follows symlinks of the existing part of the path; refuses anything that leads out of the root. */
export async function resolveInsideRoot(repoRoot: string, relPath: string): Promise<ResolvedPath> {
    if (isAbsolute(relPath) || relPath.split("/").includes("..")) {
        return { ok: false, error: "the recorded path leads out of the project" };
    }
    let root: string;
    try {
        root = await fs.realpath(repoRoot);
    } catch (error) {
        return {
            ok: false,
            error: `the project ${repoRoot} cannot be reached: ${errorText(error)}`,
        };
    }
    let existing = join(root, relPath);
    /** Parts below `existing` that do not exist yet, outermost first. */
    const missing: string[] = [];
    for (;;) {
        try {
            const real = join(await fs.realpath(existing), ...missing);
            return isPathInside(root, real)
                ? { ok: true, realPath: real }
                : { ok: false, error: "it now leads out of the project (a link on its path)" };
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== "ENOENT" || existing === root) {
                return { ok: false, error: errorText(error) };
            }
            missing.unshift(basename(existing));
            existing = dirname(existing);
        }
    }
}

interface Pending {
    file: RestoreFile;
    realPath: string;
    now: Buffer | null;
    bytes: Buffer | null;
}

async function put(realPath: string, bytes: Buffer | null): Promise<void> {
    if (bytes === null) {
        await fs.unlink(realPath).catch((error: unknown) => {
            if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        });
        return;
    }
    await fs.mkdir(dirname(realPath), { recursive: true });
    await writeFileAtomic(realPath, bytes, { mode: 0o644 });
}

/** Reads, checks and loads what each chosen file needs; skips what cannot or must not change. */
async function gather(
    chosen: readonly { file: RestoreFile; realPath: string }[],
    deps: RestoreDeps,
    skipped: RestoreReport["skipped"]
): Promise<Pending[]> {
    const pending: Pending[] = [];
    for (const { file, realPath } of chosen) {
        let now: Buffer | null;
        try {
            now = await readOrNull(realPath);
        } catch (error) {
            skipped.push({
                path: file.path,
                reason: `cannot read it: ${errorText(error)}`,
                changed: false,
            });
            continue;
        }
        if ((now ? sha256(now) : null) !== file.current) {
            skipped.push({
                path: file.path,
                reason: "it changed while the rewind was prepared",
                changed: true,
            });
            continue;
        }
        try {
            const bytes = file.target === null ? null : await deps.readBlob(file.target);
            pending.push({ file, realPath, now, bytes });
        } catch (error) {
            skipped.push({
                path: file.path,
                reason: `its saved copy cannot be read: ${errorText(error)}`,
                changed: false,
            });
        }
    }
    return pending;
}

/**
 * Carries out a plan under the file locks: checks each file still holds what
 * the plan saw, records the rewind's own changes (so a later rewind's checks
 * stay right), then writes each file atomically. If a write fails, the files
 * already written are put back and nothing counts as restored.
 */
export async function applyRestorePlan(
    plan: RestorePlan,
    options: ApplyRestoreOptions,
    deps: RestoreDeps
): Promise<RestoreOutcome> {
    const report: RestoreReport = { restored: [], deleted: [], skipped: [] };
    const resolve = options.resolve ?? resolveInsideRoot;
    const chosen: Array<{ file: RestoreFile; realPath: string }> = [];
    for (const file of plan.files) {
        if (file.action === "unchanged") continue;
        const skip = (reason: string, changed = false) =>
            report.skipped.push({ path: file.path, reason, changed });
        if (file.problem) skip(file.problem);
        else if (file.changedSince && !options.includeChanged) skip(CHANGED_SINCE, true);
        else {
            const where = await resolve(plan.repoRoot, file.path);
            if (where.ok) chosen.push({ file, realPath: where.realPath });
            else skip(where.error);
        }
    }
    if (chosen.length === 0) return { ok: true, report };
    let release: () => Promise<void>;
    try {
        release = options.lock ? await options.lock(chosen.map((c) => c.realPath)) : async () => {};
    } catch (error) {
        return {
            ok: false,
            error: `cannot lock the files: ${errorText(error)}; nothing was changed`,
        };
    }
    try {
        const pending = await gather(chosen, deps, report.skipped);
        if (pending.length === 0) return { ok: true, report };
        const recorded = await deps.record(
            pending.map((p) => ({
                path: p.realPath,
                relPath: p.file.path,
                before: p.now,
                after: p.bytes,
            }))
        );
        if (!recorded.ok) {
            return {
                ok: false,
                error: `could not save a checkpoint before rewinding (${recorded.error}); nothing was changed`,
            };
        }
        const done: Pending[] = [];
        for (const p of pending) {
            try {
                await put(p.realPath, p.bytes);
                done.push(p);
            } catch (error) {
                const lost: string[] = [];
                for (const back of done.reverse()) {
                    await put(back.realPath, back.now).catch(() => lost.push(back.file.path));
                }
                const tail =
                    lost.length > 0
                        ? `could not put back ${lost.join(", ")}; check ${lost.length === 1 ? "it" : "them"}`
                        : "no file was changed";
                return {
                    ok: false,
                    error: `could not write ${p.file.path}: ${errorText(error)}; ${tail}`,
                };
            }
        }
        for (const p of done) (p.bytes ? report.restored : report.deleted).push(p.file.path);
        return { ok: true, report };
    } finally {
        await release().catch(() => undefined);
    }
}
