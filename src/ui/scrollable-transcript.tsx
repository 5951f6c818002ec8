import { memo, useEffect, useMemo } from "react";
import type { ReactElement } from "react";
import { Box, Text } from "ink";
import { useEntryAnimation } from "./hooks/use-entry-animation";
import type { Ansi } from "./render/ansi";
import type { LineCache } from "./render/line-cache";
import { computeViewport } from "./render/viewport";
import type { Entry } from "./transcript/types";

export interface ScrollableTranscriptProps {
    entries: readonly Entry[];
    cache: LineCache;
    ansi: Ansi;
    width: number;
    /** Rows of the viewport. */
    height: number;
    /** Lines up from the bottom; 0 follows new content. */
    scrollOffset: number;
    animate: boolean;
    /** Told when the offset had to be clamped (the top was reached): from what, to what. */
    onClamp?: (from: number, scrollOffset: number) => void;
}

/**
 * The transcript in the alternate screen: only the visible slice of the
 * pre-wrapped, cached lines is handed to Ink.
 */
function ScrollableTranscriptView(props: ScrollableTranscriptProps): ReactElement {
    const { entries, cache, ansi, width, height, scrollOffset, animate, onClamp } = props;
    const { tick, glyphFor, suffixFor } = useEntryAnimation(
        entries,
        ansi,
        animate && scrollOffset === 0
    );
    const viewport = useMemo(
        () => computeViewport({ entries, cache, width, height, scrollOffset, glyphFor, suffixFor }),
        [entries, cache, width, height, scrollOffset, glyphFor, suffixFor, tick]
    );
    useEffect(() => {
        if (viewport.scrollOffset !== scrollOffset) onClamp?.(scrollOffset, viewport.scrollOffset);
    }, [viewport.scrollOffset, scrollOffset, onClamp]);
    return (
        <Box flexDirection="column" flexShrink={0} width={width}>
            <Text>{viewport.lines.join("\n")}</Text>
        </Box>
    );
}

export const ScrollableTranscript = memo(ScrollableTranscriptView);
