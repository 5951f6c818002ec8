/**
 * One ACP session: an ordinary North conversation. The engine starts with
 * the first prompt (so the conversation is saved from it, and the trust
 * question can be asked on a known session); until then the mode and model
 * the editor picks are kept and applied at the start.
 */
import {
    type AgentContext,
    type ClientCapabilities,
    type ContentBlock,
    type PromptResponse,
    RequestError,
    type SessionConfigOption,
    type SessionModeState,
    type SessionUpdate,
} from "@agentclientprotocol/sdk";
import type { Mode } from "../../agent/events";
import type { HostEvent } from "../../agent/protocol";
import type { ModelInfo } from "../../providers/catalogue";
import { dataDir } from "../../storage/paths";
import { createProfileStore } from "../../storage/profile";
import type { LogLevel } from "../../storage/logger";
import { resolveReadyModel } from "../model-selection";
import { summarizeInventory } from "../project-trust";
import { promptSizeProblem } from "../prompt-size";
import type { PreparedSession } from "../session-setup";
import { type EngineSession, startSession } from "../session-start";
import { createClientWorkspace } from "./client-workspace";
import { promptContentOf } from "./prompt-content";
import { configOptions, modeState } from "./session-config";

/** What every session of one `north acp` shares. */
export interface AcpSessionDeps {
    client: AgentContext;
    version: string;
    logLevel: LogLevel;
    /** `--trust`: the project's configuration is used without asking. */
    trust: boolean;
    clientCapabilities: ClientCapabilities | undefined;
    warn(message: string): void;
}

const TITLE_CHARS = 80;

export class AcpSession {
    private engine: EngineSession | null = null;
    private starting: Promise<EngineSession> | null = null;
    /** The running turn's abort, null between turns. */
    private turn: AbortController | null = null;
    private mode: Mode = "agent";
    private model: ModelInfo;
    private title: string | undefined;
    /** session/update notifications go out one after another, in the order they were made. */
    private sending: Promise<void> = Promise.resolve();
    private closed = false;

