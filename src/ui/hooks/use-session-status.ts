import { useEffect, useState } from "react";
import type { EngineEvent } from "../../agent/events";
import type { SessionState } from "../../agent/session";

export interface SessionStatusSource {
    subscribe(listener: (event: EngineEvent) => void): () => void;
    state(): SessionState;
    /** Changes without an engine event (a model switch, another conversation). */
    onStateChange?(listener: () => void): () => void;
}

const STATUS_EVENTS = new Set<EngineEvent["type"]>([
    "run_start",
    "context",
    "turn_end",
    "summary",
    "run_end",
]);

/** The session's model, context use and cost, refreshed on the events that change them. */
export function useSessionStatus(session: SessionStatusSource): SessionState {
    const [status, setStatus] = useState(() => session.state());
    useEffect(() => {
        const offEvents = session.subscribe((event) => {
            if (STATUS_EVENTS.has(event.type)) setStatus(session.state());
        });
        const offState = session.onStateChange?.(() => setStatus(session.state()));
        return () => {
            offEvents();
            offState?.();
        };
    }, [session]);
    return status;
}
