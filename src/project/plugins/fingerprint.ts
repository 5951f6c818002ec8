/**
 * A plugin folder's fingerprint: sha256 over every entry's relative path,
 * kind, mode and content (a symlink by its target text), in sorted order.
 * The user approves a plugin by this value; any change to a file, its mode
 * or its name changes it.
 */
import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";

export const MAX_FINGERPRINT_FILES = 5_000;
export const MAX_FINGERPRINT_BYTES = 256 * 1024 * 1024;

export class PluginFingerprintError extends Error {}

async function hashFile(hash: Hash, path: string): Promise<void> {
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
}

/** Relative paths (POSIX) of everything under `root`, sorted; folders are walked, links are not. */
async function entries(root: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (rel: string): Promise<void> => {
        const names = (await readdir(join(root, rel))).sort();
        for (const name of names) {
            const child = rel === "" ? name : `${rel}/${name}`;
            out.push(child);
            if (out.length > MAX_FINGERPRINT_FILES) {
                throw new PluginFingerprintError(
                    `the plugin has more than ${MAX_FINGERPRINT_FILES} files; refused`
                );
            }
            if ((await lstat(join(root, child))).isDirectory()) await walk(child);
        }
    };
    await walk("");
    return out.sort();
}

/** The fingerprint of the plugin folder `root` ("sha256:<hex>"). */
export async function pluginFingerprint(root: string): Promise<string> {
    const hash = createHash("sha256");
    let bytes = 0;
    for (const rel of await entries(root)) {
        const path = join(root, rel);
        const stats = await lstat(path);
        const mode = (stats.mode & 0o777).toString(8);
        if (stats.isSymbolicLink()) {
            hash.update(`link\0${rel}\0${await readlink(path)}\0`);
        } else if (stats.isDirectory()) {
            hash.update(`dir\0${rel}\0${mode}\0`);
        } else if (stats.isFile()) {
            bytes += stats.size;
            if (bytes > MAX_FINGERPRINT_BYTES) {
                throw new PluginFingerprintError("the plugin is larger than 256 MB; refused");
            }
            hash.update(`file\0${rel}\0${mode}\0${stats.size}\0`);
            await hashFile(hash, path);
        } else {
            // A FIFO or device is never opened (it could block); its presence still counts.
            hash.update(`special\0${rel}\0${mode}\0`);
        }
    }
    return `sha256:${hash.digest("hex")}`;
}
