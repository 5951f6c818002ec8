import type { ProviderErrorKind, ToolCallBlock, UserMessage } from "../providers/types";
import { addUsage } from "./conversation";
import {
    type CompactionDeps,
    DEFAULT_KEEP_LAST,
    fitToWindow,
    summarise,
    textOf,
} from "./compaction";
import type { RunResult, RunSubtype } from "./events";
import { callModel } from "./model-call";
import type { RequestOutcome } from "./model-request";
import { settleNorthFiles, undoUnfinishedNorthFiles } from "./north-file-turn";
import { endWithPlan } from "./plan";
import { conversationTooLarge, promptAloneTooLarge, providerRefusedPrompt } from "./prompt-fit";
import { type RetryPolicy, retryDelayMs } from "./retry";
import { type RunContext, editsModeOf } from "./run-state";
import { type ToolTurnDeps, notRunResults, runToolCalls } from "./tool-turn";
import { repairToolPairing } from "./tool-pairing";

/** What the loop needs from the session; tests build their own around a fake stream. */
export interface LoopDeps extends CompactionDeps, ToolTurnDeps {
    retryPolicy: RetryPolicy;
    /** Waits between retries; rejects when the signal aborts. */
    sleep: (ms: number, signal: AbortSignal) => Promise<void>;
    random?: () => number;
    /** The conversation's spending limit in USD; see `budgetEnding`. */
    maxBudgetUsd?: number;
    /** The spend the budget is checked against; default the conversation's (a subagent's is its session's). */
    spentUsd?: () => number | null;
    /**
     * Takes what the model should hear about background processes (waiting
     * notices, a resumed conversation's ended ones) as one text block for the
     * next user message; absent: nothing (a subagent's run leaves it to the session's).
     */
    processNotes?: () => string | null;
}

/** How a run ended; `finish` turns it into the result. */
interface Ending {
    subtype: RunSubtype;
    error?: string;
    errorKind?: ProviderErrorKind;
}

const SUCCESS: Ending = { subtype: "success" };
const CANCELLED: Ending = { subtype: "cancelled", error: "cancelled by the user" };

type DoneOutcome = Extract<RequestOutcome, { kind: "done" }>;

/**
 * Runs one prompt: the model answers, the tools it asks for run and their
 * results go back, until it stops asking (or the turn limit, a failure or
 * cancellation ends the run). Emits `run_start` first and `run_end` last;
 * never throws.
 */
export async function runLoop(prompt: string, run: RunContext, deps: LoopDeps): Promise<RunResult> {
    deps.emit({
        type: "run_start",
        sessionId: deps.sessionId,
        model: deps.conversation.model.id,
        mode: run.mode,
        tools: [...run.allowedNames],
        cwd: deps.repoRoot,
    });
    deps.logger.info("user_prompt", { length: prompt.length, mode: run.mode });
    deps.outputs.clear();
    // Ids are never reused: any process not known now is one this run started.
    const known = new Set(deps.processes?.table.list().map((p) => p.id));
    let ending: Ending;
    try {
        ending = await turns(prompt, run, deps);
    } catch (error) {
        // Defensive: the loop's parts do not throw, but a bug must end the run, not the process.
        const message = (error as Error).message;
        deps.logger.error("run_failed", { message });
        ending = { subtype: "error_during_execution", error: `internal error: ${message}` };
    }
    return finish(ending, run, deps, known);
}

/** `content` with the waiting process notices added as one text block (taken: each is sent once). */
function withNotices(content: UserMessage["content"], deps: LoopDeps): UserMessage["content"] {
    const block = deps.processNotes?.() ?? null;
    if (block === null) return content;
    const blocks =
        typeof content === "string" ? [{ type: "text" as const, text: content }] : content;
    return [...blocks, { type: "text", text: block }];
}

