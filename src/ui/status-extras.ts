/**
 * What the status line shows beside the session's figures, set from outside
 * React after the first frame: the git branch (watched) and the line of the
 * `statusLine` command. Changes only when they change: nothing polls.
 */
import { useSyncExternalStore } from "react";

export interface StatusExtras {
    /** The project's git branch (a short commit id when detached); null outside git. */
    branch: string | null;
    /** The `statusLine` command's line (or its failure note); null when none is set. */
    custom: string | null;
}

export interface StatusExtrasStore {
    get(): StatusExtras;
    set(patch: Partial<StatusExtras>): void;
    subscribe(listener: () => void): () => void;
}

export function createStatusExtras(): StatusExtrasStore {
    let current: StatusExtras = { branch: null, custom: null };
    const listeners = new Set<() => void>();
    return {
        get: () => current,
        set(patch) {
            const next = { ...current, ...patch };
            if (next.branch === current.branch && next.custom === current.custom) return;
            current = next;
            for (const listener of [...listeners]) listener();
        },
        subscribe(listener) {
            listeners.add(listener);
            return () => void listeners.delete(listener);
        },
    };
}

const NONE: StatusExtras = { branch: null, custom: null };
const noSubscription = (): (() => void) => () => undefined;

export function useStatusExtras(store: StatusExtrasStore | undefined): StatusExtras {
    return useSyncExternalStore(store?.subscribe ?? noSubscription, store?.get ?? (() => NONE));
}
