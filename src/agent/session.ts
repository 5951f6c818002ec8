import type { ModelInfo } from "../providers/catalogue";
import { apiModelId, calculateCost } from "../providers/catalogue";
import type {
    AssistantMessage,
    Message,
    Provider,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSchema,
    Usage,
} from "../providers/types";
import { EMPTY_USAGE } from "../providers/types";
import { type Logger, silentLogger, summarizeArgs } from "../storage/logger";
import type { AnyToolDefinition, FileCheckpointer, ToolError, ToolResult } from "../tools/types";
import { type ApprovalSettings, type Approver, createNoStandingApprovals } from "./approvals";
import type {
    EngineEvent,
    EngineListener,
    Mode,
    RunResult,
    RunSubtype,
    ToolCallRecord,
} from "./events";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, abortableSleep, retryDelayMs } from "./retry";
import { buildSystemPrompt } from "./system-prompt";
import {
    type ContextBlocks,
    type StructuredSummary,
    SUMMARY_SYSTEM_PROMPT,
    chooseCutIndex,
    parseSummary,
    renderForSummary,
    renderSummary,
    systemWithContext,
    withSummary,
} from "./context";
import { OutputCache, digestToolOutput } from "./digest";
import { type RequestOutcome, consumeModelStream, responseCharLimit } from "./model-request";
import {
    type HookEvent,
    type HookEventInputs,
    type HookInput,
    type HookOutcome,
    type HookSettings,
    hasHooks,
    runHooks,
} from "./hooks/index";
import { NorthFileRouter, settleNorthFiles } from "./north-file-turn";
import { estimatePromptTokens } from "./tokens";
import { PROPOSE_PLAN_SCHEMA, PROPOSE_PLAN_TOOL, planOf, reviewPlan } from "./plan";
import { type ToolExecutorDeps, type ToolRunner, executeToolCall } from "./tool-executor";
import { repairToolPairing } from "./tool-pairing";

export type { ToolRunner } from "./tool-executor";

export interface SessionOptions {
    sessionId: string;
    repoRoot: string;
    model: ModelInfo;
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
    /** Replaces North's system prompt (project learning uses its own). */
    systemPrompt?: string;
    /** Rules and project profile, sent ahead of the transcript on every request. */
    context?: ContextBlocks;
    /** Told of every response's usage and cost (all-time cost tracking). */
    usageSink?: (update: { model: ModelInfo; usage: Usage; costUsd: number | null }) => void;
    /** Receives every transcript change, synchronously, before it is announced (persistence). */
    sink?: TranscriptSink;
    /** Where digested outputs are kept for expand_output; one per session. */
    outputCache?: OutputCache;
    /** Keeps every file's prior content before an edit or NORTH_FILE block lands (rewind). */
    checkpoints?: FileCheckpointer;
}

/**
 * Persistence port. Called synchronously at each change, before the engine
 * emits events about it, so what a front-end shows as done is already stored.
 */
export interface TranscriptSink {
    /** `prompt` is true for the user's own prompt (not tool results or North's notes). */
    messageAdded(message: Message, prompt: boolean): void;
    transcriptReplaced(messages: readonly Message[]): void;
    summarySet(summary: StructuredSummary | null): void;
    modelChanged(modelId: string): void;
}

/** What a resumed conversation carries over besides its messages. */
export interface RestoredState {
    contextUsedTokens: number;
    totalUsage: Usage;
    totalCostUsd: number | null;
}

