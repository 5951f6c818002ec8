/**
 * The one engine host: front-ends `submit` ops (agent/protocol.ts) and hear
 * the current conversation's events, and the host's own, through one
 * `subscribe` that holds across conversation switches. Its state is named
 * fields: the conversation (ConversationKeeper), the spend, the mode, the
 * run in progress and the approvals waiting for an answer.
 */
import type { ModelCatalogue } from "../providers/models";
import type { CheckpointStore } from "../storage/checkpoints";
import type { ConversationStore } from "../storage/conversations";
import type { CostStore } from "../storage/costs";
import type { Logger } from "../storage/logger";
import type { ProcessTable } from "../tools/processes/types";
import type { StandingAutoApproval } from "./approvals";
import type { ContextBlocks } from "./prompt-blocks";
import type { EngineEvent, Mode, RunResult } from "./events";
import { WaitingApprovals } from "./host/approvals-waiting";
import {
    type ConversationStart,
    ConversationKeeper,
    type SessionParts,
} from "./host/conversation-keeper";
import { type HostDeps, type HostParts, handleOp } from "./host/op-handlers";
import { HostProcesses } from "./host/processes";
import {
    HostPlugins,
    type PluginOperations,
    type PluginRuntimePort,
    isPluginOp,
} from "./host/plugins";
import { dataDir } from "../storage/paths";
import { processNoticeBlock } from "./process-notices";
import { Spend } from "./host/spend";
import { watchMcpFailures } from "./host/mcp-failures";
import type {
    EngineHostPort,
    EngineOp,
    HostEvent,
    HostListener,
    HostState,
    OpOf,
    OpReplies,
    OpReply,
    OpType,
} from "./protocol";
import type { AgentSession } from "./session";

export interface EngineHostOptions extends HostDeps {
    repoRoot: string;
    /** `--add-dir` directories: a rewind restores files there too. */
    addedRoots?: readonly string[];
    catalogue: ModelCatalogue;
    store: ConversationStore;
    logger: Logger;
    costs: Pick<CostStore, "add" | "breakdown">;
    checkpoints: CheckpointStore;
    context: ContextBlocks;
    start: ConversationStart;
    mode: Mode;
    warn(message: string): void;
    /** Builds a conversation's session around the host's parts and approver. */
    newSession(
        parts: SessionParts & {
            approver: WaitingApprovals["approver"];
            processes?: HostProcesses;
        }
    ): AgentSession;
    /** The toolset's background processes; absent: none can start (answers list none). */
    processes?: ProcessTable;
    /**
     * The user's `processes.startTurnOnNotice`: a notice while idle starts a
     * turn (agent and accept-edits modes only); otherwise it waits for the next prompt.
     */
    startTurnOnNotice?: boolean;
    /**
     * Warn (host `notice`) of each MCP server that fails, and tell a new
     * subscriber of those failed now (the chat; print mode and ACP say it their way).
     */
    mcpFailureNotices?: boolean;
    /** The `maxTurns` setting: model turns per prompt when the prompt names none (default 100). */
    maxTurns?: number;
    /** The front-end shows the context figure before any request (the chat). */
    contextFigure?: boolean;
    /** Standing auto-approval in force now. */
    standing(): StandingAutoApproval;
    env?: Record<string, string | undefined>;
    /** The session's plugin runtime: reloaded after `/plugin` installs, enables, disables or removes. */
    pluginRuntime?: PluginRuntimePort;
    /** Loads the plugin operations (agent/host/plugin-operations.ts) on the first plugin op. */
    pluginOperations?: () => Promise<PluginOperations>;
    /** North's data folder for plugins (default: `dataDir()`). */
    pluginDataDir?: string;
}

/** Turns background notices may start one after another before one waits for the user. */
export const MAX_NOTICE_TURNS_IN_A_ROW = 5;

export class EngineHost implements EngineHostPort {
    readonly conversation: ConversationKeeper;
    readonly spend: Spend;
    private readonly listeners = new Set<HostListener>();
    private readonly approvals = new WaitingApprovals();
    private readonly options: EngineHostOptions;
    private mode: Mode;
    private detach: (() => void) | null = null;
    /** Aborts the prompt running now (`cancel`). */
    private running: AbortController | null = null;
    /** Prompts run one after another. */
    private queue: Promise<unknown> = Promise.resolve();
    private learning: AbortController | null = null;
    private readonly processes: HostProcesses | undefined;
    private readonly plugins: HostPlugins;
    /** Prompts queued or running: a notice then rides the running one's next request. */
    private prompts = 0;
    /** A turn for waiting notices is about to start. */
    private noticeTurn = false;
    /** Turns started by notices since the user's last prompt (a chatty watcher must not loop forever). */
    private noticeTurnsInARow = 0;
    /** MCP servers failed now, by name: a subscriber hears these first (one may fail before anyone listens). */
    private readonly mcpFailures = new Map<string, HostEvent>();

