/**
 * Holds the transcript state outside React. Text and thinking deltas are
 * batched and reach the view at most once per `flushMs` (32 ms by default);
 * any other event first flushes what is pending, so order is kept.
 */
import type { EngineEvent } from "../../agent/events";
import {
    type TranscriptAction,
    type TranscriptState,
    createTranscriptState,
    replayActions,
    transcriptReducer,
} from "./reducer";

export interface TranscriptStore {
    getState(): TranscriptState;
    subscribe(listener: () => void): () => void;
    /** Applies an action now (pending deltas first) and notifies. */
    dispatch(action: TranscriptAction): void;
    /** Applies many actions (a conversation's history) and notifies once. */
    dispatchAll(actions: readonly TranscriptAction[]): void;
    /** Takes an engine event; deltas are batched, everything else applied at once. */
    push(event: EngineEvent): void;
    /** Applies pending deltas now. */
    flush(): void;
    dispose(): void;
}

export interface TranscriptStoreOptions {
    flushMs?: number;
    setTimer?: (fn: () => void, ms: number) => unknown;
    clearTimer?: (handle: unknown) => void;
}

export const STREAM_FLUSH_MS = 32;

export function createTranscriptStore(options: TranscriptStoreOptions = {}): TranscriptStore {
    const flushMs = options.flushMs ?? STREAM_FLUSH_MS;
    const setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    const clearTimer = options.clearTimer ?? ((handle) => clearTimeout(handle as NodeJS.Timeout));
    let state = createTranscriptState();
    const listeners = new Set<() => void>();
    /** Adjacent deltas of one kind, merged. */
    let pending: Array<{ type: "text_delta" | "thinking_delta"; text: string }> = [];
    let timer: unknown = null;

    const notify = (): void => {
        for (const listener of [...listeners]) listener();
    };

    const applyPending = (): boolean => {
        if (timer !== null) {
            clearTimer(timer);
            timer = null;
        }
        if (pending.length === 0) return false;
        for (const delta of pending) {
            state = transcriptReducer(state, { type: "engine", event: delta });
        }
        pending = [];
        return true;
    };

    const flush = (): void => {
        if (applyPending()) notify();
    };

    return {
        getState: () => state,
        subscribe(listener) {
            listeners.add(listener);
            return () => void listeners.delete(listener);
        },
        dispatch(action) {
            applyPending();
            state = transcriptReducer(state, action);
            notify();
        },
        dispatchAll(actions) {
            applyPending();
            state = replayActions(state, actions);
            notify();
        },
        push(event) {
            if (event.type === "text_delta" || event.type === "thinking_delta") {
                const last = pending.at(-1);
                if (last && last.type === event.type) last.text += event.text;
                else pending.push({ type: event.type, text: event.text });
                if (timer === null) {
                    timer = setTimer(() => {
                        timer = null;
                        flush();
                    }, flushMs);
                }
                return;
            }
            const flushed = applyPending();
            const next = transcriptReducer(state, { type: "engine", event });
            const changed = next !== state;
            state = next;
            if (changed || flushed) notify();
        },
        flush,
        dispose() {
            if (timer !== null) clearTimer(timer);
            timer = null;
            pending = [];
            listeners.clear();
        },
    };
}
