/**
 * The session as the TUI sees it, usable before the engine has loaded: the
 * app draws at once with the model it will use, and the engine (tools,
 * providers) loads behind the first frame. Events are forwarded once it is
 * ready; a prompt sent earlier waits for it. `/new` and `/resume` replace the
 * session behind it; listeners stay subscribed across the switch.
 */
import type { EngineEvent, RunResult } from "../agent/events";
import type { RunOptions, SessionState } from "../agent/session";
import type { Message } from "../providers/types";

/** The part of AgentSession the TUI uses. */
export interface SessionPort {
    readonly messages: readonly Message[];
    subscribe(listener: (event: EngineEvent) => void): () => void;
    state(): SessionState;
    run(prompt: string, options: RunOptions): Promise<RunResult>;
    /** Makes `state()` carry the context figure before any request (the status line shows it). */
    ensureContextFigure?(): void;
}

export interface DeferredSession extends SessionPort {
    /** Resolves with the first real session (rejects if it could not be built). */
    ready: Promise<SessionPort>;
    /** The session behind it now, or null before the engine is up. */
    current(): SessionPort | null;
    /** Switches to another conversation's session: its events are forwarded from now on. */
    replace(session: SessionPort): void;
    /** Told when `state()` changed without an engine event (a model or conversation switch). */
    onStateChange(listener: () => void): () => void;
    notifyStateChanged(): void;
}

export function createDeferredSession(
    initial: SessionState,
    pending: Promise<SessionPort>
): DeferredSession {
    let real: SessionPort | null = null;
    let unsubscribe: (() => void) | null = null;
    const listeners = new Set<(event: EngineEvent) => void>();
    const stateListeners = new Set<() => void>();
    const notifyStateChanged = (): void => {
        for (const listener of [...stateListeners]) listener();
    };
    const attach = (session: SessionPort): void => {
        unsubscribe?.();
        session.ensureContextFigure?.();
        real = session;
        unsubscribe = session.subscribe((event) => {
            for (const listener of [...listeners]) listener(event);
        });
    };
    const ready = pending.then((session) => {
        if (!real) {
            attach(session);
            // A resumed conversation's context figure and cost replace the placeholder's.
            notifyStateChanged();
        }
        return session;
    });
    // Failures surface through `ready` and `run`; nothing is left unhandled.
    ready.catch(() => undefined);
    return {
        ready,
        get messages() {
            return real?.messages ?? [];
        },
        subscribe(listener) {
            listeners.add(listener);
            return () => void listeners.delete(listener);
        },
        state: () => real?.state() ?? initial,
        async run(prompt, options) {
            const session = real ?? (await ready);
            return session.run(prompt, options);
        },
        current: () => real,
        replace(session) {
            if (session === real) return;
            attach(session);
            notifyStateChanged();
        },
        onStateChange(listener) {
            stateListeners.add(listener);
            return () => void stateListeners.delete(listener);
        },
        notifyStateChanged,
    };
}
