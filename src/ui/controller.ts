/**
 * Runs prompts for the TUI: feeds engine events into the transcript store,
 * records resolved reviews, and cancels (abort + resolve pending reviews) on
 * Ctrl+C. No React here; the App subscribes.
 */
import type { Mode } from "../agent/events";
import type { AgentSession } from "../agent/session";
import type { ApprovalBridge } from "./approval-bridge";
import { type TranscriptStore, createTranscriptStore } from "./transcript/store";

export interface AppController {
    store: TranscriptStore;
    /** True from submit until the run has ended. */
    isBusy(): boolean;
    subscribeBusy(listener: () => void): () => void;
    /** Starts a run; ignored while one is in progress. */
    submit(text: string, attachments: string[], mode: Mode): void;
    /** Ctrl+C while busy: aborts the run and resolves waiting reviews. False when idle. */
    cancel(): boolean;
    /** Resolves when the current run (if any) has ended. */
    idle(): Promise<void>;
    dispose(): void;
}

export interface ControllerDeps {
    session: Pick<AgentSession, "subscribe" | "run">;
    bridge: Pick<ApprovalBridge, "cancelAll" | "onResolved">;
    /** Renders attached files as the run's context block. */
    loadAttachments?: (paths: string[]) => Promise<string>;
    store?: TranscriptStore;
}

export function createAppController(deps: ControllerDeps): AppController {
    const store = deps.store ?? createTranscriptStore();
    const busyListeners = new Set<() => void>();
    let busy = false;
    let abort: AbortController | null = null;
    let running: Promise<void> = Promise.resolve();

    const setBusy = (value: boolean): void => {
        if (busy === value) return;
        busy = value;
        for (const listener of [...busyListeners]) listener();
    };

    const unsubscribeEvents = deps.session.subscribe((event) => store.push(event));
    const unsubscribeReviews = deps.bridge.onResolved((resolved) =>
        store.dispatch({
            type: "review",
            review: { kind: resolved.kind, summary: resolved.summary, status: resolved.status },
        })
    );

    const run = async (text: string, attachments: string[], mode: Mode, signal: AbortSignal) => {
        let attachedContext: string | undefined;
        if (attachments.length > 0 && deps.loadAttachments) {
            try {
                attachedContext = (await deps.loadAttachments(attachments)) || undefined;
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
            await deps.session.run(text, { mode, signal, attachedContext });
        } catch (error) {
            store.dispatch({
                type: "notice",
                level: "error",
                text: `Error: ${(error as Error).message}`,
            });
        }
    };

    return {
        store,
        isBusy: () => busy,
        subscribeBusy(listener) {
            busyListeners.add(listener);
            return () => void busyListeners.delete(listener);
        },
        submit(text, attachments, mode) {
            if (busy) return;
            store.dispatch({ type: "user", text, attachments });
            const controller = new AbortController();
            abort = controller;
            setBusy(true);
            running = run(text, attachments, mode, controller.signal).finally(() => {
                store.flush();
                abort = null;
                setBusy(false);
            });
        },
        cancel() {
            if (!busy) return false;
            abort?.abort();
            deps.bridge.cancelAll();
            return true;
        },
        idle: () => running,
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
