import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ToolContext } from "../../src/tools/types";

export interface TempRepo {
    /** Real (symlink-resolved) path of the temporary project root. */
    root: string;
    ctx: (signal?: AbortSignal) => ToolContext;
    write: (rel: string, content: string | Buffer) => Promise<void>;
    cleanup: () => Promise<void>;
}

/** A temporary project with the given files (POSIX paths; a trailing "/" makes a directory). */
export async function makeRepo(files: Record<string, string | Buffer> = {}): Promise<TempRepo> {
    const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "north-tools-")));
    const write = async (rel: string, content: string | Buffer) => {
        const abs = path.join(root, ...rel.split("/"));
        if (rel.endsWith("/")) {
            await fs.mkdir(abs, { recursive: true });
            return;
        }
        await fs.mkdir(path.dirname(abs), { recursive: true });
        await fs.writeFile(abs, content);
    };
    for (const [rel, content] of Object.entries(files)) await write(rel, content);
    return {
        root,
        ctx: (signal = new AbortController().signal) => ({ repoRoot: root, signal }),
        write,
        cleanup: () => fs.rm(root, { recursive: true, force: true }),
    };
}

/** A temporary directory outside any repo (for symlink targets). */
export async function makeOutsideDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
    const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "north-outside-")));
    return { dir, cleanup: () => fs.rm(dir, { recursive: true, force: true }) };
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
    const out: T[] = [];
    for await (const item of iterable) out.push(item);
    return out;
}

/** Narrows a ToolResult in tests. */
export function expectOk<D>(
    result: { ok: true; data: D } | { ok: false; error: { code: string; message: string } }
): D {
    if (!result.ok)
        throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`);
    return result.data;
}

export function expectError(
    result: { ok: true; data: unknown } | { ok: false; error: { code: string; message: string } }
): { code: string; message: string } {
    if (result.ok)
        throw new Error(`expected an error, got ${JSON.stringify(result.data).slice(0, 300)}`);
    return result.error;
}
