import type { EventEmitter } from "node:events";
import { useStdin } from "ink";

/**
 * Ink's stream of raw input strings (event "input"), before `useInput`
 * parses them. Ink 6.8, the last Ink that runs on Node 20 (7 and 8 need
 * Node 22), has no public hook for it: `useInput` names keys one listener at
 * a time and drops bracketed-paste markers, and reading stdin beside Ink
 * would fight Ink's own reader. This is North's one use of Ink's private
 * `internal_eventEmitter`; test/ui/ink-input-stream.test.tsx checks that it
 * still carries every string, in order.
 */
export function useInkInputStream(): EventEmitter {
    return useStdin().internal_eventEmitter;
}
