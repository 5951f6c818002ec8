import { useCallback } from "react";
import type { Ansi } from "../render/ansi";
import {
    ELAPSED_MS,
    animatedGlyph,
    animationInterval,
    elapsedSuffix,
    hasRunningTool,
} from "../transcript-animation";
import type { Entry } from "../transcript/types";
import { useTicker } from "./use-ticker";

/**
 * Ticks while an entry animates (and animations are on), or once a second
 * while a tool runs (its elapsed time), and returns the viewport's glyph and
 * suffix functions plus the tick (a memo key).
 */
export function useEntryAnimation(
    entries: readonly Entry[],
    ansi: Ansi,
    enabled: boolean
): {
    tick: number;
    glyphFor: ((entry: Entry) => string | undefined) | undefined;
    suffixFor: ((entry: Entry) => string | undefined) | undefined;
} {
    const animation = enabled ? animationInterval(entries) : null;
    const running = hasRunningTool(entries);
    const interval = animation ?? (running ? ELAPSED_MS : null);
    const tick = useTicker(interval !== null, interval ?? 1000);
    const now = interval === null ? 0 : Date.now();
    const glyphFor = useCallback(
        (entry: Entry) => animatedGlyph(entry, ansi, now),
        // `tick` changes `now`; the callback is rebuilt per frame on purpose.
        [ansi, now]
    );
    const suffixFor = useCallback((entry: Entry) => elapsedSuffix(entry, ansi, now), [ansi, now]);
    return {
        tick,
        glyphFor: animation === null ? undefined : glyphFor,
        suffixFor: running ? suffixFor : undefined,
    };
}
