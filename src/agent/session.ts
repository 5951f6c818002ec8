import type { ModelInfo } from "../providers/catalogue";
import type { Message, Provider, Usage } from "../providers/types";
import { type Logger, silentLogger } from "../storage/logger";
import { TODO_WRITE_TOOL, todoItemsOf } from "../tools/todo-write";
import type { ClientFiles } from "../tools/client-workspace";
import type { LanguageService } from "../tools/lsp/types";
import type { FileCheckpointer } from "../tools/types";
import { type ApprovalSettings, type Approver, createNoStandingApprovals } from "./approvals";
import { type SummariseOptions, summarise } from "./compaction";
import type { StructuredSummary } from "./summary-text";
import type { AppliedOutputStyle, ContextBlocks } from "./prompt-blocks";
import {
    Conversation,
    type RestoredState,
    type TranscriptSink,
    type UsageSink,
} from "./conversation";
import { OutputCache } from "./digest";
import { EditDiagnostics } from "./edit-diagnostics";
import type { EngineEvent, EngineListener, Mode, RunResult } from "./events";
import { type HookRunner, createHookRunner } from "./hook-runner";
import type { HookEvent, HookEventInputs, HookOutcome, HookSettings } from "./hooks/index";
import { toolAliasesOf } from "./hooks/index";
import { type LoopDeps, runLoop } from "./loop";
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS, streamFromProviders } from "./model-call";
import { NorthFileRouter } from "./north-file-turn";
import { processNoticeBlock } from "./process-notices";
import type { ProcessPort } from "./process-port";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, abortableSleep } from "./retry";
import { type RunContext, type RunOptions, createRunContext, requestShape } from "./run-state";
import { estimatePromptTokens } from "./tokens";
import type { SubagentHost } from "./subagent-tool";
import type { ToolRunner } from "./tool-executor";
import type { Outcome } from "./protocol";
import { runUserShell } from "./user-shell";
import type { WebSearchPolicy } from "./web-search-policy";

export type { ToolRunner } from "./tool-executor";
export type { RestoredState, TranscriptSink } from "./conversation";
export type { RunOptions } from "./run-state";
export { DEFAULT_KEEP_LAST } from "./compaction";

export interface SessionOptions {
    sessionId: string;
    repoRoot: string;
    /** `--add-dir` directories tools may also read and change (absolute, real); none by default. */
    addedRoots?: readonly string[];
    model: ModelInfo;
    /** The small fast model for side jobs (summaries); unset: the session's model. */
    sideModel?: ModelInfo;
    /** Builds (or reuses) the provider serving a model; called lazily before each request. */
    providerFor: (model: ModelInfo) => Promise<Provider>;
    tools: ToolRunner;
    approver: Approver;
    /** Standing permissions of the project; none by default (everything is asked). */
    approvalSettings?: ApprovalSettings;
    logger?: Logger;
    retryPolicy?: RetryPolicy;
    /** Injectable for tests, so retries need not wait in real time. */
    sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
    random?: () => number;
    /** A stream with no event for this long is cut and retried (default 5 minutes). */
    streamIdleTimeoutMs?: number;
    /** Prior messages (a resumed conversation). */
    messages?: Message[];
    rollingSummary?: StructuredSummary | null;
    /** A resumed conversation's context figure and spend, so it reads as it did. */
    restoredState?: RestoredState;
    /** Claude Code-style hooks (`.north/settings.json` and friends); none when absent. */
    hookSettings?: HookSettings;
    /** Kept from hook commands' environment (provider keys); default the built-in ones. */
    hiddenEnv?: readonly string[];
    /** Hook commands' base environment; default `process.env` (the Node API's `env`). */
    childEnv?: NodeJS.ProcessEnv;
    /** Replaces North's system prompt (project learning uses its own; `--system-prompt`). */
    systemPrompt?: string;
    /** Added after the system prompt (`--append-system-prompt`). */
    appendSystemPrompt?: string;
    /**
     * The output style, asked for at the first run (`final`) and then fixed
     * for the conversation (the cached prefix stays byte-identical); an
     * estimate before asks too (not final). `setOutputStyle` changes it at
     * once. Absent: North's default.
     */
    outputStyle?: (final: boolean) => AppliedOutputStyle | undefined;
    /** No model request is sent once the conversation has cost this much (`--max-budget-usd`). */
    maxBudgetUsd?: number;
    /** Rules and project profile, sent ahead of the transcript on every request. */
    context?: ContextBlocks;
    /** Told of every response's usage and cost (all-time cost tracking). */
    usageSink?: UsageSink;
    /** Receives every transcript change, synchronously, before it is announced (persistence). */
    sink?: TranscriptSink;
    /** Where digested outputs are kept for expand_output; one per session. */
    outputCache?: OutputCache;
    /** Keeps every file's prior content before an edit or NORTH_FILE block lands (rewind). */
    checkpoints?: FileCheckpointer;
    /** The editor's files (ACP): NORTH_FILE blocks read and write through them (the tools get them from the toolset). */
    clientFiles?: ClientFiles;
    /** The `task` tool's side (it must be among `tools`): lent this session's loop. */
    subagents?: { attach(host: SubagentHost): void };
    /** Language servers: diagnostics after edits, the `lsp` tool. Absent: none run. */
    languages?: LanguageService;
    /** Time from an applied edit to its diagnostics in the result (`lsp.diagnosticsBudgetMs`); default 5 s. */
    diagnosticsBudgetMs?: number;
    /** The toolset's background processes, through the engine host; absent: none. */
    processes?: ProcessPort;
    /** The provider's server-side web search (`webSearch` setting, `--web-search`); absent: never offered. */
    webSearch?: WebSearchPolicy;
    /** A resumed conversation's processes that ended with the North that ran them, for its first request. */
    resumeNote?: string;
}

