/**
 * The engine host as the chat holds it, usable before the engine has loaded:
 * the app draws at once with the model it will use, and the engine (tools,
 * providers) loads behind the first frame. Listeners are attached once it is
 * ready; an op submitted earlier waits for it.
 */
import type { EngineHostPort, HostListener, HostState } from "../agent/protocol";

export interface DeferredHost extends EngineHostPort {
    /** Resolves with the real host (rejects if it could not be built). */
    ready: Promise<EngineHostPort>;
    /** The host behind it, or null before the engine is up. */
    current(): EngineHostPort | null;
}

export function createDeferredHost(
    initial: HostState,
    pending: Promise<EngineHostPort>
): DeferredHost {
    let real: EngineHostPort | null = null;
    const listeners = new Set<HostListener>();
    const forward: HostListener = (event) => {
        for (const listener of [...listeners]) listener(event);
    };
    const ready = pending.then((host) => {
        real = host;
        host.subscribe(forward);
        // A resumed conversation's context figure and cost replace the placeholder's.
        forward({ type: "state_changed" });
        return host;
    });
    // Failures surface through `ready` and `submit`; nothing is left unhandled.
    ready.catch(() => undefined);
    return {
        ready,
        current: () => real,
        subscribe(listener) {
            listeners.add(listener);
            return () => void listeners.delete(listener);
        },
        state: () => real?.state() ?? initial,
        async submit(op) {
            const host = real ?? (await ready);
            return host.submit(op);
        },
    };
}
