/**
 * One ACP session: an ordinary North conversation. The engine starts with
 * the first prompt (so a new conversation is saved from it, and the trust
 * question is asked on a session the editor knows); until then the mode and
 * model the editor picks are kept and applied at the start.
 */
import {
    type ContentBlock,
    type PromptResponse,
    RequestError,
    type SessionConfigOption,
    type SessionModeState,
    type SessionUpdate,
} from "@agentclientprotocol/sdk";
import type { Mode } from "../../agent/events";
import { restoreConversation } from "../../agent/conversation-log";
import { stopRunningProcesses } from "../../headless/print-processes";
import type { ModelInfo } from "../../providers/catalogue";
import type { ProviderEndpoint } from "../../providers/types";
import { resolveReadyModel } from "../model-selection";
import { discoverSkillsAndCommands } from "../project-extensions";
import type { PreparedSession } from "../session-setup";
import { replayedProcessUpdates } from "./process-updates";
import { runPromptTurn } from "./prompt-turn";
import { replayUpdates } from "./replay";
import { replayToolDisplays } from "./session-replay-displays";
import { type AcpEngine, type AcpSessionDeps, startAcpEngine } from "./session-engine";
import { configOptions, modeState } from "./session-config";
import { availableCommands } from "./slash-commands";
import { UpdateQueue } from "./update-queue";

const TITLE_CHARS = 80;

/** A prompt as a session's title in the editor's list: one line, clipped. */
export function sessionTitle(prompt: string): string {
    const line = prompt.replace(/\s+/g, " ").trim();
    return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}

export class AcpSession {
    /** The ACP session id: the conversation's id (the one asked for, after a fork). */
    readonly id: string;
    private readonly prepared: PreparedSession;
    private readonly deps: AcpSessionDeps;
    /** The id a new conversation is saved under; unset when resuming one. */
    private readonly newConversationId: string | undefined;
    /** The editor's MCP servers, in the `mcpServers` settings shape. */
    private readonly clientMcpServers: Record<string, unknown>;

    private engine: AcpEngine | null = null;
    private starting: Promise<AcpEngine> | null = null;
    /** The running turn's abort, null between turns. */
    private turn: AbortController | null = null;
    private mode: Mode = "agent";
    private model: ModelInfo;
    private endpoint: ProviderEndpoint;
    private title: string | undefined;
    private readonly updates: UpdateQueue;
    private closed = false;

    constructor(start: {
        id: string;
        prepared: PreparedSession;
        deps: AcpSessionDeps;
        newConversationId?: string;
        clientMcpServers: Record<string, unknown>;
    }) {
        this.id = start.id;
        this.prepared = start.prepared;
        this.deps = start.deps;
        this.newConversationId = start.newConversationId;
        this.clientMcpServers = start.clientMcpServers;
        this.model = start.prepared.model;
        this.endpoint = start.prepared.endpoint;
        this.title = start.prepared.resumed?.conversation.firstPrompt ?? undefined;
        const { client } = start.deps;
        this.updates = new UpdateQueue((update) =>
            client.notify("session/update", { sessionId: this.id, update })
        );
    }

    modes(): SessionModeState {
        return modeState(this.mode);
    }

    configOptions(): SessionConfigOption[] {
        return configOptions(this.model, this.prepared.catalogue, process.env);
    }

    /** Queues one session/update after those already queued; resolves once all are written. */
    send(update: SessionUpdate): Promise<void> {
        return this.updates.send(update);
    }

    private say(text: string): Promise<void> {
        return this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
    }

    /**
     * session/load: the saved conversation as updates, oldest first, without
     * the engine: it starts (and asks trust) at the next prompt, as after
     * session/new, so no question reaches the editor before the load's answer.
     */
    async replay(): Promise<void> {
        const resumed = this.prepared.resumed;
        if (!resumed) return;
        const { messages } = restoreConversation(resumed.conversation);
        const updates = replayUpdates(
            messages,
            { repoRoot: this.prepared.repoRoot, toolDisplays: replayToolDisplays() },
            resumed.conversation.view
        );
        for (const update of updates) void this.send(update);
        for (const update of replayedProcessUpdates(resumed.conversation.view)) {
            void this.send(update);
        }
        await this.updates.flushed();
    }

    /**
     * When the conversation was open in another process (the chat), North
     * continues in a fork of it: the editor is told which.
     */
    async tellFork(): Promise<void> {
        const resumed = this.prepared.resumed;
        if (!resumed || resumed.log.id === this.id) return;
        await this.say(
            `Conversation ${this.id} is open in another North process, so this session continues in a copy of it: conversation ${resumed.log.id}.\n\n`
        );
    }

