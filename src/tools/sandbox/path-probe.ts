/**
 * Stat calls for the look-ups made before every sandboxed command: a path
 * that is not there (or cannot be, as `file/.git`) is undefined, never an
 * exception, and a missing path costs no Error object.
 */
import { type Stats, lstatSync, statSync } from "node:fs";

/** The entry itself (a link is a link); undefined when missing or unreadable. */
export function lstatQuiet(path: string): Stats | undefined {
    try {
        return lstatSync(path, { throwIfNoEntry: false });
    } catch {
        return undefined; // ENOTDIR, EACCES, ELOOP…
    }
}

/** What the path leads to (links followed); undefined when missing or unreadable. */
export function statQuiet(path: string): Stats | undefined {
    try {
        return statSync(path, { throwIfNoEntry: false });
    } catch {
        return undefined;
    }
}