async function turns(prompt: string, run: RunContext, deps: LoopDeps): Promise<Ending> {
    const { conversation } = deps;
    const submitted = await deps.hooks?.("UserPromptSubmit", { prompt }, run.signal);
    if (submitted?.block || submitted?.stop) {
        const reason = submitted.block?.reason ?? submitted.stop?.reason ?? "";
        return failed(`the prompt was blocked by a UserPromptSubmit hook: ${reason}`);
    }
    const extra = submitted?.additionalContext.join("\n\n");
    const text = extra ? `${prompt}\n\n${extra}` : prompt;
    const images = run.attachedImages;
    // A prompt of images only has no text block: the APIs refuse an empty one.
    const textBlocks = text.trim() ? [{ type: "text" as const, text }] : [];
    const message: UserMessage = {
        role: "user",
        content: withNotices(images.length > 0 ? [...textBlocks, ...images] : text, deps),
    };
    const tooLarge = promptAloneTooLarge(message, run, conversation.model);
    if (tooLarge) {
        deps.logger.warn("prompt_too_large", { length: text.length });
        return failed(tooLarge);
    }
    // Repaired first, so the prompt stays the message it is (and can be taken back).
    repairTranscript(deps);
    conversation.add(message, true);
    let stopHookActive = false;
    let lastTurnCost: number | null = 0;
    /** The answer so far of a turn the provider paused (server-side searches), to join its rest. */
    let pausedText: string | null = null;
    for (;;) {
        if (run.signal.aborted) return CANCELLED;
        const overBudget = budgetEnding(deps, lastTurnCost);
        if (overBudget) return overBudget;
        run.turns++;
        deps.emit({ type: "turn_start", turn: run.turns });
        // Until the model answers it, the prompt can still be taken back.
        const pending = run.turns === 1 ? message : null;
        const outcome = await requestTurn(run, deps, pending);
        if (outcome.kind === "cancelled") return CANCELLED;
        if (outcome.kind === "failed") return failed(outcome.error.message, outcome.error.kind);
        lastTurnCost = recordTurn(outcome, run, deps);
        if (pausedText !== null) {
            const joined = [pausedText, textOf(outcome.message)].filter(Boolean).join("\n\n");
            if (joined) run.finalText = joined;
            pausedText = null;
        }

        const calls = outcome.message.content.filter(
            (b): b is ToolCallBlock => b.type === "tool_call"
        );
        const notes = (await northFileNotes(run, deps)).map((text) => ({
            type: "text" as const,
            text,
        }));
        if (calls.length === 0 && notes.length === 0) {
            // A paused turn goes on when the conversation is sent back as it is (Anthropic).
            if (outcome.stopReason === "pause_turn" && run.turns < run.maxTurns) {
                pausedText = textOf(outcome.message);
                continue;
            }
            const objection = await stopHookObjection(run, deps, stopHookActive);
            if (objection === null) return SUCCESS;
            // A Stop hook sends the model back to work with its reason.
            stopHookActive = true;
            conversation.add({
                role: "user",
                content: withNotices(`[Stop hook] ${objection}`, deps),
            });
            continue;
        }
        if (run.turns >= run.maxTurns) {
            // The model will not see results any more: do not run what it asked for.
            const skipped = notRunResults(calls, "not run: the turn limit was reached");
            conversation.add({ role: "user", content: [...skipped, ...notes] });
            return {
                subtype: "error_max_turns",
                error: `stopped after ${run.maxTurns} model turns (--max-turns or the maxTurns setting); the model still wanted to use tools`,
            };
        }
        const budgetReached = calls.length > 0 ? budgetEnding(deps, lastTurnCost) : null;
        if (budgetReached) {
            // As at the turn limit: the results could not be sent, so nothing runs.
            const skipped = notRunResults(calls, "not run: the session's budget was reached");
            conversation.add({ role: "user", content: [...skipped, ...notes] });
            return budgetReached;
        }
        const planned = run.mode === "plan" && run.planOnly ? endWithPlan(calls) : null;
        if (planned) {
            // Nobody can review it: the plan is the result, and nothing else runs.
            run.finalText = planned.plan;
            conversation.add({ role: "user", content: planned.results });
            const { id, name, input } = planned.call;
            run.toolCalls.push({ id, name, input, ok: true });
            return SUCCESS;
        }
        const results = await runToolCalls(calls, run, deps);
        conversation.add({ role: "user", content: withNotices([...results, ...notes], deps) });
    }
}