    /** The slash commands a prompt can run here (the project's and user's Markdown commands and skills too). */
    async advertiseCommands(): Promise<void> {
        const extensions = this.engine?.engine.extensions;
        const sources = extensions
            ? { skills: extensions.skills, customCommands: extensions.customCommands }
            : await discoverSkillsAndCommands(this.prepared.repoRoot).then(
                  ({ skills, commands }) => ({
                      skills: skills.skills,
                      customCommands: commands.commands,
                  })
              );
        await this.send({
            sessionUpdate: "available_commands_update",
            availableCommands: availableCommands(sources),
        });
    }

    async setMode(mode: Mode): Promise<void> {
        this.mode = mode;
        // A running host says so itself (its mode_set event, translated).
        if (this.engine) await this.engine.engine.host.submit({ type: "set_mode", mode });
        else await this.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
        await this.updates.flushed();
    }

    /** Switches the model; an error in words when it cannot be used. */
    async setModel(id: string): Promise<string | null> {
        const ready = resolveReadyModel(this.prepared.catalogue, id, process.env);
        if (!ready.ok) return ready.error;
        const before = { model: this.model, endpoint: this.endpoint };
        // Set first, so the host's state_changed finds the editor already told (by this answer).
        this.model = ready.model;
        this.endpoint = ready.endpoint;
        if (this.engine) {
            const outcome = await this.engine.engine.host.submit({ type: "set_model", name: id });
            if (outcome.isError) {
                ({ model: this.model, endpoint: this.endpoint } = before);
                return outcome.message;
            }
        }
        return null;
    }

    async prompt(blocks: readonly ContentBlock[]): Promise<PromptResponse> {
        if (this.closed) throw RequestError.invalidRequest(undefined, "the session is closed");
        if (this.turn) {
            throw RequestError.invalidRequest(
                undefined,
                "a prompt is already running in this session; wait for it or cancel it"
            );
        }
        const turn = new AbortController();
        this.turn = turn;
        try {
            const engine = await this.started(turn.signal);
            if (turn.signal.aborted) return { stopReason: "cancelled" };
            const done = await runPromptTurn(engine, blocks, turn.signal, (text) => this.say(text));
            await this.named(done.promptText);
            return done.response;
        } catch (error) {
            // Past the run's own endings (the engine failing to start): its words, not the SDK's bare "Internal error".
            if (error instanceof RequestError) throw error;
            throw new RequestError(-32603, error instanceof Error ? error.message : String(error));
        } finally {
            this.turn = null;
            await this.updates.flushed();
        }
    }

    /** session/cancel: the running turn (and the permission requests it waits on) stop. */
    cancel(): void {
        if (!this.turn) return;
        this.turn.abort();
        void this.engine?.engine.host.submit({ type: "cancel" });
    }

    /** Cancels a running turn and closes the conversation; safe to call twice. */
    async close(): Promise<void> {
        if (this.closed) return;
        this.closed = true;
        this.cancel();
        const started = this.engine ?? (await this.starting?.catch(() => null));
        if (started) {
            // The session's background processes end with it (their cards say so while the editor listens).
            await stopRunningProcesses(started.engine.host);
            await started.engine.closeAsync();
            started.engine.logger.flush();
        } else {
            // Loaded but never prompted: release the conversation for other processes.
            this.prepared.resumed?.log.close();
        }
    }

    private started(signal: AbortSignal): Promise<AcpEngine> {
        this.starting ??= startAcpEngine(
            {
                sessionId: this.id,
                prepared: this.prepared,
                model: this.model,
                endpoint: this.endpoint,
                mode: this.mode,
                conversationId: this.newConversationId,
                clientMcpServers: this.clientMcpServers,
                signal,
                send: (update) => void this.send(update),
                flushed: () => this.updates.flushed(),
            },
            this.deps
        ).then((engine) => {
            this.engine = engine;
            const { host } = engine.engine;
            // A `/model` prompt switches the model too: the editor's option follows.
            host.subscribe((event) => {
                // A `/mode` prompt or an edit review's "accept edits" moves the mode the editor shows.
                if (event.type === "mode_set" || event.type === "mode_change")
                    this.mode = event.mode;
                if (event.type !== "state_changed" || host.state().model.id === this.model.id)
                    return;
                this.model = host.state().model;
                void this.send({
                    sessionUpdate: "config_option_update",
                    configOptions: this.configOptions(),
                });
            });
            return engine;
        });
        // A failed start is tried again by the next prompt.
        this.starting.catch(() => {
            this.starting = null;
        });
        return this.starting;
    }

    /** The first prompt names the session in the editor's list, as it does in `north list`. */
    private async named(promptText: string): Promise<void> {
        if (this.title !== undefined || promptText === "") return;
        this.title = sessionTitle(promptText);
        await this.send({
            sessionUpdate: "session_info_update",
            title: this.title,
            updatedAt: new Date().toISOString(),
        });
    }
}
