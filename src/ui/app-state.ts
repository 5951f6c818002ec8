/**
 * The App's own state that commands change from outside React: the mode of
 * the next requests, the dialog on top (`/costs`, `/ps`), learning progress and text
 * put back into the composer (`/rewind`).
 */
import { MODES, type Mode } from "../agent/events";
import type { CostFigures, PluginsListing } from "../agent/protocol";
import type { ComponentType } from "react";
import type { PluginsDialogProps } from "./plugins/plugins-dialog";
import type { ProcessInfo } from "../tools/processes/types";

/** `/costs`'s figures, or `/ps`'s list as it was when opened (the view refreshes it). */
export type Overlay =
    | { kind: "costs"; figures: CostFigures }
    | { kind: "processes"; processes: ProcessInfo[] }
    /** `/plugin`: the view is loaded when first opened (not on the chat's launch path). */
    | {
          kind: "plugins";
          listing: PluginsListing;
          View: ComponentType<PluginsDialogProps>;
      }
    | null;

export interface LearningProgress {
    percent: number;
    topic: string;
}

/** Text for the composer; a new `seq` replaces what it holds even when the text is the same. */
export interface ComposerDraft {
    text: string;
    seq: number;
}

export interface AppState {
    mode: Mode;
    overlay: Overlay;
    learning: LearningProgress | null;
    /** The reviewers of a `/review` running now ("correctness", "security 2/3"). */
    reviewers: string[];
    draft: ComposerDraft | null;
    /** The composer takes vim keys (`editorMode: "vim"`, `/vim`). */
    vim: boolean;
}

export interface AppStateStore {
    get(): AppState;
    subscribe(listener: () => void): () => void;
    setMode(mode: Mode): void;
    /** Tab and Shift+Tab: ask → agent → accept-edits → plan → ask. */
    cycleMode(): void;
    showOverlay(overlay: Overlay): void;
    setLearning(progress: LearningProgress | null): void;
    /** A reviewer of a review started (`running`) or ended. */
    reviewerProgress(reviewer: string, running: boolean): void;
    /** Replaces what the composer holds with `text` (to edit and send again). */
    setDraft(text: string): void;
    setVim(on: boolean): void;
}

/** The mode after `mode` in the Tab cycle. */
export function nextMode(mode: Mode): Mode {
    return MODES[(MODES.indexOf(mode) + 1) % MODES.length] ?? "agent";
}

export function createAppState(initialMode: Mode, vim = false): AppStateStore {
    let state: AppState = {
        mode: initialMode,
        overlay: null,
        learning: null,
        reviewers: [],
        draft: null,
        vim,
    };
    const listeners = new Set<() => void>();
    const set = (change: Partial<AppState>): void => {
        state = { ...state, ...change };
        for (const listener of [...listeners]) listener();
    };
    return {
        get: () => state,
        subscribe(listener) {
            listeners.add(listener);
            return () => void listeners.delete(listener);
        },
        setMode: (mode) => {
            if (mode !== state.mode) set({ mode });
        },
        cycleMode: () => set({ mode: nextMode(state.mode) }),
        showOverlay: (overlay) => set({ overlay }),
        setLearning: (learning) => set({ learning }),
        reviewerProgress: (reviewer, running) => {
            const others = state.reviewers.filter((r) => r !== reviewer);
            set({ reviewers: running ? [...others, reviewer] : others });
        },
        setDraft: (text) => set({ draft: { text, seq: (state.draft?.seq ?? 0) + 1 } }),
        setVim: (on) => {
            if (on !== state.vim) set({ vim: on });
        },
    };
}
