/**
 * The session as the TUI sees it, usable before the engine has loaded: the
 * app draws at once with the model it will use, and the engine (tools,
 * providers) loads behind the first frame. Events are forwarded once it is
 * ready; a prompt sent earlier waits for it.
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
}

export interface DeferredSession extends SessionPort {
    /** Resolves with the real session (rejects if it could not be built). */
    ready: Promise<SessionPort>;
}

export function createDeferredSession(
    initial: SessionState,
    pending: Promise<SessionPort>
): DeferredSession {
    let real: SessionPort | null = null;
    const listeners = new Set<(event: EngineEvent) => void>();
    const ready = pending.then((session) => {
        real = session;
        session.subscribe((event) => {
            for (const listener of [...listeners]) listener(event);
        });
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
    };
}
