/**
 * Slash commands in the chat: the registry (built-ins, then the project's
 * custom commands, built-ins winning a clash), and `process`, which runs the
 * commands of one input against the host, with the chat's picker and editor,
 * and returns what goes to the model. Command entries go to the transcript
 * only. No React here.
 */
import type { EngineHostPort, HostEvent, OpReply } from "../agent/protocol";
import { createCustomCommands } from "../commands/custom-commands";
import {
    BUILTIN_COMMANDS,
    type CommandFront,
    type CommandRegistry,
    classifyInput,
    commandNamesOf,
    createCommandRegistry,
    namesSource,
    runCommandsInInput,
} from "../commands/index";
import type { CustomCommand } from "../project/custom-commands";
import type { AppStateStore } from "./app-state";
import { memoryNoteChoice, memoryNoteOf } from "./memory-note";
import { storedHistoryActions } from "./transcript/history";
import type { TranscriptAction } from "./transcript/reducer";
import type { TranscriptStore } from "./transcript/store";

export interface ChatCommandsDeps {
    host: EngineHostPort;
    store: TranscriptStore;
    appState: AppStateStore;
    choose: NonNullable<CommandFront["choose"]>;
    /** Hands the terminal to the user's editor on a file until it exits (`/memory edit`). */
    editFile: NonNullable<CommandFront["editFile"]>;
    /** Copies the `nth` last answer (`/copy`); absent, /copy says it cannot. */
    copyAnswer?: CommandFront["copyAnswer"];
    /** Saves `editorMode` (`/vim`); absent, the switch is for this run only. */
    saveEditorMode?(
        mode: "normal" | "vim"
    ): { ok: true; path: string } | { ok: false; error: string };
    /** Ends the app (as Ctrl+C when idle). */
    exit(): void;
    /** Saves a transcript action with the conversation. */
    record(action: TranscriptAction): void;
}

export interface ChatCommands {
    registry: CommandRegistry;
    /**
     * Runs the commands of `input` in order, each shown as a command entry,
     * and returns the prompt for the model (the text left, after any custom
     * command's prompt), or null when nothing is left to send.
     */
    process(input: string): Promise<string | null>;
    /** Registers custom commands as slash commands; a built-in of the same name wins. */
    addCustomCommands(commands: readonly CustomCommand[]): void;
    /** Replaces the plugins' commands (after `/plugin` enabled, disabled, installed or removed one). */
    setPluginCommands(commands: readonly CustomCommand[]): void;
    /** What the slash autocomplete offers: every command, then the aliases beside their commands. */
    hints(): Array<{ name: string; description: string }>;
}

