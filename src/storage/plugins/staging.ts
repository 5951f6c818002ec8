/**
 * Work folders under `plugins/staging/` (a fresh clone, a copy waiting for the
 * user's yes). A run that was killed leaves one behind; the next plugin
 * operation removes those older than a day (a younger one may belong to
 * another North still asking its question).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { stagingDir } from "./store";

const STALE_MS = 24 * 60 * 60 * 1000;

/** A new, empty work folder named `<prefix>-XXXXXX`, after sweeping stale ones. */
export function makeStagingFolder(dataDirectory: string, prefix: string, now = Date.now()): string {
    const dir = stagingDir(dataDirectory);
    mkdirSync(dir, { recursive: true });
    for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        try {
            if (now - statSync(path).mtimeMs > STALE_MS)
                rmSync(path, { recursive: true, force: true });
        } catch {
            // Gone already (another North swept it).
        }
    }
    return mkdtempSync(join(dir, `${prefix.replace(/[^A-Za-z0-9_-]/g, "-")}-`));
}
