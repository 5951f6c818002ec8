import { useCallback, useLayoutEffect, useState, useSyncExternalStore } from "react";
import type { KeyGate } from "../input/key-gate";
import type { Ansi } from "../render/ansi";
import { createLineCache } from "../render/line-cache";
import {
    createTranscriptView,
    renderUnfolded,
    type TranscriptView,
    type TranscriptViewState,
} from "../transcript-view-state";

/**
 * The transcript view (Ctrl+O) of one App, with its own line cache; while it
 * is open the key gate keeps every key from a review under it.
 */
export function useTranscriptView(
    ansi: Ansi,
    gate: KeyGate
): {
    view: TranscriptView;
    state: TranscriptViewState;
    onClamp: (from: number, offset: number) => void;
} {
    const [view] = useState(() => createTranscriptView(createLineCache(ansi, renderUnfolded)));
    const state = useSyncExternalStore(view.subscribe, view.get);
    useLayoutEffect(() => view.subscribe(() => gate.setCovered(view.get().open)), [view, gate]);
    const onClamp = useCallback((from: number, offset: number) => view.clamp(from, offset), [view]);
    return { view, state, onClamp };
}
