/**
 * The edit tools' file operations with an editor's files (ACP): a text file
 * within `CLIENT_FILE_MAX_BYTES` is read from the editor's buffer (what the
 * model edits is what the user sees, unsaved changes included) and written
 * back through the editor (its buffer and undo history stay right). The
 * "changed since prepare" checks read through the editor again, so they
 * compare like with like; the checkpoint records the bytes read, so rewind
 * restores the text North replaced. Stat, locks, directory creation and
 * deletion stay on the disk: ACP has no delete, and an editor write creates
 * a missing file.
 */
import { promises as fs } from "node:fs";
import { readFileViaEditor, writeEditorText } from "../client-files";
import type { ClientFiles } from "../client-workspace";
import { CLIENT_FILE_MAX_BYTES } from "../limits";
import { type EditOperations, localEditOperations } from "./files";

/** `local` with reads and writes of text files going through `files`. */
export function clientEditOperations(
    files: ClientFiles,
    local: EditOperations = localEditOperations
): EditOperations {
    return {
        ...local,
        readFile: (path) => readFileViaEditor(files, path),
        async writeFile(path, data, options) {
            if (data.length > CLIENT_FILE_MAX_BYTES || (await isLarge(path))) {
                return local.writeFile(path, data, options);
            }
            // The editor writes in one step: the last checks run right before it.
            await options.beforeRename?.();
            await writeEditorText(files, path, data);
        },
    };
}

/** A file too large for the editor now, whose edit was prepared from the disk. */
async function isLarge(path: string): Promise<boolean> {
    try {
        return (await fs.stat(path)).size > CLIENT_FILE_MAX_BYTES;
    } catch {
        return false;
    }
}
