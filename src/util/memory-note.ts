/**
 * What a memory note is, for both ways one is saved: the user's `#` input
 * (project/memory.ts) and the model's `remember` tool (tools/remember.ts).
 */

/** The index file of a memory directory. */
export const MEMORY_INDEX = "MEMORY.md";

/** The project's memory directory, relative to the project root (POSIX form). */
export const PROJECT_MEMORY_DIR = ".north/memory";

/** The project memory's index, as the edit tools name it. */
export const PROJECT_MEMORY_INDEX = `${PROJECT_MEMORY_DIR}/${MEMORY_INDEX}`;

/** Longest note `#` or `remember` accepts: memory is a list of facts, not a document. */
export const MAX_NOTE_CHARS = 1000;

/** The first line of a new index, before its first note (`eol` keeps a file's line ends). */
export function newMemoryIndexText(eol = "\n"): string {
    return `# Memory${eol}${eol}`;
}

/** A note as the text of its index line: trimmed, its line breaks joined with a space. */
export function noteText(note: string): string {
    return note.trim().replace(/\s*\r?\n\s*/g, " ");
}

/** A note as one index line: a bullet, on one line, ending with `eol`. */
export function noteLine(note: string, eol = "\n"): string {
    return `- ${noteText(note)}${eol}`;
}

/** Why a note cannot be saved (each caller words it), or null when it can. */
export function noteFault(note: string): { empty: true } | { tooLong: number; max: number } | null {
    const text = noteText(note);
    if (text === "") return { empty: true };
    return text.length > MAX_NOTE_CHARS ? { tooLong: text.length, max: MAX_NOTE_CHARS } : null;
}
