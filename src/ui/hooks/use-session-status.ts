import { useEffect, useState } from "react";
import type { EngineEvent } from "../../agent/events";
import type { SessionState } from "../../agent/session";

export interface SessionStatusSource {
    subscribe(listener: (event: EngineEvent) => void): () => void;
    state(): SessionState;
    /** Changes without an engine event (a model switch, another conversation). */
    onStateChange?(listener: () => void): () => void;
}

/** Whether each event can change the status line; a new event must be decided here. */
const CHANGES_STATUS: Record<EngineEvent["type"], boolean> = {
    run_start: true,
    turn_start: false,
    text_delta: false,
    thinking_delta: false,
    tool_call_start: false,
    tool_call: false,
    tool_output: false,
    approval_request: false,
    approval_decision: false,
    // The mode is the App's state (app-state.ts), set from this event by run-app.
    mode_change: false,
    tool_result: false,
    retry: false,
    turn_end: true,
    context: true,
    summary: true,
    warning: false,
    file_write: false,
    todo: false,
    // A subagent's answer adds to the session's spend.
    task_progress: true,
    run_end: true,
};

/** The session's model, context use and cost, refreshed on the events that change them. */
export function useSessionStatus(session: SessionStatusSource): SessionState {
    const [status, setStatus] = useState(() => session.state());
    useEffect(() => {
        const offEvents = session.subscribe((event) => {
            if (CHANGES_STATUS[event.type]) setStatus(session.state());
        });
        const offState = session.onStateChange?.(() => setStatus(session.state()));
        // A change between the first render and these subscriptions (the engine came up) is not missed.
        setStatus(session.state());
        return () => {
            offEvents();
            offState?.();
        };
    }, [session]);
    return status;
}
