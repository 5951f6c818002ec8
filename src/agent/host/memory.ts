/**
 * Memory over the current session: what memory is
 * loaded, and saving a note (which the next request sends).
 */
import type { AgentSession } from "../session";
import {
    type MemoryScope,
    appendMemoryNote,
    ensureMemoryIndex,
    loadMemory,
    memoryDirs,
} from "../../project/memory";
import { dataDir } from "../../storage/paths";
import type { MemoryListing, Outcome } from "../protocol";

export function memoryListing(repoRoot: string): MemoryListing {
    const dirs = memoryDirs(dataDir(), repoRoot);
    const loaded = loadMemory(dirs);
    return {
        dirs: dirs.map(({ scope, dir, label }) => ({ scope, dir, label })),
        files: loaded.files.map(({ scope, path, label, bytes, loadedBytes }) => ({
            scope,
            path,
            label,
            bytes,
            loadedBytes,
        })),
        warnings: loaded.warnings,
    };
}

/** Appends the note to the scope's `MEMORY.md` and sends the new memory from the next request. */
export function saveMemoryNote(
    engine: { repoRoot: string; session: Pick<AgentSession, "setMemory"> },
    note: string,
    scope: MemoryScope
): Outcome {
    const dirs = memoryDirs(dataDir(), engine.repoRoot);
    const target = dirs.find((d) => d.scope === scope)!;
    const saved = appendMemoryNote(target.dir, note, { within: target.insideRoot });
    if (!saved.ok) return { message: `Not saved: ${saved.error}`, isError: true };
    engine.session.setMemory(loadMemory(dirs).text ?? undefined);
    return { message: `Saved to ${scope} memory (${target.label}/MEMORY.md).` };
}

/** The scope's `MEMORY.md` for `/memory edit`, created with its folder when missing. */
export function memoryFileToEdit(
    repoRoot: string,
    scope: MemoryScope
): { ok: true; path: string } | { ok: false; error: string } {
    const target = memoryDirs(dataDir(), repoRoot).find((d) => d.scope === scope)!;
    const ensured = ensureMemoryIndex(target.dir, { within: target.insideRoot });
    return ensured.ok ? { ok: true, path: ensured.path } : ensured;
}

function size(bytes: number): string {
    return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

/** Reads every memory file again and sends the result from the next request on. */
export function reloadMemory(engine: {
    repoRoot: string;
    session: Pick<AgentSession, "setMemory">;
}): Outcome {
    const loaded = loadMemory(memoryDirs(dataDir(), engine.repoRoot));
    engine.session.setMemory(loaded.text ?? undefined);
    const loadedBytes = loaded.files.reduce((sum, f) => sum + f.loadedBytes, 0);
    const count = loaded.files.filter((f) => f.loadedBytes > 0).length;
    const lines = [
        loaded.text === null
            ? "Memory reloaded: it is empty now; the next request carries none."
            : `Memory reloaded: ${size(loadedBytes)} in ${count} ${count === 1 ? "file" : "files"}; the next request carries it.`,
        ...loaded.warnings.map((w) => `warning: ${w}`),
    ];
    return { message: lines.join("\n") };
}