export interface RunOptions {
    mode: Mode;
    signal?: AbortSignal;
    /** Model requests allowed in this run; the run ends with `error_max_turns` past it. */
    maxTurns?: number;
    /** Plan mode without anyone to review: end the run with the first proposed plan as its result. */
    planOnly?: boolean;
    /** Attached files (already rendered), sent ahead of the summary during this run only. */
    attachedContext?: string;
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

const DEFAULT_MAX_TURNS = 100;
/** Share of the context window at which older messages are summarised. */
export const AUTO_SUMMARY_THRESHOLD = 0.92;
export const DEFAULT_KEEP_LAST = 10;
/** No single tool result may take more than this share of the context window. */
const MAX_TOOL_RESULT_SHARE = 0.25;
const CHARS_PER_TOKEN = 3.5;
const SUMMARY_MAX_OUTPUT_TOKENS = 4_000;
const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 5 * 60_000;
const NO_STANDING_APPROVALS = createNoStandingApprovals();

function addUsage(a: Usage, b: Usage): Usage {
    return {
        inputTokens: a.inputTokens + b.inputTokens,
        outputTokens: a.outputTokens + b.outputTokens,
        cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
        cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    };
}

function textOf(message: AssistantMessage): string {
    return message.content
        .flatMap((b) => (b.type === "text" ? [b.text] : []))
        .join("")
        .trim();
}

/** A tool result as the model reads it: the data as JSON, or the error. */
function resultContent(result: ToolResult): string {
    if (result.ok) return JSON.stringify(result.data);
    if (result.error.code === "denied") {
        return JSON.stringify({ denied: true, message: result.error.message });
    }
    return JSON.stringify({ error: result.error });
}

/**
 * One conversation: the transcript, the tool loop, retries and cancellation.
 * Front-ends subscribe to its events and answer approvals through the approver.
 */
export class AgentSession {
    private readonly listeners = new Set<EngineListener>();
    private readonly options: SessionOptions;
    private readonly logger: Logger;
    private readonly transcript: Message[];
    private model: ModelInfo;
    private running = false;
    private contextUsedTokens = 0;
    private totalCostUsd: number | null = 0;
    private totalUsage: Usage = { ...EMPTY_USAGE };
    private requestCounter = 0;
    private summary: StructuredSummary | null;
    /** Plan mode: the plan the user accepted in this run, if any. */
    private acceptedPlan: string | null = null;
    /** Attached files of the current run, sent ahead of the summary and transcript. */
    private attachedFiles: string | undefined;
    private readonly outputs: OutputCache;
    /** Set while a run may write files through NORTH_FILE blocks (agent mode with edit tools). */
    private northFile: NorthFileRouter | null = null;
    private northFileRouter: NorthFileRouter | null = null;
    /** Rules and profile; `setContext` replaces them between runs. */
    private context: ContextBlocks;

    constructor(options: SessionOptions) {
        this.options = options;
        this.logger = options.logger ?? silentLogger;
        this.model = options.model;
        this.context = options.context ?? {};
        this.transcript = [...(options.messages ?? [])];
        this.summary = options.rollingSummary ?? null;
        this.outputs = options.outputCache ?? new OutputCache();
        if (options.restoredState) {
            this.contextUsedTokens = options.restoredState.contextUsedTokens;
            this.totalUsage = { ...options.restoredState.totalUsage };
            this.totalCostUsd = options.restoredState.totalCostUsd;
        }
    }

    get rollingSummary(): StructuredSummary | null {
        return this.summary;
    }

    get sessionId(): string {
        return this.options.sessionId;
    }

    get messages(): readonly Message[] {
        return this.transcript;
    }

    subscribe(listener: EngineListener): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }

    setModel(model: ModelInfo): void {
        if (model.id === this.model.id) return;
        this.model = model;
        this.options.sink?.modelChanged(model.id);
    }

    /**
     * Replaces the rules and profile sent with the next runs (e.g. a profile
     * just learned). The system prompt changes only where they are, after
     * North's own instructions, so that prefix stays cached.
     */
    setContext(context: ContextBlocks): void {
        this.context = { ...context };
    }

    private addMessage(message: Message, prompt = false): void {
        this.transcript.push(message);
        this.options.sink?.messageAdded(message, prompt);
    }

    state(): SessionState {
        const limit = this.model.contextLimitTokens;
        return {
            model: this.model,
            running: this.running,
            contextUsedTokens: this.contextUsedTokens,
            contextLimitTokens: limit,
            contextUsage: limit > 0 ? this.contextUsedTokens / limit : 0,
            totalCostUsd: this.totalCostUsd,
            totalUsage: this.totalUsage,
        };
    }