/** The turn's NORTH_FILE blocks reviewed; parallel subagents take turns with the edit tools (`exclusive`). */
async function northFileNotes(run: RunContext, deps: LoopDeps): Promise<string[]> {
    const router = run.northFile;
    if (!router) return [];
    const settle = (): Promise<string[]> =>
        settleNorthFiles(router, run.turns, run.signal, {
            ...deps,
            editsMode: editsModeOf(run, deps.emit),
        });
    return deps.exclusive ? deps.exclusive(settle) : settle();
}

function failed(error: string, errorKind?: ProviderErrorKind): Ending {
    return errorKind === undefined
        ? { subtype: "error_during_execution", error }
        : { subtype: "error_during_execution", error, errorKind };
}

/**
 * Whether the next model request must not be sent: the conversation has
 * reached `maxBudgetUsd`, or the last request's cost (the best guess of the
 * next one's, which resends everything) would take it past. Unknown spend
 * (a model without a price) cannot be kept under a limit, so it stops too.
 */
export function budgetEnding(
    deps: Pick<LoopDeps, "maxBudgetUsd" | "conversation" | "spentUsd">,
    lastTurnCost: number | null
): Ending | null {
    const limit = deps.maxBudgetUsd;
    if (limit === undefined) return null;
    const spent = deps.spentUsd ? deps.spentUsd() : deps.conversation.totalCostUsd;
    const usd = (value: number): string => `$${value.toFixed(4)}`;
    if (spent === null || lastTurnCost === null) {
        return {
            subtype: "error_max_budget_usd",
            error: `stopped: a model without a price answered, so the spend cannot be kept under the budget of ${usd(limit)} (--max-budget-usd)`,
        };
    }
    if (spent >= limit) {
        return {
            subtype: "error_max_budget_usd",
            error: `stopped: this conversation has cost ${usd(spent)}, reaching the budget of ${usd(limit)} (--max-budget-usd)`,
        };
    }
    if (spent + lastTurnCost > limit) {
        return {
            subtype: "error_max_budget_usd",
            error: `stopped before the next model request: this conversation has cost ${usd(spent)}, and another request like the last (${usd(lastTurnCost)}) would pass the budget of ${usd(limit)} (--max-budget-usd)`,
        };
    }
    return null;
}

/** A finished answer joins the transcript, the run's and session's spend, and the context figure; returns its cost. */
function recordTurn(outcome: DoneOutcome, run: RunContext, deps: LoopDeps): number | null {
    const { conversation } = deps;
    conversation.add(outcome.message);
    const turnCost = conversation.addUsage(outcome.usage);
    run.usage = addUsage(run.usage, outcome.usage);
    run.costUsd = run.costUsd === null || turnCost === null ? null : run.costUsd + turnCost;
    conversation.recordContext(outcome.usage);
    deps.emit({
        type: "turn_end",
        turn: run.turns,
        stopReason: outcome.stopReason,
        usage: outcome.usage,
        costUsd: turnCost,
    });
    const text = textOf(outcome.message);
    if (text) run.finalText = text;
    return turnCost;
}

/** The reason a Stop hook gives to keep working, or null to let the run end. */
async function stopHookObjection(
    run: RunContext,
    deps: LoopDeps,
    active: boolean
): Promise<string | null> {
    const stopped = await deps.hooks?.("Stop", { stop_hook_active: active }, run.signal);
    if (!stopped?.block || run.signal.aborted || run.turns >= run.maxTurns) return null;
    return stopped.block.reason;
}

function repairTranscript(deps: LoopDeps): void {
    const repair = repairToolPairing(deps.conversation.messages);
    if (repair.repaired > 0) {
        deps.logger.warn("tool_pairing_repaired", { count: repair.repaired });
        deps.conversation.replace(repair.messages);
    }
}

/**
 * One model answer, retried with backoff on retryable errors. The transcript
 * is repaired and fitted to the window before each attempt; a provider's
 * overflow error summarises once and tries again. A `prompt` the model has
 * not answered yet is taken back when the request cannot carry it.
 */
