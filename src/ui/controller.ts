/**
 * Runs prompts for the TUI as ops: feeds engine events into the transcript store,
 * records resolved reviews, queues what is sent while a run is going (sent
 * when it ends), and cancels (abort + resolve pending reviews) on Ctrl+C or
 * Esc. No React here; the App subscribes.
 */
import type { Mode } from "../agent/events";
import { type EngineHostPort, isEngineEvent } from "../agent/protocol";
import type { ImageBlock } from "../providers/types";
import type { ApprovalBridge } from "./approval-bridge";
import { memoryNoteOf } from "./memory-note";
import type { TranscriptAction } from "./transcript/reducer";
import { type TranscriptStore, createTranscriptStore } from "./transcript/store";

/** An input sent while a run was going: it is sent when the run ends. */
export interface QueuedInput {
    text: string;
    attachments: string[];
    mode: Mode;
}

export interface AppController {
    store: TranscriptStore;
    /** True from submit until the run has ended. */
    isBusy(): boolean;
    /** Called when busy or the queued input changes. */
    subscribeBusy(listener: () => void): () => void;
    /**
     * Runs the input's slash commands, then sends what is left to the model.
     * While a run is in progress the input is queued (added to what is queued
     * already) and sent when the run ends, even when it ended in an error.
     */
    submit(text: string, attachments: string[], mode: Mode): void;
    /** The input waiting for the current run to end, or null. */
    queued(): QueuedInput | null;
    /** Takes the queued input back (to edit it); null when nothing is queued. */
    unqueue(): QueuedInput | null;
    /** The signal of the input being processed (aborted by Ctrl+C); null when idle. */
    currentSignal(): AbortSignal | null;
    /**
     * Ctrl+C or Esc while busy: aborts the run and resolves waiting reviews;
     * the queued input is not sent (take it back with `unqueue`). False when idle.
     */
    cancel(): boolean;
    /** Resolves when the current run (if any) has ended. */
    idle(): Promise<void>;
    dispose(): void;
}

export interface ControllerDeps {
    host: Pick<EngineHostPort, "subscribe" | "submit">;
    bridge: Pick<ApprovalBridge, "cancelAll" | "onResolved">;
    /** Renders attached files as the run's context block. */
    loadAttachments?: (paths: string[]) => Promise<string>;
    /**
     * Loads the image files among the attachments; `rest` are the others,
     * `refused` says why an image cannot be sent (the prompt then is not sent).
     */
    loadImages?: (
        paths: string[]
    ) => Promise<{ images: ImageBlock[]; rest: string[]; refused: string[] }>;
    store?: TranscriptStore;
    /**
     * Runs the slash commands of an input (their entries go to the transcript)
     * and returns the prompt left for the model, or null when nothing is left.
     */
    processInput?: (text: string) => Promise<string | null>;
    /** The mode when the prompt is sent, so a `/mode` in the same input counts. */
    currentMode?: () => Mode;
    /** Saves the chat's own entries (prompts, reviews, errors) with the conversation. */
    record?: (action: TranscriptAction) => void;
}

