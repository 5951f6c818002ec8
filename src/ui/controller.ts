/**
 * Runs prompts for the TUI: feeds engine events into the transcript store,
 * records resolved reviews, and cancels (abort + resolve pending reviews) on
 * Ctrl+C. No React here; the App subscribes.
 */
import type { Mode } from "../agent/events";
import type { AgentSession } from "../agent/session";
import type { ApprovalBridge } from "./approval-bridge";
import type { TranscriptAction } from "./transcript/reducer";
import { type TranscriptStore, createTranscriptStore } from "./transcript/store";

export interface AppController {
    store: TranscriptStore;
    /** True from submit until the run has ended. */
    isBusy(): boolean;
    subscribeBusy(listener: () => void): () => void;
    /**
     * Runs the input's slash commands, then sends what is left to the model;
     * ignored while a run is in progress.
     */
    submit(text: string, attachments: string[], mode: Mode): void;
    /** The signal of the input being processed (aborted by Ctrl+C); null when idle. */
    currentSignal(): AbortSignal | null;
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

    const setBusy = (value: boolean): void => {
        if (busy === value) return;
        busy = value;
        for (const listener of [...busyListeners]) listener();
    };

    /** Shows an action and saves it with the conversation. */
    const show = (action: TranscriptAction): void => {
        store.dispatch(action);
        deps.record?.(action);
    };
    const unsubscribeEvents = deps.session.subscribe((event) => store.push(event));
    const unsubscribeReviews = deps.bridge.onResolved((resolved) => {
        // Project-level questions (trust, learning) are not part of a conversation.
        const action: TranscriptAction = {
            type: "review",
            review: { kind: resolved.kind, summary: resolved.summary, status: resolved.status },
        };
        if (resolved.kind === "trust" || resolved.kind === "learning") store.dispatch(action);
        else show(action);
    });

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

    return {
        store,
        isBusy: () => busy,
        subscribeBusy(listener) {
            busyListeners.add(listener);
            return () => void busyListeners.delete(listener);
        },
        submit(text, attachments, mode) {
            if (busy) return;
            const controller = new AbortController();
            abort = controller;
            setBusy(true);
            running = handle(text, attachments, mode, controller.signal).finally(() => {
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
