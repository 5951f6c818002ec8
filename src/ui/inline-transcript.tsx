import { memo, useMemo } from "react";
import type { ReactElement } from "react";
import { Box, Static, Text } from "ink";
import { useEntryAnimation } from "./hooks/use-entry-animation";
import type { Ansi } from "./render/ansi";
import { gapBetween } from "./render/entry-lines";
import type { LineCache } from "./render/line-cache";
import { computeViewport } from "./render/viewport";
import { type Entry, isEntryActive } from "./transcript/types";

export interface InlineTranscriptProps {
    entries: readonly Entry[];
    cache: LineCache;
    ansi: Ansi;
    width: number;
    /** Rows the live (still changing) part may take. */
    liveHeight: number;
    animate: boolean;
    /** The transcript view covers the chat: the live part is not drawn under it. */
    hideLive?: boolean;
}

/** How far back an entry may still be changing. */
const LIVE_SCAN = 50;

/** Index of the first entry that may still change (entries.length when none). */
export function firstLiveIndex(entries: readonly Entry[]): number {
    let first = entries.length;
    for (let i = entries.length - 1; i >= Math.max(0, entries.length - LIVE_SCAN); i--) {
        if (isEntryActive(entries[i] as Entry)) first = i;
    }
    return first;
}

/**
 * `--no-alt-screen`: finished entries are written once, above the live area,
 * into the terminal's own scrollback (Ink's <Static>); only entries still
 * changing are redrawn, cut to their last `liveHeight` lines.
 */
function InlineTranscriptView(props: InlineTranscriptProps): ReactElement {
    const { entries, cache, ansi, width, liveHeight, animate } = props;
    const split = firstLiveIndex(entries);
    const settled = useMemo(() => entries.slice(0, split), [entries, split]);
    const live = useMemo(() => entries.slice(split), [entries, split]);
    const { tick, glyphFor, suffixFor } = useEntryAnimation(live, ansi, animate);
    const liveLines = useMemo(() => {
        if (live.length === 0) return [];
        const { lines } = computeViewport({
            entries: live,
            cache,
            width,
            height: liveHeight,
            scrollOffset: 0,
            glyphFor,
            suffixFor,
        });
        const before = entries[split - 1];
        const first = live[0];
        return before && first && gapBetween(before, first) ? ["", ...lines] : lines;
    }, [live, cache, width, liveHeight, glyphFor, suffixFor, tick, entries, split]);
    return (
        <>
            <Static items={settled as Entry[]}>
                {(entry, index) => {
                    const lines = cache.get(entry, width).lines;
                    const previous = index > 0 ? settled[index - 1] : undefined;
                    const gap = previous && gapBetween(previous, entry) ? "\n" : "";
                    return <Text key={entry.id}>{gap + lines.join("\n")}</Text>;
                }}
            </Static>
            {liveLines.length > 0 && !props.hideLive ? (
                <Box flexDirection="column" width={width}>
                    <Text>{liveLines.join("\n")}</Text>
                </Box>
            ) : null}
        </>
    );
}

export const InlineTranscript = memo(InlineTranscriptView);
