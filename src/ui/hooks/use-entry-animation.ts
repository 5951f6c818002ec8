import { useCallback } from "react";
import type { Ansi } from "../render/ansi";
import { animatedGlyph, animationInterval } from "../transcript-animation";
import type { Entry } from "../transcript/types";
import { useTicker } from "./use-ticker";

/**
 * Ticks while an entry animates (and animations are on) and returns the
 * glyph function for the viewport plus the tick (a memo key).
 */
export function useEntryAnimation(
    entries: readonly Entry[],
    ansi: Ansi,
    enabled: boolean
): { tick: number; glyphFor: ((entry: Entry) => string | undefined) | undefined } {
    const interval = enabled ? animationInterval(entries) : null;
    const tick = useTicker(interval !== null, interval ?? 1000);
    const now = interval === null ? 0 : Date.now();
    const glyphFor = useCallback(
        (entry: Entry) => animatedGlyph(entry, ansi, now),
        // `tick` changes `now`; the callback is rebuilt per frame on purpose.
        [ansi, now]
    );
    return { tick, glyphFor: interval === null ? undefined : glyphFor };
}
