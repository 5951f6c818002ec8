import stringWidth from "string-width";
import { beforeAll, describe, expect, it } from "vitest";
import { createAnsi } from "../../src/ui/render/ansi";
import { renderEntry } from "../../src/ui/render/entry-lines";
import { createLineCache } from "../../src/ui/render/line-cache";
import { loadMarkdown } from "../../src/ui/render/markdown";
import { computeViewport } from "../../src/ui/render/viewport";
import type { Entry } from "../../src/ui/transcript/types";
import { plain } from "./helpers";

beforeAll(() => loadMarkdown());

const ansi = createAnsi(true);

function assistant(i: number, text: string, version = 0): Entry {
    return { kind: "assistant", id: `0:${i}`, version, text, streaming: false, cancelled: false };
}

function conversation(n: number): Entry[] {
    return Array.from({ length: n }, (_, i) =>
        assistant(i, `Answer number ${i} with some words to wrap around.`)
    );
}

describe("line cache", () => {
    it("gives the same lines as rendering directly, and hits on re-render", () => {
        const cache = createLineCache(ansi);
        const entry = assistant(
            0,
            "Hello **there**, a line long enough to wrap at twenty columns."
        );
        const first = cache.get(entry, 20);
        expect(first).toEqual(renderEntry(entry, 20, ansi));
        expect(cache.get(entry, 20)).toBe(first);
        expect(cache.stats()).toMatchObject({ hits: 1, misses: 1 });
    });

    it("draws again when the generation changes (Markdown arrived)", () => {
        let generation = 0;
        const cache = createLineCache(ansi, undefined, () => generation);
        const entry = assistant(0, "**bold**");
        const first = cache.get(entry, 40);
        expect(cache.get(entry, 40)).toBe(first);
        generation = 1;
        expect(cache.get(entry, 40)).not.toBe(first);
    });

    it("re-wraps on a width change and on a new version", () => {
        const cache = createLineCache(ansi);
        const entry = assistant(0, "word ".repeat(20));
        const wide = cache.get(entry, 60);
        const narrow = cache.get(entry, 20);
        expect(narrow.lines.length).toBeGreaterThan(wide.lines.length);
        for (const line of narrow.lines) expect(stringWidth(line)).toBeLessThanOrEqual(20);
        const changed = cache.get(assistant(0, "short", 1), 20);
        expect(plain(changed.lines[0]!)).toBe("● short");
        expect(cache.stats()).toMatchObject({ hits: 0, misses: 3 });
    });
});

describe("viewport", () => {
    it("shows the bottom when following and clamps scrolling at the top", () => {
        const cache = createLineCache(ansi);
        const entries = conversation(5);
        const bottom = computeViewport({ entries, cache, width: 80, height: 3, scrollOffset: 0 });
        expect(bottom.lines.map(plain)).toEqual([
            "● Answer number 3 with some words to wrap around.",
            "",
            "● Answer number 4 with some words to wrap around.",
        ]);
        const top = computeViewport({ entries, cache, width: 80, height: 3, scrollOffset: 1000 });
        expect(top.atTop).toBe(true);
        expect(top.scrollOffset).toBe(9 - 3);
        expect(plain(top.lines[0]!)).toBe("● Answer number 0 with some words to wrap around.");
    });

    it("wraps only the entries it shows: 2,000 entries cost what 10 do", () => {
        const cache = createLineCache(ansi);
        const many = conversation(2000);
        computeViewport({ entries: many, cache, width: 80, height: 20, scrollOffset: 0 });
        expect(cache.stats().misses).toBeLessThanOrEqual(11);
        computeViewport({ entries: many, cache, width: 80, height: 20, scrollOffset: 0 });
        expect(cache.stats().misses).toBeLessThanOrEqual(11);
        // A resize re-wraps only what becomes visible.
        computeViewport({ entries: many, cache, width: 40, height: 20, scrollOffset: 0 });
        expect(cache.stats().misses).toBeLessThanOrEqual(11 + 11);
    });

    it("keeps no more entries' lines than the transcript holds, however many came before", () => {
        const cache = createLineCache(ansi);
        // A long conversation, read back to its top: every entry's lines are cached.
        const long = conversation(500);
        computeViewport({ entries: long, cache, width: 80, height: 20, scrollOffset: 10_000 });
        expect(cache.stats().size).toBe(500);
        // A rewind keeps the first 400: their lines stay (nothing is wrapped again), the rest go.
        const misses = cache.stats().misses;
        const rewound = long.slice(0, 400);
        computeViewport({ entries: rewound, cache, width: 80, height: 20, scrollOffset: 0 });
        expect(cache.stats().misses).toBe(misses);
        expect(cache.stats().size).toBe(400);
        // A new conversation holds three entries: every older entry's lines go.
        const next = [assistant(1000, "fresh"), assistant(1001, "start"), assistant(1002, "here")];
        const view = computeViewport({
            entries: next,
            cache,
            width: 80,
            height: 20,
            scrollOffset: 0,
        });
        expect(view.lines.map(plain)).toContain("● fresh");
        expect(cache.stats().size).toBeLessThanOrEqual(next.length);
    });

    it("swaps the glyph of animated entries without touching the cache", () => {
        const cache = createLineCache(ansi);
        const entries: Entry[] = [
            {
                kind: "tool",
                id: "0:0",
                version: 0,
                callId: "t",
                name: "read_file",
                title: "Reading a.ts",
                status: "running",
                detail: [],
            },
        ];
        const view = computeViewport({
            entries,
            cache,
            width: 40,
            height: 2,
            scrollOffset: 0,
            glyphFor: () => "*  ",
        });
        expect(plain(view.lines[0]!)).toBe("*  Reading a.ts");
        expect(plain(cache.get(entries[0]!, 40).lines[0]!)).toBe("⚡ Reading a.ts");
    });
});
