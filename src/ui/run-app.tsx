import type { ToolDisplays } from "../agent/tool-displays";
import { render } from "ink";
import type { Mode } from "../agent/events";
import type { SessionState } from "../agent/session";
import { loadAttachments, renderAttachedFiles } from "../project/attachments";
import { loadAttachedImages } from "../project/images";
import { createFileIndex } from "../project/file-index";
import type { ModelInfo } from "../providers/catalogue";
import { App } from "./app";
import { createAppState } from "./app-state";
import type { ApprovalBridge } from "./approval-bridge";
import { createChatCommands, showHostEvent } from "./chat-commands";
import { createAppController } from "./controller";
import { saveUserSetting } from "../storage/config";
import { readKeybindingsFile } from "../storage/keybindings-file";
import { loadKeybindings } from "./input/keybindings";
import { createDeferredHost } from "./deferred-host";
import { createProcessesPort } from "./processes-port";
import { answerSecretRequests } from "./secret-requests";
import type { EngineHostPort, HostEvent, StatusCosts } from "../agent/protocol";
import type { CustomCommand } from "../project/custom-commands";
import { createAnsi } from "./render/ansi";
import { resolveTheme, supportsTrueColor, type ThemeSetting } from "./theme";
import { ThemeContext } from "./use-theme";
import { createLineCache } from "./render/line-cache";
import { loadHighlighter } from "./render/highlight";
import { exitTranscript } from "./exit-transcript";
import { loadMarkdown } from "./render/markdown";
import type { PromptHistory } from "./composer/composer-state";
import type { SlashSource } from "./composer/slash-complete";
import { type StoredHistory, storedHistoryActions } from "./transcript/history";
import type { TranscriptAction } from "./transcript/reducer";
import { CHAT_FRAME_MS, CHAT_STREAM_FLUSH_MS, createTranscriptStore } from "./transcript/store";
import { CHAT_RENDER_OPTIONS } from "./render-options";
import {
    createTerminalGuard,
    installExitHooks,
    processTerminalPort,
} from "./terminal/terminal-guard";
import { createEditorHandover, processHandoverTerminal } from "./terminal/editor-handover";
import { copyText, nthLastAnswer } from "./copy-answer";
import { pasteClipboardImage } from "./composer/clipboard-image";
import { editDraft } from "./composer/external-editor";
import { systemClipboard } from "./terminal/clipboard";
import { RedrawBinder, createRedrawPort } from "./terminal/editor-handover-redraw";
import { createNotifier, type NotificationSettings } from "./terminal/notify";
import { FocusReports } from "./hooks/use-focus-reports";
import { notifyUser } from "./notify-user";
import { createStatusExtras, type StatusExtrasStore } from "./status-extras";

/** The engine host as the chat gets it, with what the chat shows of the project. */
export interface ChatEngine {
    host: EngineHostPort;
    /** How the session's tools (its registry's, MCP ones included) read in the transcript. */
    toolDisplays: ToolDisplays;
    /** Labels of the rules and context files loaded at start. */
    contextFiles: string[];
    /** The project's and the user's custom commands. */
    customCommands: readonly CustomCommand[];
    /** The plugins' commands now, and word when `/plugin` changed them (enable, disable, install, remove). */
    pluginCommands?: {
        commands(): readonly CustomCommand[];
        subscribe(listener: () => void): () => void;
    };
    /** What the conversation showed so far, to draw it (a new one: nothing). */
    history: StoredHistory;
    /** The `statusLine` command, when one is set (and, from a project, trusted). */
    statusLine?: { command: string; padding?: number; env: Record<string, string> };
}

