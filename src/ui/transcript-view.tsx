import { memo, useEffect, useMemo } from "react";
import type { ReactElement } from "react";
import { Box, Text } from "ink";
import type { Ansi } from "./render/ansi";
import { truncatePlain } from "./render/entry-lines";
import type { LineCache } from "./render/line-cache";
import { computeViewport } from "./render/viewport";
import { plainLine, type TranscriptViewState } from "./transcript-view-state";
import type { Entry } from "./transcript/types";

export interface TranscriptViewProps {
    state: TranscriptViewState;
    /** The chat's entries now (shown while the view follows). */
    entries: readonly Entry[];
    /** The view's own cache (entries unfolded). */
    cache: LineCache;
    ansi: Ansi;
    width: number;
    /** Rows of the whole view: the transcript's lines, then the footer. */
    height: number;
    onClamp(from: number, offset: number): void;
}

/** Rows the footer takes. */
export const TRANSCRIPT_VIEW_FOOTER_ROWS = 1;

/** `line` with every occurrence of `query` marked (inverse; the current match also bold). */
function marked(line: string, query: string, current: boolean, ansi: Ansi): string {
    const plain = plainLine(line);
    const lower = plain.toLowerCase();
    const needle = query.toLowerCase();
    // Without colours a mark is a symbol: the match keeps its meaning.
    if (!ansi.colors) return `${current ? "▶" : "›"}${plain.slice(1)}`;
    let out = "";
    let from = 0;
    for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, from)) {
        const hit = plain.slice(at, at + needle.length);
        out += plain.slice(from, at) + `\x1b[7m${current ? ansi.bold(hit) : hit}\x1b[27m`;
        from = at + needle.length;
    }
    return out + plain.slice(from);
}

/**
 * Ctrl+O: the whole transcript with every entry unfolded, in place of the
 * chat (which stays mounted underneath, its draft and review untouched).
 * Only the lines on screen are wrapped and drawn.
 */
function TranscriptViewPanel(props: TranscriptViewProps): ReactElement {
    const { state, cache, ansi, width, onClamp } = props;
    const rows = Math.max(1, props.height - TRANSCRIPT_VIEW_FOOTER_ROWS);
    const entries = state.frozen ?? props.entries;
    const viewport = useMemo(
        () => computeViewport({ entries, cache, width, height: rows, scrollOffset: state.offset }),
        [entries, cache, width, rows, state.offset]
    );
    useEffect(() => {
        if (viewport.scrollOffset !== state.offset) onClamp(state.offset, viewport.scrollOffset);
    }, [viewport.scrollOffset, state.offset, onClamp]);

    const search = state.search;
    let lines = viewport.lines;
    if (search && !search.editing && search.matches.length > 0) {
        // Matches are counted in lines above the end of the snapshot shown, as the offset is.
        const matchSet = new Set(search.matches);
        const current = search.current === null ? -1 : (search.matches[search.current] ?? -1);
        const last = lines.length - 1;
        lines = lines.map((line, i) => {
            const below = viewport.scrollOffset + last - i;
            return matchSet.has(below) ? marked(line, search.query, below === current, ansi) : line;
        });
    }
    // Short transcripts start at the top of the view, as a document does.
    const padding = Math.max(0, rows - lines.length);

    let footer: string;
    if (search?.editing) footer = `/${search.query}▏  Enter find · Esc cancel`;
    else {
        const where = viewport.atTop
            ? viewport.scrollOffset === 0
                ? "all shown"
                : "top"
            : viewport.scrollOffset === 0
              ? state.frozen
                  ? "end (of what was searched)"
                  : "end · following"
              : `${viewport.scrollOffset} lines up`;
        let found = "";
        if (search && search.current !== null) {
            const count = search.matches.length;
            // Counted from the top once the whole transcript was searched; until then from the end.
            const which = search.complete
                ? `${count - search.current} of ${count}`
                : `${search.current + 1} from the end`;
            found = ` · match ${which} (n up, N down)`;
        }
        const note = state.note ? ` · ${state.note}` : "";
        footer = `Transcript · ${where}${found}${note} · ↑↓ PgUp PgDn Home End · / search · Esc back`;
    }
    return (
        <Box flexDirection="column" flexShrink={0} width={width} height={props.height}>
            <Text>{lines.join("\n")}</Text>
            {padding > 0 ? <Box height={padding} /> : null}
            <Text>{ansi.dim(truncatePlain(footer, width))}</Text>
        </Box>
    );
}

export const TranscriptView = memo(TranscriptViewPanel);
