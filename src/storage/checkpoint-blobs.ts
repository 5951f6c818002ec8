/**
 * Content-addressed copies of files' prior content, one folder per
 * conversation. An edit waits only for the raw copy (`<sha256>.raw`, temp
 * file then rename: a memory copy into the page cache); compressing it to
 * `<sha256>` (gzip) runs a moment later in the background, so the edit does
 * not pay for it. A raw copy left by a process that exited first is compressed by
 * the next pruning pass. Readers take either form and check the hash.
 */
import { createHash, randomBytes } from "node:crypto";
import { promises as fs, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

// node:zlib is loaded on first use: most runs never compress or read a blob.
const gzipAsync = async (data: Uint8Array, options: { level: number }): Promise<Buffer> =>
    promisify((await import("node:zlib")).gzip)(data, options);
const gunzipAsync = async (data: Uint8Array): Promise<Buffer> =>
    promisify((await import("node:zlib")).gunzip)(data);

const RAW = ".raw";
const HASH_NAME = /^[0-9a-f]{64}$/;

/** The writes the blob store makes; tests inject failures (a full disk) here. */
export interface BlobWrites {
    /** Creates a new file (fails if it exists), 0600. */
    writeFile(path: string, data: Uint8Array): Promise<void>;
    rename(from: string, to: string): Promise<void>;
}

export function sha256(data: Uint8Array): string {
    return createHash("sha256").update(data).digest("hex");
}

function exists(path: string): boolean {
    try {
        statSync(path);
        return true;
    } catch {
        return false;
    }
}

function tempName(dir: string, hash: string): string {
    return join(dir, `.${hash}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
}

async function writeVia(
    io: BlobWrites,
    dir: string,
    hash: string,
    final: string,
    data: Uint8Array
) {
    const temp = tempName(dir, hash);
    try {
        await io.writeFile(temp, data);
        await io.rename(temp, final);
    } catch (error) {
        await fs.unlink(temp).catch(() => undefined);
        throw error;
    }
}

/** Compresses a raw copy into its final form and removes the raw one; no-op when gone. */
async function compact(io: BlobWrites, dir: string, hash: string): Promise<void> {
    const raw = join(dir, hash + RAW);
    const final = join(dir, hash);
    if (!exists(final)) {
        let data: Buffer;
        try {
            data = await fs.readFile(raw);
        } catch {
            return;
        }
        if (sha256(data) !== hash) return;
        await writeVia(io, dir, hash, final, await gzipAsync(data, { level: 1 }));
    }
    await fs.unlink(raw).catch(() => undefined);
}

export interface BlobStore {
    has(hash: string): boolean;
    /** Stores `data` (whose hash is `hash`) unless present; resolves once a copy is on disk. */
    put(hash: string, data: Buffer): Promise<void>;
    /** The bytes of a copy, checked against the hash. */
    get(hash: string): Promise<Buffer>;
    /** Compresses the raw copies waiting for it now; resolves when done. */
    idle(): Promise<void>;
}

/** Raw copies wait this long before compression, so it never competes with the edit's own write. */
const COMPACT_DELAY_MS = 250;

export function createBlobStore(dir: string, io: BlobWrites): BlobStore {
    let background: Promise<void> = Promise.resolve();
    const waiting = new Set<string>();
    let timer: NodeJS.Timeout | undefined;
    const has = (hash: string) => exists(join(dir, hash)) || exists(join(dir, hash + RAW));
    const compactWaiting = (): Promise<void> => {
        clearTimeout(timer);
        timer = undefined;
        const hashes = [...waiting];
        waiting.clear();
        background = background.then(async () => {
            for (const hash of hashes) await compact(io, dir, hash).catch(() => undefined);
        });
        return background;
    };
    return {
        has,
        async put(hash, data) {
            if (has(hash)) return;
            await writeVia(io, dir, hash, join(dir, hash + RAW), data);
            waiting.add(hash);
            // Unreferenced: a process that exits first leaves the raw copy to pruning.
            timer ??= setTimeout(() => void compactWaiting(), COMPACT_DELAY_MS).unref();
        },
        async get(hash) {
            let data: Buffer;
            try {
                data = await gunzipAsync(await fs.readFile(join(dir, hash)));
            } catch (error) {
                if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
                data = await fs.readFile(join(dir, hash + RAW));
            }
            if (sha256(data) !== hash) throw new Error(`the saved copy ${hash} is damaged`);
            return data;
        },
        idle: compactWaiting,
    };
}

/**
 * Tidies one blob folder for pruning: compresses raw copies (a process that
 * exited first leaves them), removes temp files older than `staleMs` (a
 * killed write); returns the bytes the folder holds afterwards.
 */
export async function tidyBlobs(
    dir: string,
    io: BlobWrites,
    now: number,
    staleMs: number
): Promise<number> {
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
        // A raw copy is always complete (renamed into place), so compressing it is
        // safe even while its process runs: both end with the same file.
        if (name.endsWith(RAW) && HASH_NAME.test(name.slice(0, -RAW.length))) {
            await compact(io, dir, name.slice(0, -RAW.length)).catch(() => undefined);
        }
    }
    let total = 0;
    for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
        const stat = await fs.stat(join(dir, name)).catch(() => null);
        if (!stat) continue;
        if (name.endsWith(".tmp") && now - stat.mtimeMs > staleMs) {
            await fs.unlink(join(dir, name)).catch(() => undefined);
            continue;
        }
        total += stat.size;
    }
    return total;
}
