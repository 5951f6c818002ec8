import { useEffect, useState } from "react";
import type { EngineEvent } from "../../agent/events";
import type { SessionState } from "../../agent/session";

export interface SessionStatusSource {
    subscribe(listener: (event: EngineEvent) => void): () => void;
    state(): SessionState;
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
    useEffect(
        () =>
            session.subscribe((event) => {
                if (STATUS_EVENTS.has(event.type)) setStatus(session.state());
            }),
        [session]
    );
    return status;
}
