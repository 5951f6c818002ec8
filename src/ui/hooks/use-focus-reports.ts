import { useInputEvents } from "./use-raw-input";

/**
 * Calls `onFocus` with each focus report of the terminal (DECSET 1004, turned
 * on by the terminal guard). The key handlers drop these events, so a report
 * never reaches the composer or a review.
 */
export function useFocusReports(onFocus: (focused: boolean) => void): void {
    useInputEvents((event) => {
        if (event.type === "focus") onFocus(event.focused);
    });
}

/** Renders nothing; hands the terminal's focus reports to `onFocus`. */
export function FocusReports(props: { onFocus: (focused: boolean) => void }): null {
    useFocusReports(props.onFocus);
    return null;
}
