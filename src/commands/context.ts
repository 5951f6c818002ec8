/**
 * The one `CommandContext`: the commands' view of the host, for the chat and
 * for print mode alike. What only the chat can do (pickers, dialogs, showing
 * another conversation) goes through its `InteractivePort`; without one
 * (print mode) those commands say what print mode offers instead.
 */
import type { Mode } from "../agent/events";
import type { ModelInfo } from "../providers/catalogue";
import { formatCost } from "../providers/catalogue";
import type { CommandHost, CostFigures } from "./host";
import { BUILTIN_COMMANDS } from "./index";
import type { CommandRegistry } from "./registry";
import type { CommandContext, CommandResult, PickerOption } from "./types";

/** What only the chat can do for a command. */
export interface InteractivePort {
    /** Resolves with the chosen option's id, null when cancelled; `note` is shown under the title. */
    pick(title: string, options: PickerOption[], note?: string): Promise<string | null>;
    /** Ends the app. */
    exit(): void;
    /** The host switched conversations: show the new one; `draft` goes back to the composer. */
    conversationChanged(draft?: string): void;
    notice(text: string): void;
    warning(text: string): void;
    /** Opens the costs dialog; returns the line the command shows. */
    showCosts(figures: CostFigures): string;
    /** Learning's progress while `/learn` runs, null when it ended. */
    learningProgress(progress: { percent: number; topic: string } | null): void;
    /** The session's state changed without an engine event (a model switch, learning's spend). */
    stateChanged(): void;
    /**
     * Hands the terminal to the user's editor on `path` until it exits; an
     * error when no editor could be started.
     */
    editFile(path: string): { ok: true; warning?: string } | { ok: false; error: string };
}

export interface CommandFront {
    /** The host, or its promise while the engine loads (the chat); commands wait for it. */
    host: CommandHost | Promise<CommandHost>;
    registry: CommandRegistry;
    currentModel(): ModelInfo;
    /** Every model of the catalogue (`/model` picker). */
    models(): ModelInfo[];
    setMode(mode: Mode): void;
    /** The chat's mode now (`/permissions` lists `accept-edits`); absent in print mode. */
    currentMode?(): Mode;
    /** The signal of the input being processed (Ctrl+C aborts it). */
    signal(): AbortSignal;
    /** The chat's; absent in print mode. */
    interactive?: InteractivePort;
}

const chatOnly = (what: string): CommandResult => ({
    message: `${what} works in the chat (north); print mode runs one prompt`,
    isError: true,
});

/** Print mode's `/costs`: all-time spend by model. */
function costLines(figures: CostFigures): string {
    const lines = figures.allTime.map(
        (c) =>
            `${c.provider}/${c.model}: ${c.inputTokens} in, ${c.outputTokens} out, ${formatCost(c.costUsd)}${c.unpricedRequests ? ` (+${c.unpricedRequests} unpriced)` : ""}`
    );
    return [`All time: ${formatCost(figures.allTimeUsd)}`, ...lines].join("\n");
}

