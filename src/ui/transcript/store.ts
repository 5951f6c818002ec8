/**
 * Holds the transcript state outside React. Text and thinking deltas are
 * batched and reach the view at most once per `flushMs` (32 ms by default);
 * any other event first flushes what is pending, so order is kept. With
 * `frameMs`, the other engine events (a command's output lines, tool calls)
 * notify at most once per frame too, the last one never dropped: the chat
 * renders each notification at once (it keeps Ink's own frame throttle off so
 * a typed key is drawn without waiting for a frame), so the store paces what
 * the engine sends.
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
    /** Least time between two notifications for engine events; unset: each notifies at once. */
    frameMs?: number;
    /** The clock `frameMs` is measured on. */
    now?: () => number;
    setTimer?: (fn: () => void, ms: number) => unknown;
    clearTimer?: (handle: unknown) => void;
}

export const STREAM_FLUSH_MS = 32;

/**
 * The chat's cadence for streamed text: about ten frames a second, as Claude
 * Code repaints its stream (~105 ms). Fewer stream frames leave the main
 * thread free for the keys typed meanwhile; each key is drawn at once.
 */
export const CHAT_STREAM_FLUSH_MS = 100;

/** The chat's least gap between two frames for other engine events (Ink's former 30 fps). */
export const CHAT_FRAME_MS = 33;

export function createTranscriptStore(options: TranscriptStoreOptions = {}): TranscriptStore {
    const flushMs = options.flushMs ?? STREAM_FLUSH_MS;
    const setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    const clearTimer = options.clearTimer ?? ((handle) => clearTimeout(handle as NodeJS.Timeout));
    const frameMs = options.frameMs;
    const now = options.now ?? (() => performance.now());
    let state = createTranscriptState();
    const listeners = new Set<() => void>();
    /** Adjacent deltas of one kind, merged. */
    let pending: Array<{ type: "text_delta" | "thinking_delta"; text: string }> = [];
    let timer: unknown = null;
    /** A paced notification still due (frameMs), and when the last one went out. */
    let frameTimer: unknown = null;
    let notifiedAt = -Infinity;

    const notify = (): void => {
        if (frameTimer !== null) {
            clearTimer(frameTimer);
            frameTimer = null;
        }
        notifiedAt = now();
        for (const listener of [...listeners]) listener();
    };

    /** Notifies now, or at the end of the current frame when one went out less than `frameMs` ago. */
    const notifyPaced = (): void => {
        if (frameMs === undefined) return notify();
        if (frameTimer !== null) return;
        const wait = notifiedAt + frameMs - now();
        if (wait <= 0) return notify();
        frameTimer = setTimer(() => {
            frameTimer = null;
            notify();
        }, wait);
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
            if (changed || flushed) notifyPaced();
        },
        flush,
        dispose() {
            if (timer !== null) clearTimer(timer);
            if (frameTimer !== null) clearTimer(frameTimer);
            timer = null;
            frameTimer = null;
            pending = [];
            listeners.clear();
        },
    };
}
