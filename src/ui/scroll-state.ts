/**
 * Where the transcript view is: lines up from the bottom (0 follows new
 * content). While scrolled up the view keeps the entries it had when the
 * scrolling began, so streaming text does not move what is being read;
 * returning to the bottom follows again.
 */
import type { Entry } from "./transcript/types";

export interface ScrollState {
    offset: number;
    /** The entries shown while scrolled up; null when following. */
    frozen: readonly Entry[] | null;
}

export type ScrollAction =
    | { type: "by"; delta: number; entries: readonly Entry[] }
    | { type: "bottom" }
    /** The first line; the viewport clamps the offset to where it is. */
    | { type: "top"; entries: readonly Entry[] }
    /** The viewport drew `from` at `offset` (the top was reached); stale once the offset moved on. */
    | { type: "clamp"; from: number; offset: number };

export const FOLLOWING: ScrollState = { offset: 0, frozen: null };

export function scrollReducer(state: ScrollState, action: ScrollAction): ScrollState {
    switch (action.type) {
        case "by": {
            const offset = Math.max(0, state.offset + action.delta);
            if (offset === 0) return FOLLOWING;
            if (offset === state.offset) return state;
            return { offset, frozen: state.frozen ?? action.entries };
        }
        case "top":
            return { offset: Number.MAX_SAFE_INTEGER, frozen: state.frozen ?? action.entries };
        case "bottom":
            return state.offset === 0 && state.frozen === null ? state : FOLLOWING;
        case "clamp":
            // A key may have moved the view since that frame (End right after Home): it wins.
            if (action.from !== state.offset || action.offset === state.offset) return state;
            return action.offset === 0 ? FOLLOWING : { ...state, offset: action.offset };
    }
}