    private emit(event: EngineEvent): void {
        if (event.type === "approval_request" && this.options.hookSettings) {
            // Notification hooks (desktop alerts and the like) when North waits for the user.
            void this.runHook("Notification", {
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
    }

    private allowedTools(mode: Mode): AnyToolDefinition[] {
        return this.options.tools.list().filter((tool) => mode !== "ask" || tool.readOnly);
    }

    /** Sends one user prompt and runs the tool loop until the model stops asking for tools. */
    async run(prompt: string, options: RunOptions): Promise<RunResult> {
        if (this.running) throw new Error("a run is already in progress in this session");
        this.running = true;
        const started = performance.now();
        const signal = options.signal ?? new AbortController().signal;
        const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
        const allowed = this.allowedTools(options.mode);
        const allowedNames = new Set(allowed.map((t) => t.name));
        const schemas = this.options.tools.schemas((t) => allowedNames.has(t.name));
        if (options.mode === "plan") {
            schemas.push(PROPOSE_PLAN_SCHEMA);
            allowedNames.add(PROPOSE_PLAN_TOOL);
        }
        this.acceptedPlan = null;
        const system = systemWithContext(
            this.options.systemPrompt ??
                buildSystemPrompt({
                    repoRoot: this.options.repoRoot,
                    mode: options.mode,
                    toolNames: [...allowedNames],
                }),
            this.context
        );
        const canWrite = allowed.some((t) => t.approvalPolicy === "write");
        this.northFile = canWrite
            ? (this.northFileRouter ??= new NorthFileRouter(this.options.repoRoot, {
                  checkpoint: this.options.checkpoints,
              }))
            : null;
        const toolCalls: ToolCallRecord[] = [];
        let usage: Usage = { ...EMPTY_USAGE };
        let costUsd: number | null = 0;
        let turns = 0;
        let finalText = "";

        this.emit({
            type: "run_start",
            sessionId: this.options.sessionId,
            model: this.model.id,
            mode: options.mode,
            tools: [...allowedNames],
            cwd: this.options.repoRoot,
        });
        this.logger.info("user_prompt", { length: prompt.length, mode: options.mode });
        this.outputs.clear();
        this.attachedFiles = options.attachedContext;

        const finish = async (subtype: RunSubtype, error?: string): Promise<RunResult> => {
            if (subtype !== "success" && this.northFile) {
                const undone = await this.northFile.discardUnfinished();
                if (undone.length > 0) {
                    this.emit({
                        type: "warning",
                        message: `unfinished NORTH_FILE writes undone: ${undone.join(", ")}`,
                    });
                }
            }
            const result: RunResult = {
                subtype,
                isError: subtype !== "success",
                text: finalText,
                error,
                numTurns: turns,
                durationMs: Math.round(performance.now() - started),
                usage,
                costUsd,
                toolCalls,
            };
            this.running = false;
            this.emit({ type: "run_end", result });
            return result;
        };

        const submitted = await this.runHook("UserPromptSubmit", { prompt }, signal);
        if (submitted?.block || submitted?.stop) {
            const reason = submitted.block?.reason ?? submitted.stop?.reason ?? "";
            return await finish(
                "error_during_execution",
                `the prompt was blocked by a UserPromptSubmit hook: ${reason}`
            );
        }
        const extra = submitted?.additionalContext.join("\n\n");
        this.addMessage({ role: "user", content: extra ? `${prompt}\n\n${extra}` : prompt }, true);
        let stopHookActive = false;
        try {
            for (;;) {
                if (signal.aborted) return await finish("cancelled", "cancelled by the user");
                turns++;
                this.emit({ type: "turn_start", turn: turns });
                const outcome = await this.requestWithRetry(system, schemas, signal);
                if (outcome.kind === "cancelled")
                    return await finish("cancelled", "cancelled by the user");
                if (outcome.kind === "failed")
                    return await finish("error_during_execution", outcome.error.message);

                this.addMessage(outcome.message);
                const turnCost = this.addUsage(outcome.usage);
                usage = addUsage(usage, outcome.usage);
                costUsd = costUsd === null || turnCost === null ? null : costUsd + turnCost;
                this.recordContext(outcome.usage);
                this.emit({
                    type: "turn_end",
                    turn: turns,
                    stopReason: outcome.stopReason,
                    usage: outcome.usage,
                    costUsd: turnCost,
                });
                const text = textOf(outcome.message);
                if (text) finalText = text;

                const calls = outcome.message.content.filter(
                    (b): b is ToolCallBlock => b.type === "tool_call"
                );
                const fileNotes = this.northFile
                    ? await settleNorthFiles(this.northFile, turns, signal, {
                          approver: this.options.approver,
                          settings: this.options.approvalSettings ?? NO_STANDING_APPROVALS,
                          repoRoot: this.options.repoRoot,
                          logger: this.logger,
                          emit: (e) => this.emit(e),
                      })
                    : [];
                if (calls.length === 0 && fileNotes.length === 0) {
                    const stopped = await this.runHook(
                        "Stop",
                        { stop_hook_active: stopHookActive },
                        signal
                    );
                    if (stopped?.block && !signal.aborted && turns < maxTurns) {
                        // A Stop hook sends the model back to work with its reason.
                        stopHookActive = true;
                        this.addMessage({
                            role: "user",
                            content: `[Stop hook] ${stopped.block.reason}`,
                        });
                        continue;
                    }
                    return await finish("success");
                }

                const notes: TextBlock[] = fileNotes.map((text) => ({ type: "text", text }));
                if (turns >= maxTurns) {
                    // The model will not see results any more: do not run what it asked for.
                    const skipped: ToolResultBlock[] = calls.map((c) => ({
                        type: "tool_result",
                        toolCallId: c.id,
                        content: JSON.stringify({
                            error: {
                                code: "cancelled",
                                message: "not run: the turn limit was reached",
                            },
                        }),
                        isError: true,
                    }));
                    this.addMessage({ role: "user", content: [...skipped, ...notes] });
                    return await finish(
                        "error_max_turns",
                        `stopped after ${maxTurns} model turns (--max-turns); the model still wanted to use tools`
                    );
                }
                const planCall =
                    options.mode === "plan" && options.planOnly
                        ? calls.find((c) => c.name === PROPOSE_PLAN_TOOL && planOf(c.input))
                        : undefined;
                if (planCall) {
                    // Nobody can review it: the plan is the result, and nothing else runs.
                    finalText = planOf(planCall.input) ?? "";
                    this.addMessage({
                        role: "user",
                        content: calls.map((c) => ({
                            type: "tool_result",
                            toolCallId: c.id,
                            content: JSON.stringify(
                                c === planCall
                                    ? {
                                          recorded: true,
                                          message: "The plan was handed to the user.",
                                      }
                                    : {
                                          error: {
                                              code: "cancelled",
                                              message: "not run: plan mode ended with the plan",
                                          },
                                      }
                            ),
                            isError: c !== planCall,
                        })),
                    });
                    toolCalls.push({
                        id: planCall.id,
                        name: planCall.name,
                        input: planCall.input,
                        ok: true,
                    });
                    return await finish("success");
                }
                const results: ToolResultBlock[] = [];
                for (const call of calls) {
                    const { block, record } = await this.runToolCall(
                        call,
                        allowedNames,
                        signal,
                        options.mode
                    );
                    results.push(block);
                    toolCalls.push(record);
                }
                this.addMessage({ role: "user", content: [...results, ...notes] });
            }
        } catch (error) {
            // Defensive: the loop's parts do not throw, but a bug must end the run, not the process.
            this.logger.error("run_failed", { message: (error as Error).message });
            return await finish(
                "error_during_execution",
                `internal error: ${(error as Error).message}`
            );
        }
    }

    private recordContext(usage: Usage): void {
        const used =
            usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
        this.setContextTokens(used > 0 ? used : this.contextUsedTokens);
    }

    /** The context figure changed: front-ends show it, and a resumed conversation starts from it. */
    private setContextTokens(used: number): void {
        this.contextUsedTokens = used;
        const limit = this.model.contextLimitTokens;
        this.emit({
            type: "context",
            usedTokens: this.contextUsedTokens,
            limitTokens: limit,
            usage: limit > 0 ? this.contextUsedTokens / limit : 0,
        });
    }

    private async requestWithRetry(
        system: string,
        tools: ToolSchema[],
        signal: AbortSignal
    ): Promise<RequestOutcome> {
        const policy = this.options.retryPolicy ?? DEFAULT_RETRY_POLICY;
        const sleep = this.options.sleep ?? abortableSleep;
        let summarisedForOverflow = false;
        for (let attempt = 1; ; attempt++) {
            const { messages: repairedTranscript, repaired } = repairToolPairing(this.transcript);
            if (repaired > 0) {
                this.logger.warn("tool_pairing_repaired", { count: repaired });
                this.transcript.splice(0, this.transcript.length, ...repairedTranscript);
                this.options.sink?.transcriptReplaced(this.transcript);
            }
            let messages = withSummary(this.transcript, this.summary, this.attachedFiles);
            const limit = this.model.contextLimitTokens;
            let estimate = estimatePromptTokens(system, messages, tools).total;
            if (limit > 0 && estimate >= limit * AUTO_SUMMARY_THRESHOLD) {
                const done = await this.summarise({
                    keepLast: DEFAULT_KEEP_LAST,
                    trigger: "auto",
                    signal,
                });
                if (signal.aborted) return { kind: "cancelled" };
                if (done) {
                    messages = withSummary(this.transcript, this.summary, this.attachedFiles);
                    estimate = estimatePromptTokens(system, messages, tools).total;
                }
            }
            this.setContextTokens(estimate);
            const outcome = await this.requestOnce(system, tools, messages, signal);
            if (outcome.kind !== "done" && this.northFile) {
                // A retried answer rewrites its NORTH_FILE blocks from the start.
                await this.northFile.dropTurn();
            }
            if (outcome.kind !== "failed") return outcome;
            if (outcome.error.kind === "context_length" && !summarisedForOverflow) {
                // The provider counted more than we estimated: summarise once, then retry.
                summarisedForOverflow = true;
                const done = await this.summarise({
                    keepLast: DEFAULT_KEEP_LAST,
                    trigger: "overflow",
                    signal,
                });
                if (signal.aborted) return { kind: "cancelled" };
                if (done) {
                    attempt--;
                    continue;
                }
                return outcome;
            }
            const delay = retryDelayMs(outcome.error, attempt, policy, this.options.random);
            if (delay === null) return outcome;
            this.logger.warn("api_retry_attempt", {
                attempt,
                delayMs: delay,
                kind: outcome.error.kind,
                status: outcome.error.status,
                message: outcome.error.message,
            });
            this.emit({
                type: "retry",
                attempt,
                maxAttempts: policy.maxRetries,
                delayMs: delay,
                error: outcome.error,
            });
            try {
                await sleep(delay, signal);
            } catch {
                return { kind: "cancelled" };
            }
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
        const settings = this.options.hookSettings;
        if (!settings || !hasHooks(settings, event, target)) return null;
        const outcome = await runHooks(
            settings,
            event,
            { session_id: this.options.sessionId, ...input } as HookInput<E>,
            { cwd: this.options.repoRoot, signal, hiddenEnv: this.options.hiddenEnv }
        );
        for (const message of [...outcome.warnings, ...outcome.systemMessages]) {
            this.emit({ type: "warning", message: `${event} hook: ${message}` });
        }
        for (const run of outcome.runs) this.logger.info("hook_run", { event, ...run });
        return outcome;
    }

    /** Plan mode: a plan the user accepts allows changes for the rest of the run. */
    private async acceptPlan(
        call: ToolCallBlock,
        signal: AbortSignal,
        deps: Pick<ToolExecutorDeps, "approver" | "logger" | "emit">
    ): Promise<ToolResult> {
        const { result, accepted } = await reviewPlan(call, signal, deps);
        if (accepted !== null) this.acceptedPlan = accepted;
        return result;
    }

    /**
     * Replaces all but the last `keepLast` messages with a structured summary
     * (the `/summarize` command and the automatic 92 % trigger share this). On
     * failure the transcript is kept and a warning is emitted.
     */
    async summarise(options: {
        keepLast?: number;
        trigger?: "auto" | "manual" | "overflow";
        signal?: AbortSignal;
    }): Promise<boolean> {
        const keepLast = options.keepLast ?? DEFAULT_KEEP_LAST;
        const trigger = options.trigger ?? "manual";
        const signal = options.signal ?? new AbortController().signal;
        const report = (ok: boolean, removedMessages: number, message: string): boolean => {
            this.emit({ type: "summary", trigger, ok, removedMessages, message });
            if (!ok) this.emit({ type: "warning", message });
            this.logger.info("summary", { trigger, ok, removedMessages });
            return ok;
        };
        const compacting = await this.runHook(
            "PreCompact",
            { trigger: trigger === "manual" ? "manual" : "auto", custom_instructions: "" },
            signal,
            trigger === "manual" ? "manual" : "auto"
        );
        if (compacting?.block)
            return report(
                false,
                0,
                `a PreCompact hook stopped the summary: ${compacting.block.reason}`
            );
        const cut = chooseCutIndex(this.transcript, keepLast);
        if (cut === 0)
            return report(false, 0, "nothing to summarise: the conversation is already short");
        const older = this.transcript.slice(0, cut);
        const budgetChars = Math.max(
            20_000,
            Math.floor(this.model.contextLimitTokens * CHARS_PER_TOKEN * 0.5)
        );
        const previous = this.summary ? `${renderSummary(this.summary)}\n\n` : "";
        const prompt = `${previous}Conversation to summarise:\n\n${renderForSummary(older, budgetChars)}`;
        const outcome = await this.requestOnce(
            SUMMARY_SYSTEM_PROMPT,
            [],
            [{ role: "user", content: prompt }],
            signal,
            { maxOutputTokens: SUMMARY_MAX_OUTPUT_TOKENS, thinking: false, emit: false }
        );
        if (outcome.kind !== "done") {
            const why = outcome.kind === "failed" ? outcome.error.message : "cancelled";
            return report(
                false,
                0,
                `could not summarise the conversation (${why}); keeping it as is`
            );
        }
        this.addUsage(outcome.usage);
        const parsed = parseSummary(textOf(outcome.message));
        if (!parsed) {
            return report(
                false,
                0,
                "the summary was not valid JSON; keeping the conversation as is"
            );
        }
        this.summary = parsed;
        this.transcript.splice(0, cut);
        this.options.sink?.summarySet(parsed);
        this.options.sink?.transcriptReplaced(this.transcript);
        this.setContextTokens(
            estimatePromptTokens("", withSummary(this.transcript, this.summary)).total
        );
        return report(true, cut, `summarised ${cut} earlier messages`);
    }

    private addUsage(usage: Usage): number | null {
        const cost = calculateCost(this.model.pricing, usage);
        this.totalUsage = addUsage(this.totalUsage, usage);
        this.totalCostUsd =
            this.totalCostUsd === null || cost === null ? null : this.totalCostUsd + cost;
        this.options.usageSink?.({ model: this.model, usage, costUsd: cost });
        return cost;
    }

    private async requestOnce(
        system: string,
        tools: ToolSchema[],
        messages: Message[],
        signal: AbortSignal,
        overrides: { maxOutputTokens?: number; thinking?: false; emit?: false } = {}
    ): Promise<RequestOutcome> {
        const requestId = `req-${++this.requestCounter}`;
        const started = performance.now();
        this.logger.info("model_request_start", { requestId, model: this.model.id });
        let provider: Provider;
        try {
            provider = await this.options.providerFor(this.model);
        } catch (error) {
            return {
                kind: "failed",
                error: { kind: "unknown", message: (error as Error).message, retryable: false },
            };
        }
        const emitDeltas = overrides.emit !== false;
        const outcome = await consumeModelStream(
            (requestSignal) =>
                provider.stream(
                    {
                        apiModelId: apiModelId(this.model.id),
                        system,
                        messages,
                        tools,
                        maxOutputTokens: overrides.maxOutputTokens ?? this.model.maxOutputTokens,
                        thinking:
                            this.model.thinkingBudget && overrides.thinking !== false
                                ? { budgetTokens: this.model.thinkingBudget }
                                : undefined,
                        promptCacheKey: `north-${this.options.sessionId}`,
                    },
                    requestSignal
                ),
            signal,
            this.options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
            async (event) => {
                if (!emitDeltas) return;
                if (event.type === "text_delta") {
                    if (this.northFile) await this.northFile.feed(event.text, (e) => this.emit(e));
                    else this.emit({ type: "text_delta", text: event.text });
                } else if (event.type === "thinking_delta") {
                    this.emit({ type: "thinking_delta", text: event.text });
                } else if (event.type === "tool_call_start") {
                    this.emit({ type: "tool_call_start", id: event.id, name: event.name });
                }
            },
            responseCharLimit(
                overrides.maxOutputTokens ?? this.model.maxOutputTokens,
                this.model.thinkingBudget
            )
        );
        // A cancelled or failed response was still billed for what it streamed.
        if (outcome.kind !== "done" && outcome.usage) this.addUsage(outcome.usage);
        this.logger.info("model_request_complete", {
            requestId,
            durationMs: Math.round(performance.now() - started),
            outcome: outcome.kind,
            ...(outcome.kind === "failed"
                ? { errorKind: outcome.error.kind, status: outcome.error.status }
                : {}),
        });
        return outcome;
    }

    private async runToolCall(
        call: ToolCallBlock,
        allowedNames: Set<string>,
        signal: AbortSignal,
        mode: Mode
    ): Promise<{ block: ToolResultBlock; record: ToolCallRecord }> {
        const started = performance.now();
        this.emit({ type: "tool_call", id: call.id, name: call.name, input: call.input });
        this.logger.info("tool_call_start", {
            toolName: call.name,
            argsSummary: summarizeArgs(call.input),
        });
        const deps = {
            tools: this.options.tools,
            approver: this.options.approver,
            settings: this.options.approvalSettings ?? NO_STANDING_APPROVALS,
            repoRoot: this.options.repoRoot,
            checkpoint: this.options.checkpoints,
            logger: this.logger,
            emit: (event: EngineEvent) => this.emit(event),
            planRequired: mode === "plan" && this.acceptedPlan === null,
            preToolUse: this.options.hookSettings
                ? (c: ToolCallBlock, s: AbortSignal) =>
                      this.runHook(
                          "PreToolUse",
                          { tool_name: c.name, tool_input: c.input, tool_use_id: c.id },
                          s,
                          c.name
                      )
                : undefined,
        };
        const result =
            call.name === PROPOSE_PLAN_TOOL && mode === "plan"
                ? await this.acceptPlan(call, signal, deps)
                : await executeToolCall(call, allowedNames, signal, deps);
        const forModel: ToolResult = result.ok
            ? { ok: true, data: digestToolOutput(call.name, call.input, result.data, this.outputs) }
            : result;
        let content = capToolResult(resultContent(forModel), this.model.contextLimitTokens);
        const after = await this.runHook(
            "PostToolUse",
            {
                tool_name: call.name,
                tool_input: call.input,
                tool_response: result.ok ? result.data : result.error,
                tool_use_id: call.id,
            },
            signal,
            call.name
        );
        if (after?.block) content += `\n[PostToolUse hook] ${after.block.reason}`;
        if (after?.additionalContext.length) {
            content += `\n[PostToolUse hook] ${after.additionalContext.join("\n")}`;
        }
        const durationMs = Math.round(performance.now() - started);
        const error: ToolError | undefined = result.ok ? undefined : result.error;
        this.emit({
            type: "tool_result",
            id: call.id,
            name: call.name,
            ok: result.ok,
            content,
            error,
            details: result.ok ? result.data : undefined,
            durationMs,
        });
        this.logger.info("tool_call_complete", {
            toolName: call.name,
            durationMs,
            ok: result.ok,
            ...(error ? { errorCode: error.code } : {}),
        });
        return {
            block: { type: "tool_result", toolCallId: call.id, content, isError: !result.ok },
            record: { id: call.id, name: call.name, input: call.input, ok: result.ok },
        };
    }
}

/**
 * Bounds one tool result to a share of the context window, so a single huge
 * output (an MCP tool, a runaway command) cannot overflow the conversation.
 */
function capToolResult(content: string, contextLimitTokens: number): string {
    const maxChars = Math.floor(contextLimitTokens * CHARS_PER_TOKEN * MAX_TOOL_RESULT_SHARE);
    if (content.length <= maxChars) return content;
    const head = content.slice(0, maxChars);
    return `${head}\n[North: this result was ${content.length} characters, more than a quarter of the context window; it was cut to the first ${maxChars}. Ask for a narrower range or a more specific query.]`;
}
