import { createContext, useContext, useEffect, useState } from "react";
import { useStdin } from "ink";
import { createKeyGate, type KeyGate } from "../input/key-gate";

/** The App's gate; reviews rendered on their own (tests) make one for themselves. */
export const KeyGateContext = createContext<KeyGate | null>(null);

/**
 * Feeds every input string to `gate` before any other listener sees it
 * (prepended, so components mounted later still come after it).
 */
export function useKeyGateFeed(gate: KeyGate | null): void {
    const { internal_eventEmitter: emitter } = useStdin();
    useEffect(() => {
        if (!gate) return;
        const observe = (input: string): void => gate.observe(input);
        emitter.prependListener("input", observe);
        return () => {
            emitter.off("input", observe);
        };
    }, [gate, emitter]);
}

/** The gate for the review shown now (`reviewId`), marked as listening while it is mounted. */
export function useReviewGate(reviewId: string): KeyGate {
    const shared = useContext(KeyGateContext);
    const [own] = useState(() => (shared ? null : createKeyGate()));
    useKeyGateFeed(own);
    const gate = shared ?? (own as KeyGate);
    useEffect(() => {
        gate.setReviewing(true);
        return () => gate.setReviewing(false);
    }, [gate, reviewId]);
    return gate;
}
