/**
 * The transcript view (Ctrl+O): every entry in full, scrolled and searched
 * apart from the chat underneath, which it leaves as it was.
 *
 * Position is counted in lines up from the end, as in the chat's viewport, so
 * only what is on screen (and, for a search, the snapshot searched) is ever
 * wrapped. At the end the view follows new output; scrolled up it holds the
 * entries it had, so what is being read does not move.
 */
import type { Entry } from "./transcript/types";
import type { Ansi } from "./render/ansi";
import { gapBetween, type RenderedEntry, renderEntry } from "./render/entry-lines";
import type { LineCache } from "./render/line-cache";
import { computeViewport } from "./render/viewport";
import type { KeyEvent } from "./input/keys";

export interface TranscriptSearch {
    /** The query is being typed (keys go into it). */
    editing: boolean;
    query: string;
    /**
     * Lines that hold the query, each as the number of lines below it to the
     * end of the snapshot (0: the last line), nearest the end first. Found
     * from the end up, only as far as a jump needs, so a search in a long
     * conversation wraps no more entries than it must.
     */
    matches: number[];
    /** Index in `matches` of the match shown; null before Enter. */
    current: number | null;
    /** Entries searched so far, counted from the end, and the lines they make. */
    scanned: number;
    linesBelow: number;
    /** Every entry was searched: `matches` is all of them. */
    complete: boolean;
}

export interface TranscriptViewState {
    open: boolean;
    /** Lines up from the end (0: the end, following new output). */
    offset: number;
    /** The entries shown while not following; null follows the chat. */
    frozen: readonly Entry[] | null;
    search: TranscriptSearch | null;
    /** The last search found nothing, or wrapped: said in the footer until the next key. */
    note: string | null;
}

const CLOSED: TranscriptViewState = {
    open: false,
    offset: 0,
    frozen: null,
    search: null,
    note: null,
};

/** Lines one wheel notch scrolls. */
const WHEEL_LINES = 3;

/** An entry with everything it folds shown: a tool's whole output, thinking, a diff, a plan. */
export function unfolded(entry: Entry): Entry {
    switch (entry.kind) {
        case "tool":
            // An accepted edit's diff lives on its call's entry and unfolds with it.
            return entry.fullDetail || entry.approval?.diffs
                ? { ...entry, expanded: true, toggles: false }
                : entry;
        case "thinking":
        case "review":
            return { ...entry, expanded: true, toggles: false };
        default:
            return entry;
    }
}

/** The view's lines of an entry (its own line cache keeps them apart from the chat's). */
export function renderUnfolded(entry: Entry, width: number, ansi: Ansi): RenderedEntry {
    return renderEntry(unfolded(entry), width, ansi);
}

/** Folded in the chat: it has more to show than the chat shows now. */
function folded(entry: Entry): boolean {
    switch (entry.kind) {
        case "tool":
            return (
                !entry.expanded &&
                ((entry.fullDetail?.length ?? 0) > entry.detail.length ||
                    (entry.approval?.diffs?.length ?? 0) > 0)
            );
        case "thinking":
            return !entry.expanded && !entry.streaming && entry.text.trim() !== "";
        case "review":
            return !entry.expanded && ((entry.diffs?.length ?? 0) > 0 || Boolean(entry.plan));
        default:
            return false;
    }
}

