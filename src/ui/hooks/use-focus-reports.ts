import { useEffect } from "react";
import { createInputJoiner, parseInput } from "../input/keys";
import { useInkInputStream } from "./ink-input-stream";

/**
 * Calls `onFocus` with each focus report of the terminal (DECSET 1004, turned
 * on by the terminal guard). The key handlers drop these events, so a report
 * never reaches the composer or a review.
 */
export function useFocusReports(onFocus: (focused: boolean) => void): void {
    const emitter = useInkInputStream();
    useEffect(() => {
        const joiner = createInputJoiner();
        const onInput = (input: string): void => {
            for (const piece of joiner.push(input)) {
                for (const event of parseInput(piece)) {
                    if (event.type === "focus") onFocus(event.focused);
                }
            }
        };
        emitter.on("input", onInput);
        return () => {
            emitter.off("input", onInput);
        };
    }, [emitter, onFocus]);
}

/** Renders nothing; hands the terminal's focus reports to `onFocus`. */
export function FocusReports(props: { onFocus: (focused: boolean) => void }): null {
    useFocusReports(props.onFocus);
    return null;
}