export interface SessionState {
    model: ModelInfo;
    running: boolean;
    contextUsedTokens: number;
    contextLimitTokens: number;
    contextUsage: number;
    /** Null once any response came from a model without a price. */
    totalCostUsd: number | null;
    totalUsage: Usage;
}

/**
 * One conversation: its transcript and settings across runs. Each run is a
 * call of the agent loop over a fresh run context; front-ends subscribe to
 * its events and answer approvals through the approver.
 */
export class AgentSession {
    private readonly listeners = new Set<EngineListener>();
    private readonly options: SessionOptions;
    private readonly logger: Logger;
    private readonly conversation: Conversation;
    private readonly hooks: HookRunner | undefined;
    private readonly deps: LoopDeps;
    private running = false;
    /** The run in progress: a subagent's spend joins its figures. */
    private currentRun: RunContext | null = null;
    /** The mode of the last run: the idle context estimate assumes the next one is alike. */
    private lastMode: Mode = "agent";
    /** Created with the first run that may write files; kept for continuations across runs. */
    private northFileRouter: NorthFileRouter | null = null;
    /** Rules and profile; `setContext` replaces them between runs. */
    private context: ContextBlocks;
    /** Sent once, with the first request. */
    private resumeNote: string | null;
    /** The output style once fixed (first run, or `setOutputStyle`); null before. */
    private fixedOutputStyle: { style: AppliedOutputStyle | undefined } | null = null;

