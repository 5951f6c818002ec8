/**
 * The host's current conversation: its session, log, saved view and history.
 * `/new`, resume, fork and rewind replace the session (tools, providers and
 * the shell stay); the log of the one left is ended.
 */
import { existsSync } from "node:fs";
import { loadMemory, memoryDirs } from "../../project/memory";
import type { ModelInfo } from "../../providers/catalogue";
import { type ModelCatalogue, resolveEndpoint, resolveModel } from "../../providers/models";
import type { CheckpointStore } from "../../storage/checkpoints";
import type {
    ConversationLog,
    ConversationStore,
    LoadedConversation,
    OpenResult,
} from "../../storage/conversations";
import type { Logger } from "../../storage/logger";
import type { ProcessTable } from "../../tools/processes/types";
import { dataDir } from "../../storage/paths";
import type { EngineEvent } from "../events";
import type { ContextBlocks } from "../prompt-blocks";
import {
    type ViewRecorder,
    createConversationSink,
    createUsageRecorder,
    createViewRecorder,
    entryIdsFrom,
    historyOf,
    isPromptEntry,
    promptText,
    restoreConversation,
} from "../conversation-log";
import type { ConversationHistory } from "../protocol";
import type { AgentSession, SessionOptions } from "../session";
import { conversationCheckpoints } from "./checkpoints";
import type { OutputStyleSelection } from "./output-styles";
import { resumedProcesses } from "./resumed-processes";
import type { Spend } from "./spend";

export type SwitchResult = { ok: true; warnings: string[] } | { ok: false; error: string };

/** What a conversation's session gets from the host; the builder adds tools, hooks and the rest. */
export type SessionParts = Pick<
    SessionOptions,
    | "sessionId"
    | "model"
    | "context"
    | "usageSink"
    | "messages"
    | "rollingSummary"
    | "restoredState"
    | "checkpoints"
    | "sink"
    | "resumeNote"
    | "outputStyle"
>;

export interface ConversationKeeperDeps {
    repoRoot: string;
    /** `--add-dir` directories: a rewind restores files there too. */
    addedRoots?: readonly string[];
    store: ConversationStore;
    catalogue: ModelCatalogue;
    logger: Logger;
    spend: Spend;
    checkpoints: CheckpointStore;
    /** Rules, profile and memory as loaded at start. */
    context: ContextBlocks;
    warn(message: string): void;
    newSession(parts: SessionParts): AgentSession;
    env?: Record<string, string | undefined>;
    /** The background processes this North runs (a resumed conversation's may be among them). */
    processes?: ProcessTable;
    /** Each conversation takes the selected output style at its first request. */
    outputStyles?: Pick<OutputStyleSelection, "forConversation">;
}

export interface ConversationPrompt {
    entryId: string;
    text: string;
    /** This prompt's id and every later entry's, rewound ones included (for checkpoints). */
    fromHere: string[];
}

/** The conversation a host starts in: a new one's log, or a resumed one's with its content. */
export interface ConversationStart {
    model: ModelInfo;
    sessionId: string;
    /** Unset when the conversation cannot be saved. */
    log: ConversationLog | undefined;
    resumed?: LoadedConversation;
}

/** Starts a conversation's log; unset (and said in `warnings`) when it cannot be saved. */
export function openConversationLog(
    store: ConversationStore,
    repoRoot: string,
    modelId: string,
    warnings: string[],
    id?: string
): ConversationLog | undefined {
    const writable = store.checkWritable();
    if (!writable.ok) {
        warnings.push(`this conversation will not be saved: ${writable.error}`);
        return undefined;
    }
    try {
        // The file comes with the first entry: a chat started and quit leaves no conversation.
        return store.startOnFirstEntry({ id, repoRoot, model: modelId });
    } catch (error) {
        warnings.push(`this conversation will not be saved: ${(error as Error).message}`);
        return undefined;
    }
}

const EMPTY_HISTORY: ConversationHistory = { view: [], messages: [], messagesBeforeView: 0 };

export class ConversationKeeper {
    session!: AgentSession;
    sessionId: string;
    /** Unset when the conversation cannot be saved (the warning was given). */
    log: ConversationLog | undefined;
    history: ConversationHistory = EMPTY_HISTORY;
    readonly repoRoot: string;
    readonly addedRoots: readonly string[];
    private view: ViewRecorder | undefined;
    private context: ContextBlocks;
    private sessionsBuilt = 0;