export interface InteractiveOptions {
    /** The engine host, once loaded. */
    engine: Promise<ChatEngine>;
    /** What the status line shows until then. */
    initialState: SessionState;
    /** The all-time cost the status line shows until then. */
    initialCosts?: StatusCosts;
    /** Every model of the catalogue (`/model` picker and autocomplete). */
    models: ModelInfo[];
    /** First start in a project without a profile: ask to learn it; `decline` remembers a no. */
    learning?: { ask: boolean; decline(): void };
    bridge: ApprovalBridge;
    repoRoot: string;
    projectName: string;
    mode: Mode;
    altScreen: boolean;
    colors: boolean;
    /** The user's `theme` setting (dark when not set). */
    theme?: ThemeSetting;
    /** The user's `editorMode` setting: `vim` gives the composer vim keys. */
    editorMode?: "normal" | "vim";
    /** The user's `mouse` setting: false keeps mouse reporting off (the wheel does not scroll). */
    mouse?: boolean;
    /** Sent as soon as the app is up (`north "PROMPT"`). */
    initialPrompt?: string;
    /** A resumed conversation, drawn in the first frame (the engine loads behind it). */
    initialHistory?: StoredHistory;
    /** Shown first in the transcript (setup warnings, resume note). */
    notices: Array<{ level: "info" | "warning"; text: string }>;
    /** Ends the conversation: disposes tools, closes the log. */
    close(): void;
    /** Routes later warnings (e.g. the log could not be written) into the transcript. */
    bindWarnings?(show: (message: string) => void): void;
    /** This project's earlier prompts (Up, Ctrl+R); the prompts sent are added. */
    promptHistory?: PromptHistory;
    /** The user's `exitTranscript` setting: false leaves no transcript in the scrollback at exit. */
    exitTranscript?: boolean;
    /** The user's `notifications` setting. */
    notifications?: NotificationSettings;
    /** North's version, for the `statusLine` command's input. */
    version?: string;
}

/** How long an interrupted run may take to wind down on exit. */
const STOP_GRACE_MS = 3000;

/**
 * Runs the TUI until the user quits. The terminal is restored on every way
 * out, and the conversation is closed (running commands killed) first.
 */
