/**
 * The visible slice of the transcript: entries are taken from the bottom up
 * until the viewport (plus the scroll offset) is covered, so the work per
 * frame follows the screen, not the length of the conversation.
 */
import stringWidth from "string-width";
import type { Entry } from "../transcript/types";
import { gapBetween } from "./entry-lines";
import type { LineCache } from "./line-cache";

export interface ViewportRequest {
    entries: readonly Entry[];
    cache: LineCache;
    /** Columns of the transcript. */
    width: number;
    /** Rows to fill. */
    height: number;
    /** Lines scrolled up from the bottom (0: following). */
    scrollOffset: number;
    /** A replacement glyph for animated entries (undefined: draw as cached). */
    glyphFor?: (entry: Entry) => string | undefined;
    /** Text after an entry's first line (a running command's elapsed time), drawn when it fits. */
    suffixFor?: (entry: Entry) => string | undefined;
}

export interface Viewport {
    /** At most `height` lines, top to bottom. */
    lines: string[];
    /** The offset actually used (clamped at the top of the transcript). */
    scrollOffset: number;
    /** The first line of the transcript is visible. */
    atTop: boolean;
}

export function computeViewport(request: ViewportRequest): Viewport {
    const { entries, cache, width, glyphFor, suffixFor } = request;
    cache.keepWithin(entries);
    const height = Math.max(0, request.height);
    const want = Math.max(0, request.scrollOffset) + height;
    const blocks: string[][] = [];
    let total = 0;
    let index = entries.length - 1;
    for (; index >= 0 && total < want; index--) {
        const entry = entries[index] as Entry;
        const rendered = cache.get(entry, width);
        let lines = rendered.lines;
        const glyph = glyphFor?.(entry);
        if (glyph !== undefined) lines = [glyph + rendered.firstBody, ...lines.slice(1)];
        const suffix = suffixFor?.(entry);
        if (suffix !== undefined) {
            const first = lines[0] ?? "";
            if (stringWidth(first) + stringWidth(suffix) <= width) {
                lines = [first + suffix, ...lines.slice(1)];
            }
        }
        const previous = index > 0 ? entries[index - 1] : undefined;
        if (previous && gapBetween(previous, entry)) lines = ["", ...lines];
        blocks.push(lines);
        total += lines.length;
    }
    const atTop = index < 0;
    const scrollOffset = atTop
        ? Math.min(Math.max(0, request.scrollOffset), Math.max(0, total - height))
        : Math.max(0, request.scrollOffset);
    const all: string[] = [];
    for (let b = blocks.length - 1; b >= 0; b--) all.push(...(blocks[b] as string[]));
    const end = all.length - scrollOffset;
    const start = Math.max(0, end - height);
    return { lines: all.slice(start, end), scrollOffset, atTop: atTop && start === 0 };
}