export function createAppController(deps: ControllerDeps): AppController {
    const store = deps.store ?? createTranscriptStore();
    const busyListeners = new Set<() => void>();
    let busy = false;
    let abort: AbortController | null = null;
    let running: Promise<void> = Promise.resolve();
    /**
     * Inputs sent while busy, in order: prompts typed one after another are
     * joined into one entry; a `#` note is an entry of its own, so it is saved
     * as memory when its turn comes and never sent as (part of) a prompt.
     */
    let queue: QueuedInput[] = [];
    /** What the composer shows as queued: the entries joined (kept for useSyncExternalStore). */
    let waiting: QueuedInput | null = null;
    /**
     * A run the engine started by itself (a background process's notice, with
     * `processes.startTurnOnNotice`): busy while it lasts, so Ctrl+C cancels it
     * rather than exits, and what is typed meanwhile is queued.
     */
    let engineRun = false;

    const notify = (): void => {
        for (const listener of [...busyListeners]) listener();
    };
    const setBusy = (value: boolean): void => {
        if (busy === value) return;
        busy = value;
        notify();
    };
    const setQueue = (value: QueuedInput[]): void => {
        queue = value;
        waiting =
            value.length === 0
                ? null
                : {
                      text: value.map((q) => q.text).join("\n"),
                      attachments: [...new Set(value.flatMap((q) => q.attachments))],
                      mode: value.at(-1)!.mode,
                  };
        notify();
    };

    /** Shows an action and saves it with the conversation. */
    const show = (action: TranscriptAction): void => {
        store.dispatch(action);
        deps.record?.(action);
    };
    const unsubscribeEvents = deps.host.subscribe((event) => {
        if (!isEngineEvent(event)) return;
        store.push(event);
        if (event.type === "run_start" && !busy) {
            engineRun = true;
            notify();
        }
        if (event.type === "run_end" && engineRun) {
            engineRun = false;
            // What was typed during the engine's run goes now, as after one of ours.
            const [next, ...rest] = queue;
            if (next && !busy) {
                setQueue(rest);
                start(next.text, next.attachments, next.mode);
            } else notify();
        }
    });
    const unsubscribeReviews = deps.bridge.onResolved((resolved) => {
        // Project-level questions (trust, learning) are not part of a conversation.
        const { id: _id, ...review } = resolved;
        const action: TranscriptAction = { type: "review", review };
        if (resolved.kind === "trust" || resolved.kind === "learning") store.dispatch(action);
        else show(action);
    });

    const run = async (text: string, attachments: string[], mode: Mode, signal: AbortSignal) => {
        let attachedContext: string | undefined;
        let attachedImages: ImageBlock[] = [];
        if (attachments.length > 0 && deps.loadAttachments) {
            try {
                let files = attachments;
                if (deps.loadImages) {
                    const loaded = await deps.loadImages(attachments);
                    if (loaded.refused.length > 0) {
                        // The answer would be about a picture the model never saw.
                        for (const text of loaded.refused)
                            store.dispatch({ type: "notice", level: "error", text });
                        return;
                    }
                    attachedImages = loaded.images;
                    files = loaded.rest;
                }
                if (files.length > 0)
                    attachedContext = (await deps.loadAttachments(files)) || undefined;
            } catch (error) {
                store.dispatch({
                    type: "notice",
                    level: "warning",
                    text: `could not attach files: ${(error as Error).message}`,
                });
            }
        }
        if (signal.aborted) {
            store.dispatch({ type: "notice", level: "info", text: "[Cancelled]" });
            return;
        }
        try {
            await deps.host.submit({
                type: "prompt",
                text,
                mode,
                signal,
                attachedContext,
                attachedImages,
            });
        } catch (error) {
            show({ type: "notice", level: "error", text: `Error: ${(error as Error).message}` });
        }
    };

    const handle = async (
        text: string,
        attachments: string[],
        mode: Mode,
        signal: AbortSignal
    ): Promise<void> => {
        let prompt: string | null = text;
        if (deps.processInput) {
            try {
                prompt = await deps.processInput(text);
            } catch (error) {
                store.dispatch({
                    type: "notice",
                    level: "error",
                    text: `Error: ${(error as Error).message}`,
                });
                return;
            }
        }
        if (prompt === null || prompt.trim() === "") return;
        if (signal.aborted) {
            store.dispatch({ type: "notice", level: "info", text: "[Cancelled]" });
            return;
        }
        const sent = prompt;
        const attached = attachments.filter((path) => sent.includes(`@${path}`));
        show({ type: "user", text: sent, attachments: attached });
        await run(sent, attached, deps.currentMode?.() ?? mode, signal);
    };

    const start = (text: string, attachments: string[], mode: Mode): void => {
        const controller = new AbortController();
        abort = controller;
        setBusy(true);
        running = handle(text, attachments, mode, controller.signal).finally(() => {
            store.flush();
            abort = null;
            const [next, ...rest] = controller.signal.aborted ? [] : queue;
            if (next) {
                // Busy throughout: the queued input starts before anyone sees the run end.
                setQueue(rest);
                start(next.text, next.attachments, next.mode);
            } else setBusy(false);
        });
    };

    return {
        store,
        isBusy: () => busy || engineRun,
        subscribeBusy(listener) {
            busyListeners.add(listener);
            return () => void busyListeners.delete(listener);
        },
        submit(text, attachments, mode) {
            if (!busy && !engineRun) {
                start(text, attachments, mode);
                return;
            }
            const last = queue.at(-1);
            // A `# note` or a `!command` is an entry of its own, never joined into a prompt.
            const apart = (input: string): boolean =>
                memoryNoteOf(input) !== undefined || input.trimStart().startsWith("!");
            if (last && !apart(last.text) && !apart(text)) {
                const joined: QueuedInput = {
                    text: `${last.text}\n${text}`,
                    attachments: [...new Set([...last.attachments, ...attachments])],
                    mode,
                };
                setQueue([...queue.slice(0, -1), joined]);
            } else setQueue([...queue, { text, attachments, mode }]);
        },
        queued: () => waiting,
        unqueue() {
            const taken = waiting;
            if (taken) setQueue([]);
            return taken;
        },
        cancel() {
            if (!busy && !engineRun) return false;
            abort?.abort();
            // A summary or a prompt already running stops too.
            void deps.host.submit({ type: "cancel" }).catch(() => undefined);
            deps.bridge.cancelAll();
            return true;
        },
        idle: () => running,
        currentSignal: () => abort?.signal ?? null,
        dispose() {
            abort?.abort();
            deps.bridge.cancelAll();
            unsubscribeEvents();
            unsubscribeReviews();
            store.dispose();
            busyListeners.clear();
        },
    };
}
