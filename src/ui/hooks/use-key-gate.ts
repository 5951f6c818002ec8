import { createContext, useContext, useEffect, useRef, useState } from "react";
import { useStdin } from "ink";
import { createKeyGate, type KeyGate, type ReviewPolicy } from "../input/key-gate";

/** The App's gate; reviews rendered on their own (tests) make one for themselves. */
export const KeyGateContext = createContext<KeyGate | null>(null);

/**
 * Feeds every input string to `gate` before any other listener sees it
 * (prepended, so components mounted later still come after it); a key the
 * gate held is fed again the same way.
 */
export function useKeyGateFeed(gate: KeyGate | null): void {
    const { internal_eventEmitter: emitter } = useStdin();
    useEffect(() => {
        if (!gate) return;
        const observe = (input: string): void => gate.observe(input);
        emitter.prependListener("input", observe);
        gate.bindReplay((input) => void emitter.emit("input", input));
        return () => {
            emitter.off("input", observe);
        };
    }, [gate, emitter]);
}

/**
 * The gate for the review shown now (`reviewId`), marked as listening while
 * it is mounted; `policy` for a question that yields to typing.
 */
export function useReviewGate(reviewId: string, policy?: ReviewPolicy): KeyGate {
    const shared = useContext(KeyGateContext);
    const [own] = useState(() => (shared ? null : createKeyGate()));
    useKeyGateFeed(own);
    const gate = shared ?? (own as KeyGate);
    // Set once per review: a new policy object on each render must not restart its window.
    const policyRef = useRef(policy);
    policyRef.current = policy;
    useEffect(() => {
        gate.setReviewing(true, policyRef.current);
        return () => gate.setReviewing(false);
    }, [gate, reviewId]);
    return gate;
}