    constructor(options: EngineHostOptions) {
        this.options = options;
        this.mode = options.mode;
        this.spend = new Spend(options.costs, options.catalogue);
        // Created before the first conversation: its sessions are lent the port.
        this.processes = options.processes
            ? new HostProcesses(
                  options.processes,
                  (event) => {
                      this.conversation.recordEvent(event);
                      this.emit(event);
                  },
                  () => this.noticeArrived()
              )
            : undefined;
        this.plugins = new HostPlugins({
            dataDir: options.pluginDataDir ?? dataDir(),
            projectDir: options.repoRoot,
            runtime: options.pluginRuntime,
            operations: options.pluginOperations,
            emit: (event) => this.emit(event),
        });
        this.conversation = new ConversationKeeper(
            {
                ...options,
                spend: this.spend,
                newSession: (parts) =>
                    this.attach(
                        options.newSession({
                            ...parts,
                            approver: this.approvals.approver,
                            processes: this.processes,
                        })
                    ),
            },
            options.start
        );
        if (options.mcp && options.mcpFailureNotices) {
            watchMcpFailures(options.mcp, {
                failed: (name, text) => {
                    const notice: HostEvent = { type: "notice", level: "warning", text };
                    this.mcpFailures.set(name, notice);
                    this.emit(notice);
                },
                recovered: (name) => this.mcpFailures.delete(name),
            });
        }
    }

    /** Forwards a new conversation's events; the host hears each one first. */
    private attach(session: AgentSession): AgentSession {
        this.detach?.();
        if (this.options.contextFigure) session.ensureContextFigure();
        this.detach = session.subscribe((event) => this.onEngineEvent(event));
        return session;
    }

    private onEngineEvent(event: EngineEvent): void {
        if (event.type === "approval_request") this.approvals.opened(event.request);
        // An edit approved for the session puts it in accept-edits: later prompts run in it.
        if (event.type === "mode_change") this.mode = event.mode;
        this.emit(event);
    }

    private emit(event: HostEvent): void {
        for (const listener of [...this.listeners]) listener(event);
    }

    subscribe(listener: HostListener): () => void {
        this.listeners.add(listener);
        for (const notice of [...this.mcpFailures.values()]) listener(notice);
        return () => void this.listeners.delete(listener);
    }

    state(): HostState {
        return {
            ...this.conversation.session.state(),
            conversationId: this.conversation.sessionId,
            mode: this.mode,
            models: this.options.catalogue.models,
            costs: this.spend.status(),
            standing: this.options.standing(),
            processes: this.processes?.counts() ?? { running: 0, notices: 0 },
        };
    }

    submit<T extends OpType>(op: OpOf<T>): Promise<OpReply<T>> {
        return this.handle(op as EngineOp) as Promise<OpReply<T>>;
    }

    private handle(op: EngineOp): Promise<OpReplies[OpType]> | OpReplies[OpType] {
        switch (op.type) {
            case "prompt":
                this.noticeTurnsInARow = 0;
                return this.prompt(op);
            case "user_shell":
                return this.userShell(op);
            case "cancel": {
                const cancelled = this.running !== null && !this.running.signal.aborted;
                this.running?.abort();
                return { cancelled };
            }
            case "approval":
                return this.approvals.answer(op.requestId, op.decision);
            case "set_mode":
                if (op.mode !== this.mode) {
                    this.mode = op.mode;
                    this.emit({ type: "mode_set", mode: op.mode });
                }
                return { mode: this.mode };
            case "processes":
                return this.processes?.list() ?? [];
            case "process_output":
                return (
                    this.processes?.output(op.id, op.request) ?? {
                        ok: false,
                        error: `no background process ${op.id}`,
                    }
                );
            case "stop_process":
                return (
                    this.processes?.stop(op.id) ?? {
                        message: `no background process ${op.id}`,
                        isError: true,
                    }
                );
            case "background_command":
                return this.processes?.background() ?? { moved: [] };
            case "secret_answer":
                return (
                    this.processes?.answerSecret(op.requestId, op.secret) ?? {
                        ok: false,
                        error: `no password request ${op.requestId} is waiting`,
                    }
                );
            default:
                if (isPluginOp(op)) return this.plugins.handle(op);
                return handleOp(op, this.parts());
        }
    }

