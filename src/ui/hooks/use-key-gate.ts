import {
    createContext,
    useCallback,
    useContext,
    useEffect,
    useRef,
    useState,
    useSyncExternalStore,
} from "react";
import { createKeyGate, type GuardState, type KeyGate, type ReviewPolicy } from "../input/key-gate";
import { useInkInputStream } from "./ink-input-stream";

/** The App's gate; reviews rendered on their own (tests) make one for themselves. */
export const KeyGateContext = createContext<KeyGate | null>(null);

/**
 * Feeds every input string to `gate` before any other listener sees it
 * (prepended, so components mounted later still come after it); a key the
 * gate held is fed again the same way.
 */
export function useKeyGateFeed(gate: KeyGate | null): void {
    const emitter = useInkInputStream();
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
 * it is mounted; `policy` says how it treats keys typed as it appears.
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

/**
 * The guard of the review being drawn, redrawn as it changes ("keys went to
 * your draft"). Until the review's gate call (a parent's effect, after this
 * first render) it counts as guarding: its first frame never invites a key.
 */
export function useGuardState(gate: KeyGate | undefined): {
    state: GuardState;
    diverted: boolean;
    /** The key that opened it would still be taken as a bounce (`KeyGate.settling`). */
    settling: boolean;
} {
    const source = gate ?? NO_GUARD;
    const [drawnAt] = useState(() => source.generation());
    const guardState = useCallback(
        (): GuardState =>
            gate === undefined || gate.generation() > drawnAt ? source.guardState() : "guarding",
        [gate, source, drawnAt]
    );
    const state = useSyncExternalStore(source.subscribe, guardState);
    const diverted = useSyncExternalStore(source.subscribe, source.divertedKeys);
    const settling = useSyncExternalStore(source.subscribe, source.settling);
    return { state, diverted, settling };
}

/** A review drawn without a gate takes every key at once. */
const NO_GUARD: Pick<
    KeyGate,
    "subscribe" | "guardState" | "divertedKeys" | "generation" | "settling"
> = {
    subscribe: () => () => {},
    guardState: () => "open",
    generation: () => 1,
    divertedKeys: () => false,
    settling: () => false,
};
