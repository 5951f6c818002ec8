/**
 * The chat's quick "remember this": one line starting with `#` (not `##`, a
 * Markdown heading) is a note for memory, never a prompt.
 */
export function memoryNoteOf(input: string): string | undefined {
    return /^\s*#(?!#)([^\n]*)$/.exec(input)?.[1];
}

/** Shown under the composer while the draft is such a note. */
export const MEMORY_NOTE_HINT = "# note → memory · Enter chooses project or user memory";