async function requestTurn(
    run: RunContext,
    deps: LoopDeps,
    prompt: UserMessage | null
): Promise<RequestOutcome> {
    const { conversation, retryPolicy: policy } = deps;
    const { signal } = run;
    let summarisedForOverflow = false;
    const withdraw = (): boolean => prompt !== null && conversation.withdraw(prompt);
    for (let attempt = 1; ; attempt++) {
        repairTranscript(deps);
        run.refreshTools();
        const fitted = await fitToWindow(deps, run.system, run.schemas, run.attachedFiles, signal);
        if (fitted.kind === "cancelled") return { kind: "cancelled" };
        if (fitted.kind === "too_large") {
            const withdrawn =
                prompt !== null && withdraw() ? { prompt, attachedFiles: run.attachedFiles } : null;
            return tooLargeOutcome(
                conversationTooLarge(fitted, conversation.model.display, withdrawn)
            );
        }
        const outcome = await callModel(deps, run.system, run.schemas, fitted.messages, signal, {
            northFile: run.northFile,
        });
        // A retried answer rewrites its NORTH_FILE blocks from the start.
        if (outcome.kind !== "done") await run.northFile?.dropTurn();
        if (outcome.kind !== "failed") return outcome;
        if (outcome.error.kind === "context_length" && !summarisedForOverflow) {
            // The provider counted more than we estimated: summarise once, then retry.
            summarisedForOverflow = true;
            const keepLast = DEFAULT_KEEP_LAST;
            const done = await summarise(deps, { keepLast, trigger: "overflow", signal });
            if (signal.aborted) return { kind: "cancelled" };
            if (!done) return refusedForSize(outcome, withdraw);
            attempt--;
            continue;
        }
        if (outcome.error.kind === "context_length") return refusedForSize(outcome, withdraw);
        const delay = retryDelayMs(outcome.error, attempt, policy, deps.random);
        if (delay === null) return outcome;
        deps.logger.warn("api_retry_attempt", {
            attempt,
            delayMs: delay,
            kind: outcome.error.kind,
            status: outcome.error.status,
            message: outcome.error.message,
        });
        deps.emit({
            type: "retry",
            attempt,
            maxAttempts: policy.maxRetries,
            delayMs: delay,
            error: outcome.error,
        });
        try {
            await deps.sleep(delay, signal);
        } catch {
            return { kind: "cancelled" };
        }
    }
}

/** A request refused before sending: it would not fit the model's window. */
function tooLargeOutcome(message: string): RequestOutcome {
    return { kind: "failed", error: { kind: "context_length", retryable: false, message } };
}

/** The provider refused the request for its size, summary or not: an unanswered prompt is taken back. */
function refusedForSize(
    outcome: Extract<RequestOutcome, { kind: "failed" }>,
    withdraw: () => boolean
): RequestOutcome {
    if (!withdraw()) return outcome;
    return {
        ...outcome,
        error: { ...outcome.error, message: providerRefusedPrompt(outcome.error.message) },
    };
}

async function finish(
    ending: Ending,
    run: RunContext,
    deps: LoopDeps,
    knownProcesses: ReadonlySet<string>
): Promise<RunResult> {
    if (ending.subtype !== "success" && run.northFile) {
        await undoUnfinishedNorthFiles(run.northFile, deps.emit);
    }
    const result: RunResult = {
        subtype: ending.subtype,
        isError: ending.subtype !== "success",
        text: run.finalText,
        error: ending.error,
        ...(ending.errorKind === undefined ? {} : { errorKind: ending.errorKind }),
        numTurns: run.turns,
        durationMs: Math.round(performance.now() - run.startedAt),
        usage: run.usage,
        costUsd: run.costUsd,
        toolCalls: run.toolCalls,
    };
    const started = deps.processes?.table.list().filter((p) => !knownProcesses.has(p.id)) ?? [];
    if (started.length > 0) result.processes = started;
    deps.emit({ type: "run_end", result });
    return result;
}
