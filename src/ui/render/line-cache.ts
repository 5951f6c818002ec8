/**
 * Pre-wrapped lines per entry, kept per entry id, width and version: an entry
 * is wrapped again only when it changed or the width did. Entries are wrapped
 * lazily, when the viewport first needs them, and the cache never keeps more
 * entries than the transcript holds (a new conversation, a rewind or a resume
 * drops the lines of the entries that went).
 */
import type { Entry } from "../transcript/types";
import type { Ansi } from "./ansi";
import { type RenderedEntry, renderEntry } from "./entry-lines";
import { markdownGeneration } from "./markdown";

interface Slot {
    width: number;
    version: number;
    generation: number;
    rendered: RenderedEntry;
}

export interface LineCache {
    get(entry: Entry, width: number): RenderedEntry;
    /**
     * The transcript now holds `entries`: once the cache holds lines of more
     * entries than that, it forgets those of entries no longer there.
     */
    keepWithin(entries: readonly Entry[]): void;
    /** Hits and misses since creation (for tests and the benchmark). */
    stats(): { hits: number; misses: number; size: number };
    clear(): void;
}

/**
 * `generation` changes when every entry must be drawn again (the Markdown
 * renderer arrived).
 */
export function createLineCache(
    ansi: Ansi,
    render: (entry: Entry, width: number, ansi: Ansi) => RenderedEntry = renderEntry,
    generation: () => number = markdownGeneration
): LineCache {
    const slots = new Map<string, Slot>();
    let hits = 0;
    let misses = 0;
    return {
        get(entry, width) {
            const slot = slots.get(entry.id);
            const gen = generation();
            if (
                slot &&
                slot.width === width &&
                slot.version === entry.version &&
                slot.generation === gen
            ) {
                hits++;
                return slot.rendered;
            }
            misses++;
            const rendered = render(entry, width, ansi);
            slots.set(entry.id, { width, version: entry.version, generation: gen, rendered });
            return rendered;
        },
        keepWithin(entries) {
            if (slots.size <= entries.length) return;
            const live = new Set(entries.map((entry) => entry.id));
            for (const id of slots.keys()) if (!live.has(id)) slots.delete(id);
        },
        stats: () => ({ hits, misses, size: slots.size }),
        clear() {
            slots.clear();
        },
    };
}
