/**
 * Slash commands in the TUI: the registry (built-ins, then the project's
 * custom commands, built-ins winning a clash), the TUI's `CommandContext`,
 * and `process`, which runs the commands of one input and returns what goes
 * to the model. Command entries go to the transcript only. No React here.
 */
import type { Mode } from "../agent/events";
import {
    BUILTIN_COMMANDS,
    type CommandContext,
    type CommandDefinition,
    type CommandRegistry,
    type PickerOption,
    createCommandRegistry,
    runCommandsInInput,
} from "../commands/index";
import { type CustomCommand, expandCustomCommand } from "../project/custom-commands";
import type { ModelInfo } from "../providers/catalogue";
import type { AppStateStore } from "./app-state";
import type { DeferredSession } from "./deferred-session";
import type { StatusCosts, TuiEngine } from "./engine-port";
import { formatCost } from "./status-line";
import { storedHistoryActions } from "./transcript/history";
import type { TranscriptAction } from "./transcript/reducer";
import type { TranscriptStore } from "./transcript/store";

export interface TuiCommandsDeps {
    /** The engine, once loaded; commands that need it wait for it. */
    engine: Promise<TuiEngine>;
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
    /** Saves a transcript action with the conversation (see TuiEngine.recordView). */
    record?: (action: TranscriptAction) => void;
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
}

/** A custom command as the registry holds it: every token up to the next command is its argument. */
function customDefinition(command: CustomCommand): CommandDefinition {
    const where = command.scope === "project" ? "project command" : "user command";
    return {
        name: command.name,
        description: `${command.description || "custom command"} (${where})`,
        usage: `/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ""}`,
        maxPositional: Number.POSITIVE_INFINITY,
        execute: async () => ({ message: `Sent the prompt of ${command.file}` }),
    };
}

export function createTuiCommands(deps: TuiCommandsDeps): TuiCommands {
    const { session, store, appState } = deps;
    const registry = createCommandRegistry(BUILTIN_COMMANDS);
    const builtins = new Set(BUILTIN_COMMANDS.map((c) => c.name));
    const customs = new Map<string, CustomCommand>();
    let engine: TuiEngine | null = null;
    void deps.engine.then(
        (loaded) => {
            engine = loaded;
        },
        () => undefined
    );
    let exiting = false;

    /** Set while an input switched conversations: its command line belongs to neither. */
    let switched = false;
    /** Shows the engine's session after a switch: a fresh transcript, with its history if any. */
    const showSwitch = (loaded: TuiEngine, before: unknown): boolean => {
        const now = loaded.session();
        if (now === before) return false;
        switched = true;
        session.replace(now);
        store.dispatch({ type: "clear" });
        store.dispatchAll(storedHistoryActions(loaded.history()));
        return true;
    };

    const context: CommandContext = {
        interactive: true,
        listCommands: () => {
            const all = registry.list();
            return [
                ...all.filter((c) => builtins.has(c.name)),
                ...all.filter((c) => !builtins.has(c.name)),
            ];
        },
        exit() {
            exiting = true;
            deps.exit();
        },
        async newConversation() {
            const loaded = await deps.engine;
            const before = loaded.session();
            const result = await loaded.newConversation();
            if (result.isError) throw new Error(result.message);
            showSwitch(loaded, before);
            if (result.message)
                store.dispatch({ type: "notice", level: "info", text: result.message });
        },
        currentModel: () => session.state().model,
        models: () => deps.models,
        async switchModel(name) {
            const loaded = await deps.engine;
            const result = await loaded.switchModel(name);
            session.notifyStateChanged();
            return result;
        },
        pick: (title, options, note) => deps.pick(title, options, note),
        setMode: (mode: Mode) => appState.setMode(mode),
        async summarize(keepLast) {
            const loaded = await deps.engine;
            return loaded.summarize(keepLast, deps.signal());
        },
        async showCosts() {
            const loaded = await deps.engine;
            const figures = loaded.costs();
            appState.showOverlay({ kind: "costs", figures });
            return {
                message: `Session ${formatCost(figures.sessionUsd)} · all time ${formatCost(figures.allTimeUsd)} (Esc or Q closes the dialog)`,
            };
        },
        async learn() {
            const loaded = await deps.engine;
            appState.setLearning({ percent: 0, topic: "starting" });
            try {
                return await loaded.learn(deps.signal(), (percent, topic) =>
                    appState.setLearning({ percent, topic })
                );
            } finally {
                appState.setLearning(null);
                // Learning's own requests cost money too: refresh the status line.
                session.notifyStateChanged();
            }
        },
        async listConversations() {
            const loaded = await deps.engine;
            return loaded.listConversations();
        },
        async resume(id) {
            const loaded = await deps.engine;
            const before = loaded.session();
            const result = await loaded.resume(id);
            showSwitch(loaded, before);
            return result;
        },
        async exportMarkdown(path) {
            const loaded = await deps.engine;
            return loaded.exportMarkdown(path);
        },
        async rewindPoints() {
            const loaded = await deps.engine;
            return loaded.rewindPoints();
        },
        async rewind(request) {
            const loaded = await deps.engine;
            const before = loaded.session();
            const result = await loaded.rewind(request);
            // The conversation went back: the prompt returns to the composer, as Claude Code does.
            if (showSwitch(loaded, before)) appState.setDraft(request.point.text);
            return result;
        },
        async fork(promptNumber) {
            const loaded = await deps.engine;
            const before = loaded.session();
            const { promptText, ...result } = await loaded.fork(promptNumber);
            if (showSwitch(loaded, before) && promptText !== undefined) {
                appState.setDraft(promptText);
            }
            return result;
        },
        mcpServers: () => engine?.mcpServers() ?? [],
        skills: () => engine?.skills() ?? [],
    };

    return {
        registry,
        context,
        async process(input) {
            // Custom commands join the registry when the engine is up: an input typed
            // before that waits for it, so `/help` and `/review` never miss them.
            await deps.engine.catch(() => undefined);
            switched = false;
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
                const custom = customs.get(run.name);
                if (custom && !run.result.isError) {
                    const args = run.input.slice(run.name.length + 1);
                    prompts.push(expandCustomCommand(custom, args));
                }
            }
            if (exiting) return null;
            if (remainingText.trim() !== "") prompts.push(remainingText);
            return prompts.length > 0 ? prompts.join("\n\n") : null;
        },
        addCustomCommands(commands) {
            for (const command of commands) {
                if (builtins.has(command.name) || customs.has(command.name)) continue;
                customs.set(command.name, command);
                registry.register(customDefinition(command));
            }
        },
        statusCosts: () =>
            engine?.statusCosts() ?? deps.initialCosts ?? { sessionUsd: 0, allTimeUsd: null },
    };
}