    /** The ACP session id: the conversation's id (the one asked for, after a fork). */
    readonly id: string;
    private readonly prepared: PreparedSession;
    private readonly deps: AcpSessionDeps;
    /** The id a new conversation is saved under; unset when resuming one. */
    private readonly newConversationId: string | undefined;
    /** The editor's MCP servers, in the `mcpServers` settings shape. */
    private readonly clientMcpServers: Record<string, unknown>;

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
        this.title = start.prepared.resumed?.conversation.firstPrompt ?? undefined;
    }

    /**
     * When the conversation was open in another process (the chat), North
     * continues in a fork of it: the editor is told which.
     */
    async tellFork(): Promise<void> {
        const resumed = this.prepared.resumed;
        if (!resumed || resumed.log.id === this.id) return;
        await this.send({
            sessionUpdate: "agent_message_chunk",
            content: {
                type: "text",
                text: `Conversation ${this.id} is open in another North process, so this session continues in a copy of it: conversation ${resumed.log.id}.\n\n`,
            },
        });
    }

    get repoRoot(): string {
        return this.prepared.repoRoot;
    }

    modes(): SessionModeState {
        return modeState(this.mode);
    }

    configOptions(): SessionConfigOption[] {
        return configOptions(this.model, this.prepared.catalogue, process.env);
    }

    /** Sends one session/update after those already queued. */
    send(update: SessionUpdate): Promise<void> {
        const { client } = this.deps;
        const sent = this.sending.then(() =>
            client.notify("session/update", { sessionId: this.id, update })
        );
        this.sending = sent.catch(() => undefined);
        return this.sending;
    }

    /** Every update queued so far has been written. */
    flushed(): Promise<void> {
        return this.sending;
    }

    async setMode(mode: Mode): Promise<void> {
        this.mode = mode;
        if (this.engine) await this.engine.host.submit({ type: "set_mode", mode });
        await this.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
    }

    /** Switches the model; an error in words when it cannot be used. */
    async setModel(id: string): Promise<string | null> {
        const ready = resolveReadyModel(this.prepared.catalogue, id, process.env);
        if (!ready.ok) return ready.error;
        if (this.engine) {
            const outcome = await this.engine.host.submit({ type: "set_model", name: id });
            if (outcome.isError) return outcome.message;
        }
        this.model = ready.model;
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
            const engine = await this.started();
            if (turn.signal.aborted) return { stopReason: "cancelled" };
            return await this.runTurn(engine, blocks, turn.signal);
        } finally {
            this.turn = null;
            await this.flushed();
        }
    }

    /** session/cancel: the running turn (and the permission requests it waits on) stop. */
    cancel(): void {
        if (!this.turn) return;
        this.turn.abort();
        void this.engine?.host.submit({ type: "cancel" });
    }

    /** Cancels a running turn and closes the conversation; safe to call twice. */
    async close(): Promise<void> {
        if (this.closed) return;
        this.closed = true;
        this.cancel();
        const engine = this.engine ?? (await this.starting?.catch(() => null));
        if (engine) {
            await engine.closeAsync();
            engine.logger.flush();
        } else {
            // Loaded but never prompted: release the conversation for other processes.
            this.prepared.resumed?.log.close();
        }
    }

    private started(): Promise<EngineSession> {
        this.starting ??= this.start().then((engine) => {
            this.engine = engine;
            return engine;
        });
        return this.starting;
    }

    private async start(): Promise<EngineSession> {
        const { prepared, deps } = this;
        const engine = await startSession(
            { ...prepared, model: this.model },
            {
                version: deps.version,
                frontEnd: "acp",
                logLevel: deps.logLevel,
                mode: this.mode,
                conversationId: this.newConversationId,
                clientMcpServers: this.clientMcpServers,
                workspace: createClientWorkspace(deps.client, this.id, deps.clientCapabilities),
                resolveModel: (name) => resolveReadyModel(prepared.catalogue, name, process.env),
                profiles: createProfileStore(dataDir(), prepared.repoRoot),
                // Standing answers as in the chat: "always" in the editor is kept where it says.
                approvalSettings: (project) => project,
                decideTrust: async (inventory) => {
                    if (deps.trust) return "trust-once";
                    deps.warn(
                        `this project is not trusted, so its own configuration was skipped: ${summarizeInventory(inventory)}. Pass --trust to north acp to use it.`
                    );
                    return "untrusted";
                },
                warn: deps.warn,
            }
        );
        engine.host.subscribe((event) => this.onHostEvent(event));
        return engine;
    }

    private onHostEvent(event: HostEvent): void {
        switch (event.type) {
            case "text_delta":
                void this.send({
                    sessionUpdate: "agent_message_chunk",
                    content: { type: "text", text: event.text },
                });
                return;
            case "thinking_delta":
                void this.send({
                    sessionUpdate: "agent_thought_chunk",
                    content: { type: "text", text: event.text },
                });
                return;
            default:
                return;
        }
    }

    private async runTurn(
        engine: EngineSession,
        blocks: readonly ContentBlock[],
        signal: AbortSignal
    ): Promise<PromptResponse> {
        const { host } = engine;
        const built = await promptContentOf(blocks, engine.repoRoot, async (path) => {
            const { rule } = await host.submit({ type: "read_denial", path });
            return rule;
        });
        if (!built.ok) throw RequestError.invalidParams(undefined, built.error);
        const { content } = built;
        for (const note of content.notes) {
            await this.send({
                sessionUpdate: "agent_message_chunk",
                content: { type: "text", text: `(${note})\n\n` },
            });
        }
        if (!content.text && !content.attachedContext && content.attachedImages.length === 0) {
            throw RequestError.invalidParams(undefined, "the prompt is empty");
        }
        const sizeProblem = promptSizeProblem(content.text, host.state().model);
        if (sizeProblem !== null) throw RequestError.invalidParams(undefined, sizeProblem);
        const action = { type: "user", text: content.text, attachments: [] };
        await host.submit({ type: "record_view", action });
        const result = await host.submit({
            type: "prompt",
            text: content.text,
            attachedContext: content.attachedContext,
            attachedImages: content.attachedImages,
            signal,
        });
        await this.afterTurn(engine, content.text);
        if (signal.aborted || result.subtype === "cancelled") return { stopReason: "cancelled" };
        if (result.subtype === "error_max_turns") return { stopReason: "max_turn_requests" };
        if (result.isError)
            throw RequestError.internalError(undefined, result.error ?? "the turn failed");
        return { stopReason: "end_turn" };
    }

    /** The context figure, cost and title the editor shows beside the session. */
    private async afterTurn(engine: EngineSession, promptText: string): Promise<void> {
        const state = engine.host.state();
        const cost = state.costs.sessionUsd;
        await this.send({
            sessionUpdate: "usage_update",
            used: state.contextUsedTokens,
            size: state.contextLimitTokens,
            ...(cost === null ? {} : { cost: { amount: cost, currency: "USD" } }),
        });
        const firstTitle = this.title === undefined;
        this.title ??= promptText.replace(/\s+/g, " ").trim().slice(0, TITLE_CHARS) || undefined;
        if (firstTitle && this.title !== undefined) {
            await this.send({
                sessionUpdate: "session_info_update",
                title: this.title,
                updatedAt: new Date().toISOString(),
            });
        }
    }
}
