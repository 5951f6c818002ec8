/**
 * Ctrl+G: the draft goes to a temporary file, the user's editor opens it
 * (the chat hands the terminal over and takes it back), and what the editor
 * saved comes back as the draft. An editor that fails keeps the old draft.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The chat's editor handover (terminal/editor-handover), dropping what a failed editor saved. */
export type EditFile = (path: string) => { ok: true } | { ok: false; error: string };

export type DraftEdit = { ok: true; text: string } | { ok: false; message: string };

/** Opens `text` in the user's editor; the saved text, or why the draft stays as it was. */
export function editDraft(text: string, editFile: EditFile, dir: string = tmpdir()): DraftEdit {
    const folder = mkdtempSync(join(dir, "north-prompt-"));
    // .md: editors colour it as markdown, which a prompt mostly is.
    const path = join(folder, "PROMPT.md");
    try {
        writeFileSync(path, text, { mode: 0o600 });
        const edited = editFile(path);
        if (!edited.ok) return { ok: false, message: `${edited.error}; the draft is unchanged` };
        // Editors end a saved file with a newline; the draft does not keep it.
        return { ok: true, text: readFileSync(path, "utf8").replace(/\r?\n$/, "") };
    } catch (error) {
        return { ok: false, message: `could not edit the draft: ${(error as Error).message}` };
    } finally {
        rmSync(folder, { recursive: true, force: true });
    }
}
