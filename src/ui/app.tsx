import type { StandingAutoApproval } from "../agent/approvals";
import {
    useCallback,
    useLayoutEffect,
    useReducer,
    useRef,
    useState,
    useSyncExternalStore,
} from "react";
import type { ReactElement } from "react";
import { Box, type DOMElement, measureElement } from "ink";
import type { Mode } from "../agent/events";
import type { FileIndex } from "../project/file-index";
import { type AppStateStore, createAppState } from "./app-state";
import type { ImagePaste } from "./composer/clipboard-image";
import { Composer, type ComposerControl } from "./composer/composer";
import type { DraftEdit } from "./composer/external-editor";
import type { PromptHistory } from "./composer/composer-state";
import type { SlashSource } from "./composer/slash-complete";
import type { AppController } from "./controller";
import { KeyGateContext, useKeyGateFeed } from "./hooks/use-key-gate";
import { usePendingReview, type PendingReviewSource } from "./hooks/use-pending-review";
import { useClosing } from "./hooks/use-closing";
import { useRawInput } from "./hooks/use-raw-input";
import { useTranscriptView } from "./hooks/use-transcript-view";
import { useRedrawOnResize } from "./hooks/use-redraw-on-resize";
import { type SessionStatusSource, useSessionStatus } from "./hooks/use-session-status";
import { useExitConfirm } from "./hooks/use-exit-confirm";
import { useTerminalSize } from "./hooks/use-terminal-size";
import { InlineTranscript } from "./inline-transcript";
import { createKeyGate } from "./input/key-gate";
import {
    DEFAULT_BINDINGS,
    DEFAULT_KEYBINDINGS,
    isTypingKey,
    type KeybindingContext,
    type Keybindings,
    strokeOfEvent,
} from "./input/keybindings";
import type { KeyEvent, KeyName } from "./input/keys";
import { LEGACY_MOUSE_PREFIX, parseMouse } from "./input/mouse";
import type { Ansi } from "./render/ansi";
import type { LineCache } from "./render/line-cache";
import type { StatusCosts } from "../agent/protocol";
import { CostsDialog } from "./reviews/costs-dialog";
import { ProcessesDialog } from "./reviews/processes-dialog";
import type { PluginsPort } from "./plugins/plugins-dialog";
import { backgroundNotice, type ProcessesPort } from "./processes-port";
import type { PendingReview } from "./review-types";
import { PendingReviewView, reviewScrolls, reviewTakesEscape } from "./reviews/pending-review";
import { FOLLOWING, scrollReducer } from "./scroll-state";
import { PlanPin, planPinRows } from "./plan-pin";
import { TodoChecklist, todoChecklistRows } from "./todo-checklist";
import { ScrollableTranscript } from "./scrollable-transcript";
import { StatusLine } from "./status-line";
import { type StatusExtrasStore, useStatusExtras } from "./status-extras";
import { ANIMATION_DISABLE_THRESHOLD } from "./transcript-animation";
import { TRANSCRIPT_VIEW_FOOTER_ROWS, TranscriptView } from "./transcript-view";

export interface AppProps {
    controller: AppController;
    session: SessionStatusSource;
    bridge: PendingReviewSource & { cancelAll(): void; current(): PendingReview | null };
    ansi: Ansi;
    cache: LineCache;
    /** Shown at the left of the status line. */
    projectName: string;
    /** Standing auto-approval in force, read at each render (the status line shows it). */
    standing?: () => StandingAutoApproval;
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
    /** The keys (defaults laid under the user's keybindings.json); the defaults when absent. */
    keybindings?: Keybindings;
    /** Mouse reporting (the terminal guard), for the toggle key. */
    terminal?: { setMouse(on: boolean): boolean; mouse(): boolean };
    /** Background processes: `/ps`'s view and Ctrl+B. */
    processes?: ProcessesPort;
    /** The engine's plugin ops, for `/plugin`'s view. */
    plugins?: PluginsPort;
    /** Running background processes and notices waiting, read at each render (the status line). */
    processCounts?: () => { running: number; notices: number };
    /** Ctrl+G: the draft in the user's editor (the terminal handed over until it exits). */
    editDraft?: (text: string) => DraftEdit;
    /** Ctrl+V: an image read from the clipboard and saved as a file. */
    pasteImage?: () => Promise<ImagePaste>;
    /** Asks the App to leave (a command's `/quit`): it draws its last frame first. */
    leave?: { subscribe(listener: () => void): () => void };
    /** The clock of the Ctrl+C exit window (tests inject one). */
    now?: () => number;
    /** The git branch and the `statusLine` command's line, for the status line. */
    statusExtras?: StatusExtrasStore;
}