    constructor(
        private readonly deps: ConversationKeeperDeps,
        start: ConversationStart
    ) {
        this.repoRoot = deps.repoRoot;
        this.addedRoots = deps.addedRoots ?? [];
        this.context = deps.context;
        this.log = start.log;
        this.sessionId = start.sessionId;
        this.build(start.model, start.resumed);
        if (start.log && start.resumed && start.resumed.model !== start.model.id) {
            start.log.append({ type: "model_changed", model: start.model.id });
        }
    }

    private openLog(modelId: string, warnings: string[]): ConversationLog | undefined {
        return openConversationLog(this.deps.store, this.repoRoot, modelId, warnings);
    }

    /** Builds the session of `sessionId` over `log`, from `stored` when it continues one. */
    private build(model: ModelInfo, stored?: LoadedConversation): void {
        const { deps, log, sessionId } = this;
        const restored = stored ? restoreConversation(stored) : undefined;
        const usageLog = log ? createUsageRecorder(log, deps.warn) : undefined;
        this.view?.flush();
        this.view = log ? createViewRecorder(log, deps.warn) : undefined;
        deps.spend.switchTo(stored);
        this.history = stored ? historyOf(stored) : EMPTY_HISTORY;
        const processes = stored ? resumedProcesses(stored.view, deps.processes) : undefined;
        if (processes && processes.ended.length > 0) {
            // Recorded as ended: the replay shows them so, and a later resume need not guess again.
            const ended = processes.ended.map((process) => ({
                type: "engine",
                event: { type: "process", change: "exited", process } satisfies EngineEvent,
            }));
            for (const record of ended) this.view?.record(record);
            this.history = { ...this.history, view: [...this.history.view, ...ended] };
        }
        const checkpoints = log ? conversationCheckpoints(deps.checkpoints, sessionId) : undefined;
        // A later conversation of this chat (/new, /resume, /fork, /rewind) sees memory saved since start.
        if (this.sessionsBuilt++ > 0) {
            const memory = loadMemory(memoryDirs(dataDir(), this.repoRoot)).text ?? undefined;
            this.context = { ...this.context, memory };
        }
        this.session = deps.newSession({
            sessionId,
            model,
            context: this.context,
            usageSink: (update) => {
                deps.spend.record(update);
                usageLog?.(update);
            },
            messages: restored?.messages,
            rollingSummary: restored?.rollingSummary,
            resumeNote: processes?.note ?? undefined,
            outputStyle: deps.outputStyles
                ? (final) => deps.outputStyles?.forConversation(final)
                : undefined,
            restoredState: restored?.state,
            checkpoints: checkpoints?.checkpointer,
            sink: log
                ? createConversationSink(log, deps.warn, {
                      knownIds: restored?.ids,
                      promptIds: restored?.promptIds,
                      onPrompt: checkpoints?.onPrompt,
                  })
                : undefined,
        });
        const view = this.view;
        if (view) this.session.subscribe(view.onEvent);
    }

    get store(): ConversationStore {
        return this.deps.store;
    }

    get logger(): Logger {
        return this.deps.logger;
    }

    get checkpoints(): CheckpointStore {
        return this.deps.checkpoints;
    }

    /** Sends `profile` (a freshly learned one) from now on, in this conversation and the next. */
    setProfile(profile: string): void {
        this.context = { ...this.context, profile };
        this.session.setContext(this.context);
    }

    /** Keeps an event the host itself raised (a background process's start or exit) with the conversation. */
    recordEvent(event: EngineEvent): void {
        this.view?.onEvent(event);
    }

    /** Records one of a front-end's own transcript actions (prompt, review, notice, command). */
    recordView(action: Record<string, unknown>): void {
        this.view?.record(action);
    }

    endLog(): void {
        this.view?.flush();
        this.log?.append({ type: "conversation_ended" });
        this.log?.close();
    }