    private parts(): HostParts {
        return {
            deps: this.options,
            conversation: this.conversation,
            spend: this.spend,
            mode: this.mode,
            emit: (event) => this.emit(event),
            learning: {
                current: () => this.learning,
                set: (controller) => (this.learning = controller),
            },
            cancellable: (work) => this.cancellable(work),
        };
    }

    /** Runs `work` as the job `cancel` aborts; `outer` aborts it too. */
    private async cancellable<R>(
        work: (signal: AbortSignal) => Promise<R>,
        outer?: AbortSignal
    ): Promise<R> {
        const controller = new AbortController();
        const onAbort = (): void => controller.abort();
        if (outer?.aborted) controller.abort();
        outer?.addEventListener("abort", onAbort, { once: true });
        this.running = controller;
        try {
            return await work(controller.signal);
        } finally {
            outer?.removeEventListener("abort", onAbort);
            if (this.running === controller) this.running = null;
        }
    }

    /**
     * A process's notice while nothing runs: with the user's consent
     * (`startTurnOnNotice`) and in a mode whose tools can act on it, a turn
     * starts with it; its commands are reviewed as any. Otherwise it waits
     * for the next request (the status line counts it).
     */
    private noticeArrived(): void {
        if (!this.options.startTurnOnNotice || this.noticeTurn) return;
        // Notices of one moment (an exit and a watched line) go in one turn.
        this.noticeTurn = true;
        queueMicrotask(() => {
            this.noticeTurn = false;
            const idle = this.prompts === 0 && this.running === null;
            if (!idle || (this.mode !== "agent" && this.mode !== "accept-edits")) return;
            if (this.noticeTurnsInARow >= MAX_NOTICE_TURNS_IN_A_ROW) {
                if (this.noticeTurnsInARow++ === MAX_NOTICE_TURNS_IN_A_ROW) {
                    this.emit({
                        type: "notice",
                        level: "warning",
                        text: `${MAX_NOTICE_TURNS_IN_A_ROW} turns in a row were started by background processes; further notices wait for your next prompt.`,
                    });
                }
                return;
            }
            const text = processNoticeBlock(this.processes?.table.takeNotices() ?? []);
            if (text === null) return;
            this.noticeTurnsInARow++;
            this.prompt({ type: "prompt", text }).catch((error: unknown) =>
                this.options.warn(`a background notice's turn failed: ${(error as Error).message}`)
            );
        });
    }

    /** Runs one prompt in the current conversation, after any still running. */
    private prompt(op: OpOf<"prompt">): Promise<RunResult> {
        this.prompts++;
        const run = this.queue.then(() =>
            this.cancellable(
                (signal) =>
                    this.conversation.session.run(op.text, {
                        mode: op.mode ?? this.mode,
                        signal,
                        maxTurns: op.maxTurns ?? this.options.maxTurns,
                        planOnly: op.planOnly,
                        attachedContext: op.attachedContext,
                        attachedImages: op.attachedImages,
                    }),
                op.signal
            )
        );
        this.queue = run.catch(() => undefined);
        void run.then(
            (result) => this.promptEnded(result.subtype !== "cancelled"),
            () => this.promptEnded(false)
        );
        return run;
    }

    /** Runs a command the user typed, after any prompt still running; `cancel` stops it. */
    private userShell(op: OpOf<"user_shell">): Promise<OpReplies["user_shell"]> {
        const run = this.queue.then(() =>
            this.cancellable(
                (signal) => this.conversation.session.runUserShell(op.command, signal),
                op.signal
            )
        );
        this.queue = run.catch(() => undefined);
        return run;
    }

    /** A notice that came after the run's last request starts its turn now (not after a cancel). */
    private promptEnded(continueWithNotices: boolean): void {
        this.prompts--;
        if (continueWithNotices && (this.processes?.table.pendingNotices() ?? 0) > 0) {
            this.noticeArrived();
        }
    }

    /** Waits for the prompt running now, if any. */
    idle(): Promise<void> {
        return this.queue.then(() => undefined);
    }

    /** Ends the conversation's log; waiting approvals are denied. */
    close(): void {
        this.learning?.abort();
        this.approvals.close("North is closing");
        this.processes?.close();
        void this.plugins.close();
        this.detach?.();
        this.conversation.endLog();
    }
}