export function createCommandContext(front: CommandFront): CommandContext {
    const { registry, interactive: ui } = front;
    const pending = Promise.resolve(front.host);
    let loaded: CommandHost | null = front.host instanceof Promise ? null : front.host;
    pending.then(
        (host) => void (loaded = host),
        () => undefined
    );
    const builtins = new Set(BUILTIN_COMMANDS.map((c) => c.name));
    /** The learning running in the background, if any. */
    let learning: AbortController | null = null;

    /** Runs a host call that may switch conversations; the chat then shows the new one. */
    const switching = async <R>(
        call: (host: CommandHost) => Promise<R>,
        draft?: (result: R) => string | undefined
    ): Promise<R> => {
        const host = await pending;
        const before = host.session();
        const result = await call(host);
        if (host.session() !== before) ui?.conversationChanged(draft?.(result));
        return result;
    };

    return {
        interactive: ui !== undefined,
        listCommands: () => {
            const all = registry.list();
            return [
                ...all.filter((c) => builtins.has(c.name)),
                ...all.filter((c) => !builtins.has(c.name)),
            ];
        },
        exit: () => ui?.exit(),
        async newConversation() {
            // Print mode runs its one prompt in the conversation it started with.
            if (!ui) return;
            const result = await switching((host) => host.newConversation());
            if (result.isError) throw new Error(result.message);
            if (result.message) ui.notice(result.message);
        },
        currentModel: () => front.currentModel(),
        models: () => front.models(),
        async switchModel(name) {
            const result = await (await pending).switchModel(name);
            ui?.stateChanged();
            return result;
        },
        pick: (title, options, note) => ui?.pick(title, options, note) ?? Promise.resolve(null),
        setMode: (mode) => front.setMode(mode),
        summarize: async (keepLast) => (await pending).summarize(keepLast, front.signal()),
        async showCosts() {
            const figures = (await pending).costs();
            return { message: ui ? ui.showCosts(figures) : costLines(figures) };
        },
        async learn(action = "start") {
            if (!ui) return chatOnly("/learn");
            if (action === "stop") {
                if (!learning) return { message: "No learning is running." };
                learning.abort();
                return { message: "Stopping the learning; the profile is not changed." };
            }
            if (learning) {
                return {
                    message: "North is already learning this project; /learn stop cancels it.",
                };
            }
            const host = await pending;
            // Its own signal: learning goes on while the user chats, until /learn stop or exit.
            const controller = new AbortController();
            learning = controller;
            ui.learningProgress({ percent: 0, topic: "starting" });
            const announce = (result: CommandResult): void =>
                result.isError ? ui.warning(result.message) : ui.notice(result.message);
            void host
                .learn(controller.signal, (percent, topic) => {
                    if (learning === controller) ui.learningProgress({ percent, topic });
                })
                .then(announce, (error: unknown) =>
                    ui.warning(`learning failed: ${(error as Error).message}`)
                )
                .finally(() => {
                    learning = null;
                    ui.learningProgress(null);
                    // Learning's own requests cost money too: refresh the status line.
                    ui.stateChanged();
                });
            return {
                message:
                    "Learning this project in the background (read-only, ten topics); keep chatting. Progress is in the status line; /learn stop cancels.",
            };
        },
        listConversations: async () => (await pending).listConversations(),
        async resume(id) {
            if (!ui) {
                return {
                    message: `use north -p --resume ${id} "PROMPT" to continue a conversation`,
                    isError: true,
                };
            }
            return switching((host) => host.resume(id));
        },
        exportMarkdown: async (path) => (await pending).exportMarkdown(path),
        async rewindPoints() {
            if (!ui) return { ok: false, error: chatOnly("/rewind").message };
            return (await pending).rewindPoints();
        },
        async rewind(request) {
            if (!ui) return chatOnly("/rewind");
            // The conversation went back: the prompt returns to the composer, as Claude Code does.
            return switching(
                (host) => host.rewind(request),
                () => request.point.text
            );
        },
        async fork(promptNumber) {
            if (!ui) return chatOnly("/fork");
            const { promptText: _draft, ...result } = await switching(
                (host) => host.fork(promptNumber),
                (forked) => forked.promptText
            );
            return result;
        },
        mcpServers: () => loaded?.mcpServers() ?? [],
        skills: () => loaded?.skills() ?? [],
        permissions: () => ({
            ...(loaded?.permissions() ?? { rules: [], notes: [] }),
            mode: front.currentMode?.(),
        }),
        removePermission: (number) =>
            loaded?.removePermission(number) ?? {
                message: "The session is still starting; try again.",
                isError: true,
            },
        memory: async () => (await pending).memory(),
        remember: async (note, scope) => (await pending).remember(note, scope),
        async editMemory(scope) {
            if (!ui) {
                return {
                    message:
                        "/memory edit works in the chat (north); in print mode edit the MEMORY.md that /memory lists",
                    isError: true,
                };
            }
            const host = await pending;
            const file = host.memoryFile(scope);
            if (!file.ok) return { message: `Cannot edit memory: ${file.error}`, isError: true };
            const edited = ui.editFile(file.path);
            if (!edited.ok) return { message: edited.error, isError: true };
            const reloaded = host.reloadMemory();
            if (edited.warning) ui.warning(edited.warning);
            return reloaded;
        },
    };
}
