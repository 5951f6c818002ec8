/**
 * Slash commands in the chat: the registry (built-ins, then the project's
 * custom commands, built-ins winning a clash), the chat's interactive port
 * for the shared command context, and `process`, which runs the commands of
 * one input and returns what goes to the model. Command entries go to the
 * transcript only. No React here.
 */
import type { StandingAutoApproval } from "../agent/approvals";
import type { ToolDisplays } from "../agent/tool-displays";
import {
    BUILTIN_COMMANDS,
    type CommandContext,
    type CommandRegistry,
    type PickerOption,
    createCommandRegistry,
    runCommandsInInput,
} from "../commands/index";
import { type InteractivePort, createCommandContext } from "../commands/context";
import type { CommandHost, StatusCosts } from "../commands/host";
import type { CustomCommand } from "../project/custom-commands";
import { createCustomCommands } from "../commands/custom-commands";
import type { ModelInfo } from "../providers/catalogue";
import type { AppStateStore } from "./app-state";
import type { DeferredSession, SessionPort } from "./deferred-session";
import { formatCost } from "../providers/catalogue";
import { type StoredHistory, storedHistoryActions } from "./transcript/history";
import type { TranscriptAction } from "./transcript/reducer";
import type { TranscriptStore } from "./transcript/store";
import { memoryNoteOf } from "./memory-note";

/** The command host as the chat holds it: with the conversation to show and its saved view. */
export interface ChatEngine extends CommandHost {
    session(): SessionPort;
    conversationId(): string;
    /** Labels of the rules and context files loaded at start. */
    contextFiles: string[];
    /** The project's and the user's custom commands. */
    customCommands: CustomCommand[];
    /** What the current conversation showed so far, to draw it again (start-up, a switch). */
    history(): StoredHistory;
    /** How the session's tools (its registry's, MCP ones included) read in the transcript. */
    toolDisplays: ToolDisplays;
    /** Saves one of the chat's own transcript actions (a prompt, a review, a command) with the conversation. */
    recordView(action: TranscriptAction): void;
}

export interface TuiCommandsDeps {
    /** The engine, once loaded; commands that need it wait for it. */
    engine: Promise<ChatEngine>;
    session: DeferredSession;
    store: TranscriptStore;
    appState: AppStateStore;
    pick(title: string, options: PickerOption[], note?: string): Promise<string | null>;
    /** Ends the app (as Ctrl+C when idle). */
    exit(): void;
    /** Every model of the catalogue, for the picker and autocomplete. */
    models: ModelInfo[];
    /** The signal of the input being processed (Ctrl+C aborts it). */
    signal(): AbortSignal;
    /** The status line's costs until the engine is up. */
    initialCosts?: StatusCosts;
    /** Saves a transcript action with the conversation (see ChatEngine.recordView). */
    record?: (action: TranscriptAction) => void;
    /** Hands the terminal to the user's editor on a file until it exits (`/memory edit`). */
    editFile?: InteractivePort["editFile"];
}

export interface TuiCommands {
    registry: CommandRegistry;
    context: CommandContext;
    /**
     * Runs the commands of `input` in order, each shown as a command entry,
     * and returns the prompt for the model (the text left, after any custom
     * command's prompt), or null when nothing is left to send.
     */
    process(input: string): Promise<string | null>;
    /** Registers custom commands as slash commands; a built-in of the same name wins. */
    addCustomCommands(commands: readonly CustomCommand[]): void;
    /** The status line's two cost figures. */
    statusCosts(): StatusCosts;
    /** The status line's standing auto-approval (none until the engine is up). */
    statusStanding(): StandingAutoApproval;
}

export function createTuiCommands(deps: TuiCommandsDeps): TuiCommands {
    const { session, store, appState } = deps;
    const registry = createCommandRegistry(BUILTIN_COMMANDS);
    const customs = createCustomCommands(registry);
    let engine: ChatEngine | null = null;
    void deps.engine.then(
        (loaded) => {
            engine = loaded;
        },
        () => undefined
    );
    let exiting = false;
    /** Set while an input switched conversations: its command line belongs to neither. */
    let switched = false;

    const port: InteractivePort = {
        pick: (title, options, note) => deps.pick(title, options, note),
        exit() {
            exiting = true;
            deps.exit();
        },
        conversationChanged(draft) {
            if (!engine) return;
            // A fresh transcript, with the conversation's history if any.
            switched = true;
            session.replace(engine.session());
            store.dispatch({ type: "clear" });
            store.dispatchAll(storedHistoryActions(engine.history()));
            if (draft !== undefined) appState.setDraft(draft);
        },
        notice: (text) => store.dispatch({ type: "notice", level: "info", text }),
        warning: (text) => store.dispatch({ type: "notice", level: "warning", text }),
        showCosts(figures) {
            appState.showOverlay({ kind: "costs", figures });
            return `Session ${formatCost(figures.sessionUsd)} · all time ${formatCost(figures.allTimeUsd)} (Esc or Q closes the dialog)`;
        },
        learningProgress: (progress) => appState.setLearning(progress),
        stateChanged: () => session.notifyStateChanged(),
        editFile: (path) =>
            deps.editFile?.(path) ?? { ok: false, error: "this chat cannot open an editor" },
    };
    const context = createCommandContext({
        host: deps.engine,
        registry,
        currentModel: () => session.state().model,
        models: () => deps.models,
        setMode: (mode) => appState.setMode(mode),
        currentMode: () => appState.get().mode,
        signal: deps.signal,
        interactive: port,
    });

    return {
        registry,
        context,
        async process(input) {
            // Custom commands join the registry when the engine is up: an input typed
            // before that waits for it, so `/help` and `/review` never miss them.
            await deps.engine.catch(() => undefined);
            switched = false;
            // `# note` (one line): saved to the project's memory, never sent as a prompt.
            const note = memoryNoteOf(input);
            if (note !== undefined) {
                const result = await context.remember(note, "project");
                const action: TranscriptAction = {
                    type: "command",
                    command: input.trim(),
                    result: result.message,
                    isError: result.isError === true,
                };
                store.dispatch(action);
                deps.record?.(action);
                return null;
            }
            const { executed, remainingText } = await runCommandsInInput(input, registry, context);
            const prompts: string[] = [];
            for (const run of executed) {
                const action: TranscriptAction = {
                    type: "command",
                    command: run.input.trim(),
                    result: run.result.message,
                    isError: run.result.isError === true,
                };
                store.dispatch(action);
                if (!switched) deps.record?.(action);
                const prompt = customs.promptOf(run);
                if (prompt !== undefined) prompts.push(prompt);
            }
            if (exiting) return null;
            if (remainingText.trim() !== "") prompts.push(remainingText);
            return prompts.length > 0 ? prompts.join("\n\n") : null;
        },
        addCustomCommands: (commands) => customs.add(commands),
        statusCosts: () =>
            engine?.statusCosts() ?? deps.initialCosts ?? { sessionUsd: 0, allTimeUsd: null },
        statusStanding: () => engine?.statusStanding() ?? { commands: false, edits: false },
    };
}