    constructor(options: SessionOptions) {
        this.options = options;
        this.logger = options.logger ?? silentLogger;
        this.context = options.context ?? {};
        this.resumeNote = options.resumeNote ?? null;
        const emit = (event: EngineEvent): void => this.emit(event);
        this.conversation = new Conversation({
            model: options.model,
            messages: options.messages,
            summary: options.rollingSummary,
            restored: options.restoredState,
            sink: options.sink,
            usageSink: options.usageSink,
            searchCostUsd: options.webSearch
                ? (model, usage) => options.webSearch?.costUsd(model, usage) ?? 0
                : undefined,
            emit,
        });
        this.hooks = options.hookSettings
            ? createHookRunner({
                  settings: options.hookSettings,
                  sessionId: options.sessionId,
                  repoRoot: options.repoRoot,
                  hiddenEnv: options.hiddenEnv,
                  env: options.childEnv,
                  emit,
                  logger: this.logger,
                  toolAliases: toolAliasesOf(options.tools),
              })
            : undefined;
        this.deps = {
            sessionId: options.sessionId,
            repoRoot: options.repoRoot,
            addedRoots: options.addedRoots,
            conversation: this.conversation,
            stream: streamFromProviders(options.providerFor),
            sideModel: options.sideModel,
            streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
            webSearch: options.webSearch,
            tools: options.tools,
            approver: options.approver,
            settings: options.approvalSettings ?? createNoStandingApprovals(),
            checkpoint: options.checkpoints,
            clientFiles: options.clientFiles,
            outputs: options.outputCache ?? new OutputCache(),
            hooks: this.hooks,
            logger: this.logger,
            emit,
            retryPolicy: options.retryPolicy ?? DEFAULT_RETRY_POLICY,
            sleep: options.sleep ?? abortableSleep,
            random: options.random,
            maxBudgetUsd: options.maxBudgetUsd,
            editDiagnostics: options.languages
                ? new EditDiagnostics(
                      options.languages,
                      options.repoRoot,
                      options.diagnosticsBudgetMs
                  )
                : undefined,
            processes: options.processes,
            processNotes: () => this.takeProcessNotes(),
        };
        options.subagents?.attach({
            deps: this.deps,
            currentRun: () => this.currentRun,
            context: () => this.context,
        });
    }

    get rollingSummary(): StructuredSummary | null {
        return this.conversation.summary;
    }

    get sessionId(): string {
        return this.options.sessionId;
    }

    get messages(): readonly Message[] {
        return this.conversation.messages;
    }

