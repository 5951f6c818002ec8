/**
 * Edits a JSON object file in place for North's own small writes (standing
 * approvals, removing a rule): locked, atomic, every other key kept as read.
 * A broken file is never rewritten: the error says so and nothing is lost.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { configWriteTarget, writeConfigFileAtomicSync } from "../util/atomic-write";
import { withFileLock } from "../util/file-lock";
import { readRegularTextSync } from "../util/read-regular-file";

export type JsonObject = Record<string, unknown>;

/** The file's object; `{}` when it does not exist or is empty. Throws on a broken file. */
export function readJsonObject(path: string): JsonObject {
    let text: string;
    try {
        text = readRegularTextSync(path);
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
        throw error;
    }
    if (text.trim() === "") return {};
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch (error) {
        throw new Error(
            `${path} is not valid JSON (${(error as Error).message}); it was left as is`
        );
    }
    if (!isJsonObject(json)) throw new Error(`${path} is not a JSON object; it was left as is`);
    return json;
}

export function isJsonObject(value: unknown): value is JsonObject {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Runs `change` on the file's object under its lock and writes the result
 * atomically (through a symlink to its target), keeping the file's mode
 * (`newFileMode` for a new file); a `change` that returns false writes
 * nothing. Returns whether it wrote.
 */
export function editJsonObject(
    path: string,
    change: (object: JsonObject) => boolean,
    options: { newFileMode?: number; insideRoot?: string } = {}
): boolean {
    mkdirSync(dirname(path), { recursive: true });
    // Locked and read at the link's target, so a linked file stays a link.
    const target = configWriteTarget(path, options.insideRoot);
    return withFileLock(target, () => {
        const object = readJsonObject(target);
        if (!change(object)) return false;
        writeConfigFileAtomicSync(target, JSON.stringify(object, null, 2) + "\n", {
            mode: options.newFileMode ?? 0o600,
            sync: true,
        });
        return true;
    });
}

/** Adds `item` to the list at `object[key]` (made a list when it is not one); false when present. */
export function addToList(object: JsonObject, key: string, item: string): boolean {
    const list = Array.isArray(object[key]) ? (object[key] as unknown[]) : [];
    if (list.includes(item)) return false;
    object[key] = [...list, item];
    return true;
}

/** Removes every `item` from the list at `object[key]`; false when it was not there. */
export function removeFromList(object: JsonObject, key: string, item: string): boolean {
    const list = object[key];
    if (!Array.isArray(list)) return false;
    const kept = list.filter((entry) => typeof entry !== "string" || entry.trim() !== item);
    if (kept.length === list.length) return false;
    object[key] = kept;
    return true;
}
