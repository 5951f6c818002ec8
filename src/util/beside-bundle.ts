/**
 * Files the build writes beside the bundle (the image worker, zod, the shell
 * parser's .wasm files): in dist/, seen from an entry file, or one folder up
 * from a chunk in dist/chunks/.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The path of `file` beside the bundle, or undefined (running from source). */
export function fileBesideBundle(file: string): string | undefined {
    for (const relative of [`./${file}`, `../${file}`]) {
        const path = fileURLToPath(new URL(relative, import.meta.url));
        if (existsSync(path)) return path;
    }
    return undefined;
}
