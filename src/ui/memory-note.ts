import type { PickerOption } from "../commands/types";

/**
 * The chat's quick "remember this": one line starting with `#` (not `##`, a
 * Markdown heading) is a note for memory, never a prompt.
 */
export function memoryNoteOf(input: string): string | undefined {
    return /^\s*#(?!#)([^\n]*)$/.exec(input)?.[1];
}

/** Shown under the composer while the draft is such a note. */
export const MEMORY_NOTE_HINT = "# note → memory · Enter chooses project or user memory";

/**
 * The picker a note asks before it is saved: the project's memory (in the
 * repository, shared with whoever clones it) first, as before, or the user's.
 */
export function memoryNoteChoice(): [title: string, options: PickerOption[], note: string] {
    return [
        "Save this note to",
        [
            {
                id: "project",
                label: "Project memory",
                hint: "in the repository (.north/memory), shared with the project",
            },
            {
                id: "user",
                label: "User memory",
                hint: "yours alone, for every project (in North's data folder)",
            },
        ],
        "Enter saves · Esc keeps the note in the composer",
    ];
}
