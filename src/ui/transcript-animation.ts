/**
 * Which glyph animation the transcript needs now: the spinner (80 ms) while a
 * tool runs, the pulse (500 ms) while text streams, nothing otherwise. Only the
 * last entries are looked at: older ones have settled.
 */
import type { Ansi } from "./render/ansi";
import { PULSE_MS, SPINNER_MS, entryGlyph } from "./render/entry-lines";
import type { Entry } from "./transcript/types";

/** Above this many entries animations are off (the spec's kill switch). */
export const ANIMATION_DISABLE_THRESHOLD = 100;
const TAIL = 12;

/** How often a running command's elapsed time changes. */
export const ELAPSED_MS = 1000;

/** A tool that runs now: one waiting for the user's review has not started (and does not tick). */
function isRunning(entry: Entry): boolean {
    return entry.kind === "tool" && entry.status === "running" && entry.awaiting === undefined;
}

/** Whether one of the last entries is a tool still running. */
export function hasRunningTool(entries: readonly Entry[]): boolean {
    for (let i = entries.length - 1; i >= Math.max(0, entries.length - TAIL); i--) {
        if (isRunning(entries[i] as Entry)) return true;
    }
    return false;
}

/** " 12s" after a tool that has run a second or more, from `startedAt`. */
export function elapsedSuffix(entry: Entry, ansi: Ansi, now: number): string | undefined {
    if (entry.kind !== "tool" || !isRunning(entry) || entry.startedAt === undefined) {
        return undefined;
    }
    const seconds = Math.floor((now - entry.startedAt) / 1000);
    return seconds >= 1 ? ansi.dim(` ${seconds}s`) : undefined;
}

export function animationInterval(entries: readonly Entry[]): number | null {
    let interval: number | null = null;
    for (let i = entries.length - 1; i >= Math.max(0, entries.length - TAIL); i--) {
        const entry = entries[i] as Entry;
        if (isRunning(entry)) return SPINNER_MS;
        if ((entry.kind === "assistant" || entry.kind === "thinking") && entry.streaming)
            interval = PULSE_MS;
    }
    return interval;
}

/** The glyph of an animated entry at time `now`, or undefined for a still one. */
export function animatedGlyph(entry: Entry, ansi: Ansi, now: number): string | undefined {
    if (isRunning(entry)) return entryGlyph(entry, ansi, Math.floor(now / SPINNER_MS));
    if ((entry.kind === "assistant" || entry.kind === "thinking") && entry.streaming)
        return entryGlyph(entry, ansi, Math.floor(now / PULSE_MS));
    return undefined;
}