    subscribe(listener: EngineListener): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }

    setModel(model: ModelInfo): void {
        this.conversation.setModel(model);
    }

    /**
     * Replaces the rules and profile sent with the next runs (e.g. a profile
     * just learned). The system prompt changes only where they are, after
     * North's own instructions, so that prefix stays cached.
     */
    setContext(context: ContextBlocks): void {
        // Memory saved during the session (`setMemory`) is newer than the caller's copy.
        this.context = { ...context, memory: this.context.memory };
    }

    /** The conversation's output style; `fix` keeps it for every later run. */
    private outputStyle(fix: boolean): AppliedOutputStyle | undefined {
        if (this.fixedOutputStyle) return this.fixedOutputStyle.style;
        const style = this.options.outputStyle?.(fix);
        if (fix) this.fixedOutputStyle = { style };
        return style;
    }

    /** The output style in force now (or that the first request will use). */
    get outputStyleName(): string | undefined {
        return this.outputStyle(false)?.name;
    }

    /** Whether a request was sent under the current style (changing it now restarts the prompt cache). */
    get outputStyleFixed(): boolean {
        return this.fixedOutputStyle !== null;
    }

    /**
     * Changes the output style from the next request on: the system prompt
     * changes, so the provider's cached prefix starts again.
     */
    setOutputStyle(style: AppliedOutputStyle | undefined): void {
        this.fixedOutputStyle = { style };
        if (this.conversation.contextKnown) {
            this.conversation.setContextTokens(this.estimateNextRequest());
        }
    }

    /** Replaces the memory block (a note was saved); the prefix before it stays cached. */
    setMemory(memory: string | undefined): void {
        this.context = { ...this.context, memory };
    }

    /**
     * Before the first request (a new conversation, /new) the context figure is
     * what that request would send. Building the prompt and schemas costs a few
     * milliseconds, so only a front-end that shows the figure asks for it.
     */
    ensureContextFigure(): void {
        if (this.conversation.contextKnown) return;
        this.conversation.contextUsedTokens = this.estimateNextRequest();
        this.conversation.contextKnown = true;
    }

    state(): SessionState {
        const { model, contextUsedTokens, totalCostUsd, totalUsage } = this.conversation;
        const limit = model.contextLimitTokens;
        return {
            model,
            running: this.running,
            contextUsedTokens,
            contextLimitTokens: limit,
            contextUsage: limit > 0 ? contextUsedTokens / limit : 0,
            totalCostUsd,
            totalUsage,
        };
    }

    /** Sends one user prompt and runs the tool loop until the model stops asking for tools. */
    async run(prompt: string, options: RunOptions): Promise<RunResult> {
        if (this.running) throw new Error("a run is already in progress in this session");
        this.running = true;
        this.lastMode = options.mode;
        const run = createRunContext(options, {
            tools: this.options.tools,
            repoRoot: this.options.repoRoot,
            systemPrompt: this.options.systemPrompt,
            appendSystemPrompt: this.options.appendSystemPrompt,
            context: this.context,
            outputStyle: this.outputStyle(true),
            northFile: () =>
                (this.northFileRouter ??= new NorthFileRouter(this.options.repoRoot, {
                    checkpoint: this.options.checkpoints,
                    addedRoots: this.options.addedRoots,
                    files: this.options.clientFiles,
                })),
        });
        this.currentRun = run;
        try {
            return await runLoop(prompt, run, this.deps);
        } finally {
            this.running = false;
            this.currentRun = null;
            this.deps.editDiagnostics?.endRun();
        }
    }

    /** Runs a shell command the user typed (`!cmd`, agent/user-shell.ts); never while a run goes on. */
    async runUserShell(
        command: string,
        signal: AbortSignal
    ): Promise<Outcome & { exitCode?: number | null }> {
        if (this.running) throw new Error("a run is already in progress in this session");
        this.running = true;
        try {
            return await runUserShell(command, signal, this.deps);
        } finally {
            this.running = false;
        }
    }

    /**
     * Runs the hooks of one event (nothing when none match); their warnings and
     * messages reach the user as warning events, their runs the log.
     */
    async runHook<E extends HookEvent>(
        event: E,
        input: HookEventInputs[E],
        signal?: AbortSignal,
        target?: string
    ): Promise<HookOutcome | null> {
        return this.hooks ? this.hooks(event, input, signal, target) : null;
    }

    /**
     * Replaces all but the last `keepLast` messages with a structured summary
     * (the `/summarize` command); on failure the transcript is kept and a
     * warning is emitted.
     */
    async summarise(options: SummariseOptions): Promise<boolean> {
        const done = await summarise(this.deps, options);
        if (done) this.conversation.setContextTokens(this.estimateNextRequest());
        return done;
    }

    /** Tokens the next request would send now: system prompt, tool schemas, summary and transcript. */
    private estimateNextRequest(): number {
        const shape = requestShape(this.lastMode, {
            tools: this.options.tools,
            repoRoot: this.options.repoRoot,
            systemPrompt: this.options.systemPrompt,
            appendSystemPrompt: this.options.appendSystemPrompt,
            context: this.context,
            outputStyle: this.outputStyle(false),
        });
        return estimatePromptTokens(shape.system, this.conversation.forRequest(), shape.schemas)
            .total;
    }

    /** The resume note (once) and the waiting process notices, as one block; each is sent once. */
    private takeProcessNotes(): string | null {
        const notices = processNoticeBlock(this.options.processes?.table.takeNotices() ?? []);
        const parts = [this.resumeNote, notices].filter((part) => part !== null);
        this.resumeNote = null;
        return parts.length > 0 ? parts.join("\n") : null;
    }

    private emit(event: EngineEvent): void {
        // Listeners read state() on run_end: the run is over by then.
        if (event.type === "run_end") this.running = false;
        if (event.type === "approval_request" && this.hooks) {
            // Notification hooks (desktop alerts and the like) when North waits for the user.
            void this.hooks("Notification", {
                message: `North needs your permission to use ${event.request.toolName}`,
                notification_type: "permission_prompt",
            });
        }
        for (const listener of this.listeners) {
            try {
                listener(event);
            } catch (error) {
                // A broken front-end must not break the conversation.
                this.logger.error("listener_error", { message: (error as Error).message });
            }
        }
        if (event.type === "tool_result" && event.ok && event.name === TODO_WRITE_TOOL) {
            const items = todoItemsOf(event.details);
            if (items) this.emit({ type: "todo", items });
        }
    }
}