// eslint-disable-next-line no-control-regex -- SGR sequences in pre-rendered lines
const SGR = /\x1b\[[0-9;:]*m/g;
export const plainLine = (line: string): string => line.replace(SGR, "");

/** Every line of `entries` in the view, top to bottom. */
export function allLines(entries: readonly Entry[], cache: LineCache, width: number): string[] {
    return computeViewport({
        entries,
        cache,
        width,
        height: Number.MAX_SAFE_INTEGER,
        scrollOffset: 0,
    }).lines;
}

/** The offset that shows the line `below` lines above the end a third of the way down a view `height` high. */
export function offsetShowing(below: number, height: number): number {
    return Math.max(0, below + 1 - height + Math.floor(height / 3));
}

const newSearch = (query: string, editing: boolean): TranscriptSearch => ({
    editing,
    query,
    matches: [],
    current: null,
    scanned: 0,
    linesBelow: 0,
    complete: false,
});

/**
 * `search` carried on up `entries` (as the view draws them, gaps included)
 * until `enough` holds or every entry was searched.
 */
export function scanUp(
    search: TranscriptSearch,
    entries: readonly Entry[],
    cache: LineCache,
    width: number,
    enough: (search: TranscriptSearch) => boolean
): TranscriptSearch {
    const needle = search.query.toLowerCase();
    const matches = [...search.matches];
    let { scanned, linesBelow } = search;
    const current = (): TranscriptSearch => ({
        ...search,
        matches,
        scanned,
        linesBelow,
        complete: scanned >= entries.length,
    });
    while (scanned < entries.length && !enough(current())) {
        const index = entries.length - 1 - scanned;
        const entry = entries[index] as Entry;
        const previous = index > 0 ? entries[index - 1] : undefined;
        const lines = cache.get(entry, width).lines;
        const count = lines.length + (previous && gapBetween(previous, entry) ? 1 : 0);
        for (let j = lines.length - 1; j >= 0; j--) {
            if (
                plainLine(lines[j] as string)
                    .toLowerCase()
                    .includes(needle)
            ) {
                matches.push(linesBelow + (lines.length - 1 - j));
            }
        }
        linesBelow += count;
        scanned++;
    }
    return current();
}

export interface TranscriptViewGeometry {
    /** The chat's entries now. */
    entries: readonly Entry[];
    width: number;
    /** Rows for the transcript's lines. */
    height: number;
}

export interface TranscriptView {
    /** The view's own lines (entries unfolded), kept apart from the chat's. */
    cache: LineCache;
    get(): TranscriptViewState;
    subscribe(listener: () => void): () => void;
    /** Opens at the latest folded entry (its first line at the top), or at the end when none. */
    open(at: TranscriptViewGeometry): void;
    close(): void;
    /**
     * A key while the view is open: scrolls, searches, or closes it (Esc, q).
     * The App closes it for its own keys (Ctrl+O) before this is called.
     */
    key(event: KeyEvent, at: TranscriptViewGeometry, wheel?: "up" | "down"): void;
    /** The viewport drew the offset clamped at the top. */
    clamp(from: number, offset: number): void;
}

export function createTranscriptView(cache: LineCache): TranscriptView {
    let state = CLOSED;
    const listeners = new Set<() => void>();
    const set = (next: TranscriptViewState): void => {
        if (next === state) return;
        state = next;
        for (const listener of [...listeners]) listener();
    };
    const shown = (at: TranscriptViewGeometry): readonly Entry[] => state.frozen ?? at.entries;
    const moveTo = (offset: number, at: TranscriptViewGeometry, note: string | null = null) => {
        const to = Math.max(0, offset);
        // Back at the end: follow the chat again (a search keeps its snapshot).
        const frozen = to === 0 && !state.search ? null : shown(at);
        set({ ...state, offset: to, frozen, note });
    };
    const page = (at: TranscriptViewGeometry): number => Math.max(1, at.height - 1);

    /** Enter, n, N: the match to show, searching up from the bottom of the view (the reader starts at the end). */
    const jump = (at: TranscriptViewGeometry, direction: "first" | "up" | "down"): void => {
        const start = state.search;
        if (!start) return;
        const entries = shown(at);
        const scan = (from: TranscriptSearch, enough: (s: TranscriptSearch) => boolean) =>
            scanUp(from, entries, cache, at.width, enough);
        let search = { ...start, editing: false };
        let current: number | null = null;
        let note: string | null = null;
        if (direction === "first" || search.current === null) {
            // The nearest match at or above the bottom of the view.
            const bottom = state.offset;
            search = scan(search, (s) => s.matches.some((m) => m >= bottom));
            const index = search.matches.findIndex((m) => m >= bottom);
            current = index !== -1 ? index : search.matches.length > 0 ? 0 : null;
        } else if (direction === "up") {
            const want = search.current + 1;
            search = scan(search, (s) => s.matches.length > want);
            if (want < search.matches.length) current = want;
            else {
                current = 0;
                note = "from the end again";
            }
        } else if (search.current > 0) current = search.current - 1;
        else {
            // Past the end: round to the top, which needs the whole search.
            search = scan(search, () => false);
            current = search.matches.length - 1;
            note = "from the top again";
        }
        if (current === null) {
            set({ ...state, frozen: entries, search, note: `no match for "${search.query}"` });
            return;
        }
        const below = search.matches[current] as number;
        set({
            ...state,
            frozen: entries,
            offset: offsetShowing(below, at.height),
            search: { ...search, current },
            note,
        });
    };

    const searchKey = (event: KeyEvent, search: TranscriptSearch, at: TranscriptViewGeometry) => {
        if (event.type === "text") {
            set({ ...state, search: { ...search, query: search.query + event.text }, note: null });
            return;
        }
        if (event.type !== "key") return;
        switch (event.name) {
            case "return":
                if (search.query === "") return set({ ...state, search: null });
                set({ ...state, search: newSearch(search.query, false) });
                return jump(at, "first");
                return;
            case "escape":
                set({ ...state, search: null, note: null });
                return;
            case "backspace":
                set({
                    ...state,
                    search: { ...search, query: [...search.query].slice(0, -1).join("") },
                });
                return;
            default:
                return;
        }
    };

    function handleKey(event: KeyEvent, at: TranscriptViewGeometry, wheel?: "up" | "down"): void {
        // Keys typed fast arrive as one text: each acts in turn ("/word" opens the search, then fills it).
        const chars = event.type === "text" ? [...event.text] : [];
        if (chars.length > 1 && !state.search?.editing) {
            chars.forEach((text) => handleKey({ type: "text", text }, at));
            return;
        }
        const search = state.search;
        if (search?.editing) return searchKey(event, search, at);
        if (wheel) return moveTo(state.offset + (wheel === "up" ? WHEEL_LINES : -WHEEL_LINES), at);
        if (event.type === "text") {
            switch (event.text) {
                case "q":
                    return set(CLOSED);
                case "/":
                    return set({
                        ...state,
                        frozen: shown(at),
                        search: newSearch("", true),
                        note: null,
                    });
                case "n":
                    return jump(at, "up");
                case "N":
                    return jump(at, "down");
                case "g":
                    return moveTo(Number.MAX_SAFE_INTEGER, at);
                case "G":
                    return moveTo(0, at);
                case "k":
                    return moveTo(state.offset + 1, at);
                case "j":
                    return moveTo(state.offset - 1, at);
                default:
                    return;
            }
        }
        if (event.type !== "key") return;
        switch (event.name) {
            case "escape":
                // A search's marks go first, then the view.
                return set(search ? { ...state, search: null, note: null } : CLOSED);
            case "up":
                return moveTo(state.offset + 1, at);
            case "down":
                return moveTo(state.offset - 1, at);
            case "pageup":
                return moveTo(state.offset + page(at), at);
            case "pagedown":
                return moveTo(state.offset - page(at), at);
            case "home":
                return moveTo(Number.MAX_SAFE_INTEGER, at);
            case "end":
                return moveTo(0, at);
            default:
                return;
        }
    }

    return {
        cache,
        get: () => state,
        subscribe(listener) {
            listeners.add(listener);
            return () => listeners.delete(listener);
        },
        open(at) {
            let index = at.entries.length - 1;
            while (index >= 0 && !folded(at.entries[index] as Entry)) index--;
            if (index < 0) {
                set({ ...CLOSED, open: true });
                return;
            }
            // Only the entries from the folded one on are wrapped to find where it starts.
            const below = allLines(at.entries.slice(index), cache, at.width).length;
            const offset = Math.max(0, below - at.height);
            set({ ...CLOSED, open: true, offset, frozen: offset > 0 ? at.entries : null });
        },
        close() {
            set(CLOSED);
        },
        key: handleKey,
        clamp(from, offset) {
            if (!state.open || from !== state.offset || offset === state.offset) return;
            set({ ...state, offset });
        },
    };
}