export async function runInteractiveApp(options: InteractiveOptions): Promise<number> {
    const store = createTranscriptStore({
        flushMs: CHAT_STREAM_FLUSH_MS,
        frameMs: CHAT_FRAME_MS,
    });
    const host = createDeferredHost(
        {
            ...options.initialState,
            conversationId: "",
            mode: options.mode,
            models: options.models,
            costs: options.initialCosts ?? { sessionUsd: 0, allTimeUsd: null },
            standing: { commands: false, edits: false },
            processes: { running: 0, notices: 0 },
        },
        // Tool events arrive only from the host, so its tools' displays are known by then.
        options.engine.then((engine) => {
            store.dispatch({ type: "tool_displays", displays: engine.toolDisplays });
            return engine.host;
        })
    );
    const theme = resolveTheme(options.theme, process.env);
    const ansi = createAnsi(options.colors, theme, supportsTrueColor(process.env));
    const cache = createLineCache(ansi);
    const fileIndex = createFileIndex(options.repoRoot);
    const appState = createAppState(options.mode, options.editorMode === "vim");
    let unmount: (() => void) | null = null;
    // `/quit` asks the App to leave, so it draws its last frame (no composer) first.
    const leaveListeners = new Set<() => void>();
    const leave = {
        subscribe(listener: () => void) {
            leaveListeners.add(listener);
            return () => void leaveListeners.delete(listener);
        },
    };
    const requestLeave = (): void => {
        if (leaveListeners.size === 0) unmount?.();
        for (const listener of [...leaveListeners]) listener();
    };
    // Chained on the engine, so actions from before it is up are saved in order.
    const record = (action: TranscriptAction): void =>
        void host
            .submit({ type: "record_view", action: action as unknown as Record<string, unknown> })
            .catch(() => undefined);
    const commands = createChatCommands({
        host,
        store,
        appState,
        choose: (title, choices, note) => options.bridge.pick(title, choices, note),
        editFile: (path) => editFile(path),
        saveEditorMode: (mode) => saveUserSetting("editorMode", mode, process.env),
        copyAnswer: (nth) => {
            const text = nthLastAnswer(store.getState().entries, nth);
            if (text === undefined) {
                const which = nth === 1 ? "no answer yet" : `there are fewer than ${nth} answers`;
                return Promise.resolve({ message: `nothing to copy: ${which}`, isError: true });
            }
            return copyText(text, {
                clipboard: systemClipboard(),
                tty: process.stdout.isTTY === true,
                write: (sequence) => void process.stdout.write(sequence),
            });
        },
        exit: requestLeave,
        record,
    });
    const customCommandsLoaded = options.engine.then(
        (engine) => {
            commands.addCustomCommands(engine.customCommands);
            const plugins = engine.pluginCommands;
            plugins?.subscribe(() => commands.setPluginCommands(plugins.commands()));
        },
        () => undefined
    );
    const readDenial = async (path: string): Promise<string | undefined> =>
        (await host.submit({ type: "read_denial", path }).catch(() => ({ rule: undefined }))).rule;
    const noticeDeniedAttachment = (path: string, rule: string): void =>
        store.dispatch({
            type: "notice",
            level: "warning",
            text: `not attached: reading ${path} is denied by the permission rule ${rule}`,
        });
    const controller = createAppController({
        record,
        host,
        bridge: options.bridge,
        store,
        loadAttachments: async (paths) => {
            // The symbol parsers load with the first attachment, not at start-up.
            const { outlineOf } = await import("./attachment-outline");
            const deniedPaths = new Set<string>();
            const files = await loadAttachments(options.repoRoot, paths, outlineOf, {
                readDenial,
                onDenied: (path, rule) => {
                    deniedPaths.add(path);
                    noticeDeniedAttachment(path, rule);
                },
            });
            const loaded = new Set(files.map((f) => f.path));
            const missing = paths.filter((p) => !loaded.has(p) && !deniedPaths.has(p));
            if (missing.length > 0) {
                // Deleted since it was picked, unreadable, or outside the project: say so.
                store.dispatch({
                    type: "notice",
                    level: "warning",
                    text: `not attached (missing or unreadable): ${missing.join(", ")}`,
                });
            }
            return renderAttachedFiles(files);
        },
        loadImages: async (paths) => {
            const loaded = await loadAttachedImages(
                options.repoRoot,
                paths,
                readDenial,
                noticeDeniedAttachment
            );
            for (const { path, note } of loaded.scaled)
                store.dispatch({ type: "notice", level: "info", text: `${path}: ${note}` });
            return {
                images: loaded.images,
                rest: paths.filter((p) => !loaded.handled.has(p)),
                refused: loaded.refused.map(({ path, reason }) => `not sent: ${path}: ${reason}`),
            };
        },
        // A slash command typed before the engine is up may be one of the project's own.
        processInput: async (text) => {
            // Commands read the host's state and the project's own commands: wait for both.
            await host.ready.catch(() => undefined);
            if (text.trimStart().startsWith("/")) await customCommandsLoaded;
            return commands.process(text);
        },
        currentMode: () => appState.get().mode,
    });
    const offHostEvents = host.subscribe((event) => showHostEvent(event, { store, appState }));
    const offSecretRequests = answerSecretRequests(host, options.bridge, (text) =>
        store.dispatch({ type: "notice", level: "warning", text })
    );
    // Tab and Shift+Tab change the mode the host runs the next prompts in.
    const offModeSync = appState.subscribe(() => {
        const { mode } = appState.get();
        if (host.current() && host.state().mode !== mode) {
            void host.submit({ type: "set_mode", mode }).catch(() => undefined);
        }
    });
    for (const notice of options.notices) {
        store.dispatch({ type: "notice", level: notice.level, text: notice.text });
    }
    const keysFile = readKeybindingsFile();
    const keys = loadKeybindings(keysFile.text);
    const keyProblems =
        "error" in keysFile ? [`cannot be read (${keysFile.error})`] : keys.problems;
    if (keyProblems.length > 0) {
        store.dispatch({
            type: "notice",
            level: "warning",
            text: `${keysFile.path}: ${keyProblems.length === 1 ? keyProblems[0] : keyProblems.map((p) => `\n- ${p}`).join("")}\nThe default keys stay for what was wrong.`,
        });
    }
    // Calls read as their names until the engine's displays arrive, then are titled.
    if (options.initialHistory) store.dispatchAll(storedHistoryActions(options.initialHistory));
    // Asked from the first frame; typing a prompt instead puts it off to the next start (the key gate).
    if (options.learning?.ask && !options.initialPrompt) {
        const learning = options.learning;
        void options.bridge.askLearning().then((answer) => {
            if (answer === true) controller.submit("/learn", [], appState.get().mode);
            else if (answer === null) {
                store.dispatch({
                    type: "notice",
                    level: "info",
                    text: "North asks to learn this project next time; /learn learns it any time.",
                });
            } else {
                try {
                    learning.decline();
                    store.dispatch({
                        type: "notice",
                        level: "info",
                        text: "North will not ask again in this project; /learn learns it any time.",
                    });
                } catch (error) {
                    store.dispatch({
                        type: "notice",
                        level: "warning",
                        text: `could not save the answer: ${(error as Error).message}`,
                    });
                }
            }
        });
    }
    options.engine.then(
        (engine) => {
            if (!options.initialHistory) store.dispatchAll(storedHistoryActions(engine.history));
            if (engine.contextFiles.length > 0) {
                const n = engine.contextFiles.length;
                store.dispatch({
                    type: "notice",
                    level: "info",
                    text: `loaded ${n} context ${n === 1 ? "file" : "files"}: ${engine.contextFiles.join(", ")}`,
                });
            }
            // `north "PROMPT"`: sent once the engine is up, after any resumed history.
            if (options.initialPrompt) {
                options.promptHistory?.add(options.initialPrompt);
                controller.submit(options.initialPrompt, [], options.mode);
            }
        },
        (error: unknown) =>
            controller.store.dispatch({
                type: "notice",
                level: "error",
                text: `North could not start the session: ${(error as Error).message}`,
            })
    );
    options.bindWarnings?.((text) => store.dispatch({ type: "notice", level: "warning", text }));
    const slash: SlashSource = {
        commands: () => commands.hints(),
        models: () => options.models,
    };

    const guard = createTerminalGuard(processTerminalPort(), {
        altScreen: options.altScreen,
        mouse: options.mouse ?? true,
    });
    const hooks = installExitHooks(
        guard,
        () => {
            // Ink's last frame must land before the screen is switched back.
            unmount?.();
            controller.dispose();
            options.close();
        },
        (message) => void process.stderr.write(message)
    );
    const terminalPort = processTerminalPort();
    const notifier = createNotifier({
        settings: options.notifications ?? {},
        env: process.env,
        write: (bytes) => terminalPort.write(bytes),
        now: Date.now,
    });
    const offNotify = notifyUser(notifier, host, options.bridge);
    const statusExtras = createStatusExtras();
    const redraw = createRedrawPort();
    const editFile = createEditorHandover({
        terminal: processHandoverTerminal(),
        altScreen: options.altScreen,
        mouse: () => guard.mouse(),
        redraw: () => redraw.request(),
        env: process.env,
    });
    guard.enter();
    const instance = render(
        <ThemeContext.Provider value={theme}>
            <App
                controller={controller}
                session={host}
                bridge={options.bridge}
                ansi={ansi}
                cache={cache}
                projectName={options.projectName}
                initialMode={options.mode}
                altScreen={options.altScreen}
                fileIndex={fileIndex}
                appState={appState}
                slash={slash}
                costs={() => host.state().costs}
                standing={() => host.state().standing}
                promptHistory={options.promptHistory}
                keybindings={keys.keybindings}
                terminal={guard}
                processes={createProcessesPort(host)}
                plugins={host}
                processCounts={() => host.state().processes}
                editDraft={(text) => editDraft(text, (path) => editFile(path, "discard"))}
                pasteImage={() => pasteClipboardImage({ clipboard: systemClipboard() })}
                leave={leave}
                statusExtras={statusExtras}
            />
            <RedrawBinder port={redraw} />
            <FocusReports onFocus={notifier.focus} />
        </ThemeContext.Provider>,
        CHAT_RENDER_OPTIONS
    );
    unmount = () => instance.unmount();
    // After the first frame: answers are drawn as Markdown from here on, then code in colour.
    const redrawAll = () => controller.store.dispatch({ type: "redraw" });
    void loadMarkdown().then(redrawAll).then(loadHighlighter).then(redrawAll);
    const stopStatusExtras = startStatusExtras(statusExtras, {
        repoRoot: options.repoRoot,
        version: options.version ?? "",
        host,
        engine: options.engine,
    });

    let failure: unknown = null;
    try {
        await instance.waitUntilExit();
    } catch (error) {
        failure = error;
    }
    controller.cancel();
    await Promise.race([
        controller.idle(),
        new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref()),
    ]);
    controller.dispose();
    offHostEvents();
    offSecretRequests();
    offModeSync();
    offNotify();
    stopStatusExtras();
    options.close();
    guard.restore();
    hooks.dispose();
    // The alternate screen took the chat with it: leave a compact transcript in the scrollback.
    // Inline (--no-alt-screen) the scrollback already holds it.
    if (options.altScreen && options.exitTranscript !== false && process.stdout.isTTY && !failure) {
        const text = exitTranscript(store.getState().entries, ansi, {
            width: Math.max(20, (process.stdout.columns || 80) - 1),
            conversationId: host.state().conversationId || undefined,
        });
        if (text !== "") process.stdout.write(text);
    }
    if (failure) {
        const text =
            failure instanceof Error ? (failure.stack ?? failure.message) : String(failure);
        process.stderr.write(`north: unexpected error: ${text}\n`);
        return 1;
    }
    return 0;
}