export function createChatCommands(deps: ChatCommandsDeps): ChatCommands {
    const { host, store, appState } = deps;
    const registry = createCommandRegistry(BUILTIN_COMMANDS);
    const customs = createCustomCommands(registry);
    // Skills run as `/name` too (the model loads them); their names, asked once.
    let skillNames: readonly string[] = [];
    let skillsAsked: Promise<void> | null = null;
    const loadSkillNames = (): Promise<void> =>
        (skillsAsked ??= host.submit({ type: "skills" }).then(
            (skills) => void (skillNames = skills.map((skill) => skill.name)),
            () => undefined
        ));
    const known = commandNamesOf(
        registry,
        namesSource(() => skillNames)
    );
    /** Set while an input switched conversations: its command lines belong to neither. */
    let switched = false;
    host.subscribe((event) => {
        if (event.type === "conversation_switched") switched = true;
    });
    const front: CommandFront & { state: EngineHostPort["state"] } = {
        async submit(op) {
            const reply = await host.submit(op);
            // The costs figures open the chat's dialog; a list of processes, its processes view.
            if (op.type === "costs") {
                appState.showOverlay({ kind: "costs", figures: reply as OpReply<"costs"> });
            }
            const processes = op.type === "processes" ? (reply as OpReply<"processes">) : [];
            if (processes.length > 0) appState.showOverlay({ kind: "processes", processes });
            return reply;
        },
        state: () => host.state(),
        choose: deps.choose,
        editFile: deps.editFile,
        copyAnswer: deps.copyAnswer,
        async openPlugins(listing) {
            // Loaded when first opened: the chat's launch path does not carry it.
            const { PluginsDialog } = await import("./plugins/plugins-dialog");
            appState.showOverlay({ kind: "plugins", listing, View: PluginsDialog });
            return { message: "Plugins opened." };
        },
        toggleVim() {
            const on = !appState.get().vim;
            appState.setVim(on);
            const what = on
                ? "Vim keys on: Esc for normal mode, i to insert; Enter sends from either"
                : "Vim keys off";
            const saved = deps.saveEditorMode?.(on ? "vim" : "normal");
            if (!saved) return { message: `${what} (for this run).` };
            return saved.ok
                ? { message: `${what}; saved as editorMode in ${saved.path}.` }
                : { message: `${what}, but not saved: ${saved.error}`, isError: true };
        },
    };
    /** `!command`: shown as the user's line, its output as a command entry (the host's events). */
    const runUserShell = async (input: string, command: string): Promise<void> => {
        const typed: TranscriptAction = { type: "user", text: input.trim(), attachments: [] };
        store.dispatch(typed);
        deps.record(typed);
        const outcome = await host.submit({ type: "user_shell", command });
        if (outcome.isError) {
            const refused: TranscriptAction = {
                type: "notice",
                level: "error",
                text: outcome.message,
            };
            store.dispatch(refused);
            deps.record(refused);
        }
    };
    const show = (input: string, result: { message: string; isError?: boolean }): void => {
        const action: TranscriptAction = {
            type: "command",
            command: input.trim(),
            result: result.message,
            isError: result.isError === true,
        };
        store.dispatch(action);
        if (!switched) deps.record(action);
    };

    return {
        registry,
        async process(input) {
            switched = false;
            // `# note` (one line): saved to the memory the user picks, never sent as a prompt.
            const note = memoryNoteOf(input);
            if (note !== undefined) {
                // An empty note is refused by the engine as it is: no need to ask where first.
                const scope =
                    note.trim() === "" ? "project" : await deps.choose(...memoryNoteChoice());
                // Esc: nothing saved, and the note goes back to the composer.
                if (scope === "project" || scope === "user") {
                    show(input, await host.submit({ type: "remember", note, scope }));
                } else appState.setDraft(input);
                return null;
            }
            if (input.trimStart().startsWith("/")) await loadSkillNames();
            const kind = classifyInput(input, known);
            if (kind.kind === "refused") {
                // Said, never sent and not saved: the draft is in the prompt history (Up).
                store.dispatch({
                    type: "command",
                    command: input.trim(),
                    result: kind.message,
                    isError: true,
                });
                return null;
            }
            if (kind.kind === "shell") {
                await runUserShell(input, kind.command);
                return null;
            }
            const { executed, remainingText } = await runCommandsInInput(input, registry, front);
            const prompts: string[] = [];
            let quit = false;
            for (const run of executed) {
                // Leaving is not part of the conversation: `/quit` and its "Bye." are not kept.
                if (run.quit === true) {
                    quit = true;
                    continue;
                }
                show(run.input, run.result);
                for (const text of run.warnings)
                    store.dispatch({ type: "notice", level: "warning", text });
                const prompt = customs.promptOf(run);
                if (prompt !== undefined) prompts.push(prompt);
            }
            if (quit) {
                deps.exit();
                return null;
            }
            if (remainingText.trim() !== "") prompts.push(remainingText);
            return prompts.length > 0 ? prompts.join("\n\n") : null;
        },
        addCustomCommands: (commands) => customs.add(commands),
        setPluginCommands: (commands) => customs.setPluginCommands(commands),
        hints: () =>
            registry.list().flatMap((command) => [
                command,
                ...(command.aliases ?? []).map((alias) => ({
                    name: alias,
                    description: `${command.description} (= /${command.name})`,
                })),
            ]),
    };
}

/** The chat's answer to the host's own events (and the engine's mode switch). */
export function showHostEvent(
    event: HostEvent,
    chat: { store: TranscriptStore; appState: AppStateStore }
): void {
    const { store, appState } = chat;
    switch (event.type) {
        case "conversation_switched":
            // A fresh transcript, with the conversation's history if any.
            store.dispatch({ type: "clear" });
            store.dispatchAll(storedHistoryActions(event.history));
            if (event.draft !== undefined) appState.setDraft(event.draft);
            return;
        // An edit review's "accept edits for the session", or /mode: show it, keep it.
        case "mode_change":
        case "mode_set":
            appState.setMode(event.mode);
            return;
        case "learning":
            appState.setLearning(event.progress);
            return;
        case "review_progress":
            appState.reviewerProgress(event.reviewer, event.state === "running");
            return;
        case "notice":
            store.dispatch({ type: "notice", level: event.level, text: event.text });
            return;
        default:
            return;
    }
}