    /** A stored conversation's model when it can still be used, else the current one. */
    private modelFor(stored: string, warnings: string[]): ModelInfo {
        const current = this.session.state().model;
        if (stored === current.id) return current;
        const found = resolveModel(this.deps.catalogue, stored);
        const env = this.deps.env ?? process.env;
        if (found.ok && resolveEndpoint(found.provider, env).ok) return found.model;
        warnings.push(`its model ${stored} is not available here; continuing with ${current.id}`);
        return current;
    }

    /** Ends the current log and continues in `opened` (a resumed or forked conversation). */
    private switchTo(opened: Extract<OpenResult, { ok: true }>): SwitchResult {
        const warnings = [...opened.warnings];
        const model = this.modelFor(opened.conversation.model, warnings);
        this.endLog();
        this.log = opened.log;
        this.sessionId = opened.log.id;
        this.build(model, opened.conversation);
        if (model.id !== opened.conversation.model) {
            opened.log.append({ type: "model_changed", model: model.id });
        }
        return { ok: true, warnings };
    }

    /** Ends the current conversation's log and starts a new, empty conversation. */
    newConversation(): { warnings: string[] } {
        const warnings: string[] = [];
        const current = this.session.state().model;
        this.endLog();
        this.log = this.openLog(current.id, warnings);
        this.sessionId = this.log?.id ?? this.deps.store.newId();
        this.build(current);
        this.deps.logger.info("conversation_new", { sessionId: this.sessionId });
        return { warnings };
    }

    /** Continues a stored conversation of this project (any unique id prefix). */
    resumeConversation(requested: string): SwitchResult {
        const { store, logger } = this.deps;
        const resolved = store.resolveId(requested);
        if (!resolved.ok) return resolved;
        const id = resolved.id;
        if (id === this.sessionId) return { ok: false, error: `already in conversation ${id}` };
        const loaded = store.load(id);
        if (!loaded.ok) return loaded;
        if (loaded.conversation.repoRoot !== this.repoRoot) {
            return {
                ok: false,
                error: `conversation ${id} belongs to ${loaded.conversation.repoRoot}; continue it there with north --resume ${id}`,
            };
        }
        const opened = store.open(id);
        if (!opened.ok) return opened;
        const switched = this.switchTo(opened);
        logger.info("conversation_resumed", { sessionId: this.sessionId, requested: id });
        return switched;
    }

    /** Continues in a copy of this conversation, up to just before prompt `beforeEntryId`. */
    forkConversation(beforeEntryId?: string): SwitchResult {
        if (!this.log) {
            return { ok: false, error: "this conversation is not saved, so it cannot be forked" };
        }
        this.view?.flush();
        // Created with its first message: before it there is nothing to copy.
        if (!existsSync(this.log.path)) {
            return { ok: false, error: "nothing to fork yet: send a message first" };
        }
        const parent = this.sessionId;
        const opened = this.deps.store.fork(parent, { beforeEntryId });
        if (!opened.ok) return opened;
        const switched = this.switchTo(opened);
        this.deps.logger.info("conversation_forked", { sessionId: this.sessionId, parent });
        return switched;
    }

    /** Takes the conversation back to just before prompt `entryId` (the log keeps everything). */
    rewindConversation(entryId: string): SwitchResult {
        const log = this.log;
        if (!log) {
            return { ok: false, error: "this conversation is not saved, so it cannot be rewound" };
        }
        if (this.session.state().running) {
            return {
                ok: false,
                error: "wait for the answer to finish (or cancel it) before rewinding",
            };
        }
        this.view?.flush();
        const appended = log.append({ type: "rewound", entryId });
        if (!appended.ok) return { ok: false, error: appended.error };
        const loaded = this.deps.store.load(this.sessionId);
        if (!loaded.ok) return loaded;
        this.build(this.session.state().model, loaded.conversation);
        this.deps.logger.info("conversation_rewound", { sessionId: this.sessionId });
        return { ok: true, warnings: loaded.warnings };
    }

    /** The user prompts of this conversation, oldest first, with their entry ids. */
    prompts(): ConversationPrompt[] {
        if (!this.log) return [];
        this.view?.flush();
        const loaded = this.deps.store.load(this.sessionId);
        if (!loaded.ok) return [];
        const conversation = loaded.conversation;
        return conversation.entries.filter(isPromptEntry).map((entry) => ({
            entryId: entry.id,
            text: promptText(entry),
            fromHere: entryIdsFrom(conversation, entry.id),
        }));
    }
}
