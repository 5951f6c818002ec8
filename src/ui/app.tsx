import {
    useCallback,
    useLayoutEffect,
    useReducer,
    useRef,
    useState,
    useSyncExternalStore,
} from "react";
import type { ReactElement } from "react";
import { Box, type DOMElement, measureElement, useApp } from "ink";
import type { Mode } from "../agent/events";
import type { FileIndex } from "../project/file-index";
import { type AppStateStore, createAppState } from "./app-state";
import { Composer, type ComposerControl } from "./composer/composer";
import type { PromptHistory } from "./composer/composer-state";
import type { SlashSource } from "./composer/slash-complete";
import type { AppController } from "./controller";
import { KeyGateContext, useKeyGateFeed } from "./hooks/use-key-gate";
import { usePendingReview, type PendingReviewSource } from "./hooks/use-pending-review";
import { useRawInput } from "./hooks/use-raw-input";
import { useRedrawOnResize } from "./hooks/use-redraw-on-resize";
import { type SessionStatusSource, useSessionStatus } from "./hooks/use-session-status";
import { useTerminalSize } from "./hooks/use-terminal-size";
import { InlineTranscript } from "./inline-transcript";
import { createKeyGate } from "./input/key-gate";
import type { KeyEvent } from "./input/keys";
import type { Ansi } from "./render/ansi";
import type { LineCache } from "./render/line-cache";
import type { StatusCosts } from "../commands/host";
import { CostsDialog } from "./reviews/costs-dialog";
import type { PendingReview } from "./review-types";
import { PendingReviewView, reviewScrolls } from "./reviews/pending-review";
import { FOLLOWING, scrollReducer } from "./scroll-state";
import { PlanPin, planPinRows } from "./plan-pin";
import { ScrollableTranscript } from "./scrollable-transcript";
import { StatusLine } from "./status-line";
import { ANIMATION_DISABLE_THRESHOLD } from "./transcript-animation";

export interface AppProps {
    controller: AppController;
    session: SessionStatusSource;
    bridge: PendingReviewSource & { cancelAll(): void; current(): PendingReview | null };
    ansi: Ansi;
    cache: LineCache;
    /** Shown at the left of the status line. */
    projectName: string;
    initialMode: Mode;
    /** False with --no-alt-screen: finished entries go to the terminal's scrollback. */
    altScreen: boolean;
    fileIndex?: FileIndex;
    /** Mode, dialog and learning progress, shared with the slash commands. */
    appState?: AppStateStore;
    /** Commands and models for slash autocomplete. */
    slash?: SlashSource;
    /** The status line's session and all-time costs; the session's own total when absent. */
    costs?: () => StatusCosts;
    /** Earlier prompts of this project (Up, Ctrl+R); sent ones are added. */
    promptHistory?: PromptHistory;
}

/** Rows kept free below the frame: Ink redraws everything when a frame fills the screen. */
const SPARE_ROWS = 1;

/**
 * The root: transcript viewport on top, the pending review, the composer
 * and the status line at the bottom. Ctrl+C clears the composer, else
 * cancels a run (Esc too), else exits when idle.
 */