/** Events after which what a status-line command shows may differ. */
const STATUS_CHANGES = new Set<HostEvent["type"]>([
    "run_end",
    "turn_end",
    "mode_set",
    "mode_change",
    "state_changed",
    "conversation_switched",
]);

/**
 * After the first frame: the git branch (watched) and the `statusLine`
 * command, each loaded then. Returns the stop.
 */
function startStatusExtras(
    extras: StatusExtrasStore,
    deps: {
        repoRoot: string;
        version: string;
        host: EngineHostPort;
        engine: Promise<ChatEngine>;
    }
): () => void {
    const stops: Array<() => void> = [];
    let stopped = false;
    const keep = (stop: () => void): void => {
        if (stopped) stop();
        else stops.push(stop);
    };
    void import("../project/git-branch").then(({ findGitDir, readGitBranch, watchGitBranch }) => {
        const gitDir = findGitDir(deps.repoRoot);
        if (gitDir === null || stopped) return;
        extras.set({ branch: readGitBranch(gitDir) });
        keep(watchGitBranch(gitDir, (branch) => extras.set({ branch })));
    });
    void deps.engine
        .then(async (engine) => {
            const config = engine.statusLine;
            if (!config || stopped) return;
            const { createStatusCommand, statusLineInput } = await import("./status-command");
            const pad = " ".repeat(config.padding ?? 0);
            const command = createStatusCommand({
                command: config.command,
                cwd: deps.repoRoot,
                env: config.env,
                input: () => {
                    const state = deps.host.state();
                    return statusLineInput({
                        sessionId: state.conversationId,
                        repoRoot: deps.repoRoot,
                        cwd: deps.repoRoot,
                        model: { id: state.model.id, display: state.model.display },
                        version: deps.version,
                        costUsd: state.costs.sessionUsd,
                        contextUsedTokens: state.contextUsedTokens,
                        contextLimitTokens: state.contextLimitTokens,
                        mode: state.mode,
                    });
                },
                show: (line) => extras.set({ custom: pad + line }),
            });
            const offEvents = deps.host.subscribe((event) => {
                if (STATUS_CHANGES.has(event.type)) command.request();
            });
            command.request();
            keep(() => {
                offEvents();
                command.dispose();
            });
        })
        .catch(() => undefined);
    return () => {
        stopped = true;
        for (const stop of stops.splice(0)) stop();
    };
}
