import { rmSync } from "node:fs";

/**
 * Removes a file or folder North made, when it is no longer needed; never
 * throws (it runs at exit and in clean-ups): a data folder that became a file,
 * a permission taken away or a full disk leave it behind, not a crash.
 */
export function removeQuietly(target: string): void {
    try {
        rmSync(target, { recursive: true, force: true });
    } catch {
        // left behind: nothing depends on it being gone
    }
}