export function App(props: AppProps): ReactElement {
    const { controller, ansi, cache, altScreen, fileIndex } = props;
    const { exit } = useApp();
    const { rows, columns } = useTerminalSize();
    useRedrawOnResize(altScreen);
    const transcript = useSyncExternalStore(controller.store.subscribe, controller.store.getState);
    const busy = useSyncExternalStore(controller.subscribeBusy, controller.isBusy);
    const queued = useSyncExternalStore(controller.subscribeBusy, controller.queued);
    const status = useSessionStatus(props.session);
    const pending = usePendingReview(props.bridge);
    const [appState] = useState(() => props.appState ?? createAppState(props.initialMode));
    const { mode, overlay, learning, draft } = useSyncExternalStore(
        appState.subscribe,
        appState.get
    );
    const [scroll, dispatchScroll] = useReducer(scrollReducer, FOLLOWING);
    // The diff review's full-screen view takes the transcript's and the composer's rows.
    const [reviewFull, setReviewFull] = useState(false);
    const fullScreen = reviewFull && pending !== null;
    const width = Math.max(10, columns - 2);
    const [viewportHeight, setViewportHeight] = useState(Math.max(1, rows - 5));
    const viewportRef = useRef<DOMElement>(null);

    const entries = transcript.entries;
    const animate = entries.length <= ANIMATION_DISABLE_THRESHOLD;
    // The composer takes keys while a run goes on: Enter queues what was typed.
    const composerActive = pending === null && overlay === null;
    const composerControl = useRef<ComposerControl | null>(null);
    const [gate] = useState(() => createKeyGate());
    useKeyGateFeed(gate);

    // The viewport takes what the review, composer and status line leave.
    useLayoutEffect(() => {
        if (!altScreen || !viewportRef.current) return;
        const { height } = measureElement(viewportRef.current);
        if (height > 0 && height !== viewportHeight) setViewportHeight(height);
    });

    // An accepted plan is carried out in agent mode, and so is the next request.
    const activePlan = transcript.activePlan;
    useLayoutEffect(() => {
        if (activePlan !== null) appState.setMode("agent");
    }, [activePlan, appState]);

    const entriesRef = useRef(entries);
    entriesRef.current = entries;
    const onKey = useCallback(
        (event: KeyEvent) => {
            const scrollBy = (delta: number) =>
                dispatchScroll({ type: "by", delta, entries: entriesRef.current });
            const page = Math.max(1, viewportHeight - 1);
            // Read live: keys of one input string come before the next render.
            const reviewing = props.bridge.current() !== null;
            const dialog = appState.get().overlay !== null;
            const composerHasKeys = !reviewing && !dialog;
            const interrupt = (): void => {
                if (!controller.cancel()) return;
                dispatchScroll({ type: "bottom" });
                // What was queued is not sent after a cancel: back into the composer.
                const taken = controller.unqueue();
                if (taken) composerControl.current?.takeBack(taken.text, taken.attachments);
            };
            if (event.type === "chord" && event.ctrl && event.letter === "c") {
                if (composerHasKeys && composerControl.current?.clear()) return;
                if (controller.isBusy()) interrupt();
                else if (dialog) appState.showOverlay(null);
                else if (reviewing)
                    props.bridge.cancelAll(); // a picker opened while idle
                else exit();
                return;
            }
            if (
                event.type === "key" &&
                event.name === "escape" &&
                composerHasKeys &&
                controller.isBusy() &&
                !composerControl.current?.wantsEscape()
            ) {
                interrupt();
                return;
            }
            if (event.type === "chord" && event.ctrl && event.letter === "o") {
                controller.store.dispatch({ type: "toggle_expand" });
                dispatchScroll({ type: "bottom" });
                return;
            }
            // A review that scrolls takes these keys itself.
            const current = props.bridge.current();
            if (event.type === "key" && !(current && reviewScrolls(current))) {
                if (event.name === "pageup") return scrollBy(page);
                if (event.name === "pagedown") return scrollBy(-page);
                if ((event.name === "up" || event.name === "down") && event.shift)
                    return scrollBy(event.name === "up" ? 1 : -1);
            }
            if (!dialog) composerControl.current?.key(event);
        },
        [viewportHeight, controller, exit, props.bridge, appState]
    );
    useRawInput(onKey, true);

    const onSubmit = useCallback(
        (text: string, attachments: string[]): boolean => {
            if (text.trim() === "/exit") {
                exit();
                return true;
            }
            // While busy this queues the input; it is sent when the run ends.
            if (!controller.isBusy()) dispatchScroll({ type: "bottom" });
            controller.submit(text, attachments, appState.get().mode);
            return true;
        },
        [controller, appState, exit]
    );
    const onToggleMode = useCallback(() => appState.cycleMode(), [appState]);
    // Esc Esc in the empty composer: the same as typing /rewind.
    const onUnqueue = useCallback(() => controller.unqueue(), [controller]);
    const onRewind = useCallback(() => {
        if (controller.isBusy()) return;
        controller.submit("/rewind", [], appState.get().mode);
    }, [controller, appState]);
    const onCloseOverlay = useCallback(() => appState.showOverlay(null), [appState]);
    const onClamp = useCallback((offset: number) => dispatchScroll({ type: "clamp", offset }), []);
    const suggest = useCallback(
        (query: string) => (fileIndex ? fileIndex.search(query, 50) : []),
        [fileIndex]
    );
    const whenSuggestionsReady = useCallback(
        () => fileIndex?.ready() ?? Promise.resolve(),
        [fileIndex]
    );

    const pinRows = activePlan !== null ? planPinRows(rows) : 0;
    const reviewHeight = Math.max(5, rows - SPARE_ROWS - 9 - pinRows);
    const composerLines = Math.max(1, Math.min(10, Math.floor(rows / 4)));
    const costs = props.costs?.() ?? {
        sessionUsd: status.totalCostUsd,
        allTimeUsd: status.totalCostUsd,
    };
    const bottom = (
        <>
            {overlay?.kind === "costs" ? (
                <CostsDialog
                    session={overlay.figures.session}
                    allTime={overlay.figures.allTime}
                    width={width}
                    active={pending === null}
                    onClose={onCloseOverlay}
                />
            ) : null}
            {activePlan !== null && !fullScreen ? (
                <PlanPin plan={activePlan} width={width} maxRows={pinRows} ansi={ansi} />
            ) : null}
            {pending ? (
                <Box flexShrink={0} width={width}>
                    <PendingReviewView
                        review={pending}
                        width={width}
                        animate={animate}
                        height={reviewHeight}
                        fullHeight={Math.max(5, rows - SPARE_ROWS - 1)}
                        onFullScreen={setReviewFull}
                        ansi={ansi}
                    />
                </Box>
            ) : null}
            {/* Hidden, not unmounted, under a full-screen review: the draft stays. */}
            <Box display={fullScreen ? "none" : "flex"} flexDirection="column" flexShrink={0}>
                <Composer
                    width={width}
                    maxLines={composerLines}
                    active={composerActive}
                    busy={busy}
                    isBusy={controller.isBusy}
                    queued={queued?.text ?? null}
                    onUnqueue={onUnqueue}
                    control={composerControl}
                    reviewing={pending !== null}
                    mode={mode}
                    onSubmit={onSubmit}
                    onToggleMode={onToggleMode}
                    suggest={suggest}
                    slash={props.slash}
                    whenSuggestionsReady={whenSuggestionsReady}
                    history={props.promptHistory}
                    onRewind={onRewind}
                    draft={draft}
                />
            </Box>
            <StatusLine
                width={width}
                project={props.projectName}
                scrolled={scroll.offset > 0}
                mode={mode}
                learning={learning}
                model={status.model.display}
                contextUsedTokens={status.contextUsedTokens}
                contextUsage={status.contextUsage}
                sessionCostUsd={costs.sessionUsd}
                allTimeCostUsd={costs.allTimeUsd}
            />
        </>
    );

    if (!altScreen) {
        return (
            <KeyGateContext.Provider value={gate}>
                <Box flexDirection="column" paddingX={1}>
                    <InlineTranscript
                        entries={entries}
                        cache={cache}
                        ansi={ansi}
                        width={width}
                        liveHeight={Math.max(3, rows - 10)}
                        animate={animate}
                    />
                    {bottom}
                </Box>
            </KeyGateContext.Provider>
        );
    }
    return (
        <KeyGateContext.Provider value={gate}>
            <Box flexDirection="column" height={Math.max(3, rows - SPARE_ROWS)} paddingX={1}>
                <Box
                    ref={viewportRef}
                    display={fullScreen ? "none" : "flex"}
                    flexDirection="column"
                    flexGrow={1}
                    flexShrink={1}
                    justifyContent="flex-end"
                    overflow="hidden"
                >
                    <ScrollableTranscript
                        entries={scroll.frozen ?? entries}
                        cache={cache}
                        ansi={ansi}
                        width={width}
                        height={viewportHeight}
                        scrollOffset={scroll.offset}
                        animate={animate}
                        onClamp={onClamp}
                    />
                </Box>
                {bottom}
            </Box>
        </KeyGateContext.Provider>
    );
}