/** Lines one wheel notch scrolls. */
const WHEEL_LINES = 3;

/** Rows kept free below the frame: Ink redraws everything when a frame fills the screen. */
const SPARE_ROWS = 1;

/**
 * The root: transcript viewport on top, the pending review, the composer
 * and the status line at the bottom. Ctrl+C clears the composer, else
 * cancels a run (Esc too), else asks for a second Ctrl+C to exit when idle.
 */
export function App(props: AppProps): ReactElement {
    const { controller, ansi, cache, altScreen, fileIndex } = props;
    const { closing, exit } = useClosing(props.leave);
    const { rows, columns } = useTerminalSize();
    useRedrawOnResize(altScreen);
    const transcript = useSyncExternalStore(controller.store.subscribe, controller.store.getState);
    const busy = useSyncExternalStore(controller.subscribeBusy, controller.isBusy);
    const queued = useSyncExternalStore(controller.subscribeBusy, controller.queued);
    const status = useSessionStatus(props.session);
    const pending = usePendingReview(props.bridge);
    const extras = useStatusExtras(props.statusExtras);
    const [appState] = useState(() => props.appState ?? createAppState(props.initialMode));
    const { mode, overlay, learning, reviewers, draft, vim } = useSyncExternalStore(
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
    // Ctrl+O: the whole transcript unfolded, over the chat (which stays as it was).
    const { view, state: viewState, onClamp: onViewClamp } = useTranscriptView(ansi, gate);
    const viewHeight = Math.max(3, rows - SPARE_ROWS - (altScreen ? 0 : 1));
    // The view's key handling counts the rows of lines, without its footer.
    const viewLines = viewHeight - TRANSCRIPT_VIEW_FOOTER_ROWS;
    const viewAt = useRef({ entries: transcript.entries, width, height: viewLines });
    viewAt.current = { entries: transcript.entries, width, height: viewLines };
    const exitConfirm = useExitConfirm(props.now);
    const { press: pressExit, reset: resetExit } = exitConfirm;

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

    const toggleMouse = useCallback(() => {
        const terminal = props.terminal;
        if (!altScreen || !terminal) {
            controller.store.dispatch({
                type: "notice",
                level: "info",
                text: "mouse scrolling is only in the alternate screen (without --no-alt-screen)",
            });
            return;
        }
        const on = terminal.setMouse(!terminal.mouse());
        controller.store.dispatch({
            type: "notice",
            level: "info",
            text: on
                ? "mouse on: the wheel scrolls the transcript; Shift+drag selects text"
                : "mouse off: drag selects text; the wheel no longer scrolls here",
        });
    }, [altScreen, controller, props.terminal]);

    const entriesRef = useRef(entries);
    entriesRef.current = entries;
    const scrollRef = useRef(scroll);
    scrollRef.current = scroll;
    // Inside a bracketed paste every key is text: no binding applies.
    const pasting = useRef(false);
    // Code points of a legacy (X10) mouse report still to swallow.
    const legacyMouseBytes = useRef(0);
    const keybindings = props.keybindings ?? DEFAULT_KEYBINDINGS;
    const onKey = useCallback(
        (event: KeyEvent) => {
            const scrollBy = (delta: number) =>
                dispatchScroll({ type: "by", delta, entries: entriesRef.current });
            const page = Math.max(1, viewportHeight - 1);
            // Read live: keys of one input string come before the next render.
            const reviewing = props.bridge.current() !== null;
            const dialog = appState.get().overlay !== null;
            const composerHasKeys = !reviewing && !dialog;
            const composer = composerControl.current;
            const notice = (level: "info" | "warning", text: string): void =>
                controller.store.dispatch({ type: "notice", level, text });
            const interrupt = (): void => {
                if (!controller.cancel()) return;
                dispatchScroll({ type: "bottom" });
                // What was queued is not sent after a cancel: back into the composer.
                const taken = controller.unqueue();
                if (taken) composer?.takeBack(taken.text, taken.attachments);
            };
            // The transcript view has every key; Ctrl+C keeps cancelling a run under it.
            const transcriptViewKey = (key: KeyEvent): void => {
                if (key.type === "chord" && key.ctrl && !key.meta && key.letter === "c") {
                    if (controller.isBusy()) interrupt();
                    else view.close();
                    return;
                }
                const pressed = strokeOfEvent(key);
                if (
                    pressed &&
                    keybindings.resolve(["Global"], pressed)?.action === "app:transcript"
                )
                    return view.close();
                if (key.type === "unknown") {
                    if (key.sequence === LEGACY_MOUSE_PREFIX) legacyMouseBytes.current = 3;
                    const report = parseMouse(key.sequence);
                    if (report?.kind === "wheel") view.key(key, viewAt.current, report.direction);
                    return;
                }
                view.key(key, viewAt.current);
            };
            if (legacyMouseBytes.current > 0 && event.type === "text") {
                const rest = [...event.text].slice(legacyMouseBytes.current);
                legacyMouseBytes.current -= [...event.text].length - rest.length;
                if (rest.length === 0) return;
                event = { type: "text", text: rest.join("") };
            }
            if (view.get().open) return transcriptViewKey(event);
            // Ctrl+C is fixed: clear the composer, else cancel, else close, else a second one exits.
            if (event.type === "chord" && event.ctrl && !event.meta && event.letter === "c") {
                if (composerHasKeys && composer?.clear()) resetExit();
                else if (controller.isBusy()) {
                    resetExit();
                    interrupt();
                    // An MCP server's question is not tied to the run: close it too.
                    if (reviewing) props.bridge.cancelAll();
                } else if (dialog) {
                    resetExit();
                    appState.showOverlay(null);
                } else if (reviewing) {
                    resetExit();
                    props.bridge.cancelAll(); // a picker opened while idle
                } else if (pressExit()) exit();
                return;
            }
            // Ctrl+D on an empty, idle composer exits; with text it is the composer's delete.
            const ctrlD =
                event.type === "chord" && event.ctrl && !event.meta && event.letter === "d";
            if (ctrlD && composerHasKeys && composer?.isEmpty() && !controller.isBusy()) {
                exit();
                return;
            }
            if (event.type === "paste-start") pasting.current = true;
            if (event.type === "paste-end") pasting.current = false;
            if (pasting.current || event.type === "paste-end") {
                if (!dialog) composer?.key(event);
                return;
            }
            let stroke = strokeOfEvent(event);
            let mouse = false;
            if (event.type === "unknown") {
                if (event.sequence === LEGACY_MOUSE_PREFIX) {
                    legacyMouseBytes.current = 3;
                    return;
                }
                const report = parseMouse(event.sequence);
                if (report) {
                    mouse = true;
                    stroke = report.kind === "wheel" ? `wheel${report.direction}` : null;
                }
            }
            // A review that scrolls takes the scroll keys itself.
            const current = props.bridge.current();
            const empty = composerHasKeys && (composer?.isEmpty() ?? false);
            const contexts: KeybindingContext[] = [];
            if (empty) contexts.push("Transcript");
            if (composerHasKeys) contexts.push("Chat");
            if (!(current && reviewScrolls(current))) contexts.push("Scroll");
            contexts.push("Global");
            let bound = stroke === null ? undefined : keybindings.resolve(contexts, stroke);
            // A typing key bound in Transcript acts only while reading back; else it is typed.
            if (
                bound?.context === "Transcript" &&
                stroke !== null &&
                isTypingKey(stroke) &&
                scrollRef.current.offset === 0
            ) {
                bound = undefined;
            }
            if (bound === undefined) {
                if (!mouse && !dialog) composer?.key(event);
                return;
            }
            const action = bound.action;
            if (action === null) return; // unbound on purpose
            // The composer's own handling of its default key, so a rebound key acts the same.
            const own = stroke !== null && DEFAULT_BINDINGS.Chat[stroke] === action;
            const asComposerKey = (canonical: KeyEvent): void =>
                composer?.key(own ? event : canonical);
            const keyOf = (name: KeyName): KeyEvent => ({
                type: "key",
                name,
                ctrl: false,
                meta: false,
                shift: false,
            });
            switch (action) {
                case "app:transcript":
                    view.open(viewAt.current);
                    return;
                case "app:toggleExpand":
                    controller.store.dispatch({ type: "toggle_expand" });
                    dispatchScroll({ type: "bottom" });
                    return;
                case "chat:expandPaste":
                    composer?.expandPaste();
                    return;
                case "app:toggleMouse":
                    toggleMouse();
                    return;
                case "app:backgroundCommand": {
                    // Only while a tool call runs; otherwise the key is the composer's (Ctrl+B: left).
                    const running = entriesRef.current.some(
                        (e) => e.kind === "tool" && e.status === "running"
                    );
                    const port = props.processes;
                    if (!running || !port) {
                        if (composerHasKeys) composer?.key(event);
                        return;
                    }
                    void port.background().then(
                        (moved) => controller.store.dispatch(backgroundNotice(moved)),
                        (error: unknown) =>
                            controller.store.dispatch({
                                type: "notice",
                                level: "warning",
                                text: `could not move the command to the background: ${(error as Error).message}`,
                            })
                    );
                    return;
                }
                case "scroll:pageUp":
                    return scrollBy(page);
                case "scroll:pageDown":
                    return scrollBy(-page);
                case "scroll:lineUp":
                    return scrollBy(1);
                case "scroll:lineDown":
                    return scrollBy(-1);
                case "scroll:wheelUp":
                    return scrollBy(WHEEL_LINES);
                case "scroll:wheelDown":
                    return scrollBy(-WHEEL_LINES);
                case "scroll:top":
                    dispatchScroll({ type: "top", entries: entriesRef.current });
                    return;
                case "scroll:bottom":
                    dispatchScroll({ type: "bottom" });
                    return;
                case "chat:cancel":
                    // An MCP server's question takes Esc itself (decline), the run goes on.
                    if (reviewTakesEscape(current)) return;
                    if (controller.isBusy() && !composer?.wantsEscape()) interrupt();
                    else asComposerKey(keyOf("escape"));
                    return;
                case "chat:submit":
                    return asComposerKey(keyOf("return"));
                case "chat:newline":
                    return asComposerKey(keyOf("newline"));
                case "history:previous":
                    return asComposerKey(keyOf("up"));
                case "history:next":
                    return asComposerKey(keyOf("down"));
                case "history:search":
                    return asComposerKey({ type: "chord", letter: "r", ctrl: true, meta: false });
                case "chat:cycleMode":
                    if (own) composer?.key(event);
                    else appState.cycleMode();
                    return;
                case "chat:clearInput":
                    composer?.clear();
                    return;
                case "chat:externalEditor": {
                    if (!composer || !props.editDraft) return;
                    // The editor holds the event loop until it exits: timers of a running answer or
                    // command (timeouts) would fire late and wrongly.
                    if (controller.isBusy()) {
                        notice(
                            "info",
                            "Ctrl+G opens your editor once North is idle: the editor would pause the answer"
                        );
                        return;
                    }
                    const edited = props.editDraft(composer.draftText());
                    if (edited.ok) composer.replaceDraft(edited.text);
                    else notice("warning", edited.message);
                    return;
                }
                case "chat:pasteImage":
                    if (!props.pasteImage) return;
                    void props.pasteImage().then((image) => {
                        if (image.ok) composerControl.current?.attachImage(image.path);
                        else notice("warning", image.message);
                    });
                    return;
                default:
                    action satisfies never;
            }
        },
        [
            viewportHeight,
            controller,
            exit,
            pressExit,
            resetExit,
            props.bridge,
            props.processes,
            props.editDraft,
            props.pasteImage,
            appState,
            keybindings,
            toggleMouse,
            view,
        ]
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
    const onClamp = useCallback(
        (from: number, offset: number) => dispatchScroll({ type: "clamp", from, offset }),
        []
    );
    const suggest = useCallback(
        (query: string) => (fileIndex ? fileIndex.search(query, 50) : []),
        [fileIndex]
    );
    const whenSuggestionsReady = useCallback(
        () => fileIndex?.ready() ?? Promise.resolve(),
        [fileIndex]
    );

    const todos = transcript.todos;
    const todoRows = todos ? todoChecklistRows(todos, rows) : 0;
    const pinRows = (activePlan !== null ? planPinRows(rows) : 0) + todoRows;
    const reviewHeight = Math.max(5, rows - SPARE_ROWS - 9 - pinRows);
    const composerLines = Math.max(1, Math.min(10, Math.floor(rows / 4)));
    const costs = props.costs?.() ?? {
        sessionUsd: status.totalCostUsd,
        allTimeUsd: status.totalCostUsd,
    };
    const viewOpen = viewState.open && !closing;
    const transcriptView = viewOpen ? (
        <TranscriptView
            state={viewState}
            entries={entries}
            cache={view.cache}
            ansi={ansi}
            width={width}
            height={viewHeight}
            onClamp={onViewClamp}
        />
    ) : null;
    // Hidden, not unmounted, under the transcript view: draft, review and dialogs stay as they were.
    const bottom = closing ? null : (
        <Box display={viewOpen ? "none" : "flex"} flexDirection="column" flexShrink={0}>
            {overlay?.kind === "costs" ? (
                <CostsDialog
                    session={overlay.figures.session}
                    allTime={overlay.figures.allTime}
                    width={width}
                    active={pending === null && !viewOpen}
                    onClose={onCloseOverlay}
                />
            ) : null}
            {overlay?.kind === "processes" && props.processes ? (
                <ProcessesDialog
                    initial={overlay.processes}
                    port={props.processes}
                    width={width}
                    maxRows={reviewHeight}
                    active={pending === null && !viewOpen}
                    onClose={onCloseOverlay}
                />
            ) : null}
            {overlay?.kind === "plugins" && props.plugins ? (
                <overlay.View
                    initial={overlay.listing}
                    port={props.plugins}
                    width={width}
                    maxRows={reviewHeight}
                    active={pending === null && !viewOpen}
                    onClose={onCloseOverlay}
                />
            ) : null}
            {activePlan !== null && !fullScreen ? (
                <PlanPin plan={activePlan} width={width} maxRows={planPinRows(rows)} ansi={ansi} />
            ) : null}
            {todos && todoRows > 0 && !fullScreen ? (
                <TodoChecklist items={todos} width={width} maxRows={todoRows} />
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
                    vim={vim}
                    notice={exitConfirm.hint}
                />
            </Box>
            <StatusLine
                width={width}
                project={props.projectName}
                scrolled={scroll.offset > 0}
                mode={mode}
                standing={props.standing?.()}
                learning={learning}
                reviewers={reviewers}
                model={status.model.display}
                contextUsedTokens={status.contextUsedTokens}
                contextUsage={status.contextUsage}
                sessionCostUsd={costs.sessionUsd}
                allTimeCostUsd={costs.allTimeUsd}
                processes={props.processCounts?.()}
                branch={extras.branch}
                custom={extras.custom}
            />
        </Box>
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
                        animate={animate && !closing}
                        hideLive={viewOpen}
                    />
                    {transcriptView}
                    {bottom}
                </Box>
            </KeyGateContext.Provider>
        );
    }
    return (
        <KeyGateContext.Provider value={gate}>
            <Box flexDirection="column" height={Math.max(3, rows - SPARE_ROWS)} paddingX={1}>
                {transcriptView}
                <Box
                    ref={viewportRef}
                    display={fullScreen || viewOpen ? "none" : "flex"}
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
