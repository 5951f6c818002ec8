import type { AssistantMessage, Message, ToolSchema } from "../providers/types";
import { CHARS_PER_TOKEN } from "../tools/limits";
import {
    SUMMARY_SYSTEM_PROMPT,
    chooseCutIndex,
    parseSummary,
    renderForSummary,
    renderSummary,
} from "./summary-text";
import type { HookRunner } from "./hook-runner";
import { type ModelCallDeps, callModel } from "./model-call";
import { estimatePromptTokens } from "./tokens";

/** Share of the context window at which older messages are summarised. */
export const AUTO_SUMMARY_THRESHOLD = 0.92;
export const DEFAULT_KEEP_LAST = 10;
const SUMMARY_MAX_OUTPUT_TOKENS = 4_000;

export type SummaryTrigger = "auto" | "manual" | "overflow";

export interface CompactionDeps extends ModelCallDeps {
    hooks?: HookRunner;
}

export interface SummariseOptions {
    keepLast?: number;
    trigger?: SummaryTrigger;
    signal?: AbortSignal;
}

export function textOf(message: AssistantMessage): string {
    return message.content
        .flatMap((b) => (b.type === "text" ? [b.text] : []))
        .join("")
        .trim();
}

/**
 * Replaces all but the last `keepLast` messages with a structured summary
 * (the `/summarize` command, the automatic 92 % trigger and a provider's
 * overflow error share this). On failure the transcript is kept and a
 * warning is emitted.
 */
export async function summarise(deps: CompactionDeps, options: SummariseOptions): Promise<boolean> {
    const { conversation } = deps;
    const keepLast = options.keepLast ?? DEFAULT_KEEP_LAST;
    const trigger = options.trigger ?? "manual";
    const signal = options.signal ?? new AbortController().signal;
    const report = (ok: boolean, removedMessages: number, message: string): boolean => {
        deps.emit({ type: "summary", trigger, ok, removedMessages, message });
        if (!ok) deps.emit({ type: "warning", message });
        deps.logger.info("summary", { trigger, ok, removedMessages });
        return ok;
    };
    const hookTrigger = trigger === "manual" ? "manual" : "auto";
    const compacting = await deps.hooks?.(
        "PreCompact",
        { trigger: hookTrigger, custom_instructions: "" },
        signal,
        hookTrigger
    );
    if (compacting?.block) {
        return report(
            false,
            0,
            `a PreCompact hook stopped the summary: ${compacting.block.reason}`
        );
    }
    const cut = chooseCutIndex(conversation.messages, keepLast);
    if (cut === 0)
        return report(false, 0, "nothing to summarise: the conversation is already short");
    const older = conversation.messages.slice(0, cut);
    // A side job: the small fast model when one is set, its cost counted as its own.
    const model = deps.sideModel ?? conversation.model;
    const budgetChars = Math.max(
        20_000,
        Math.floor(model.contextLimitTokens * CHARS_PER_TOKEN * 0.5)
    );
    const previous = conversation.summary ? `${renderSummary(conversation.summary)}\n\n` : "";
    const prompt = `${previous}Conversation to summarise:\n\n${renderForSummary(older, budgetChars)}`;
    const outcome = await callModel(
        deps,
        SUMMARY_SYSTEM_PROMPT,
        [],
        [{ role: "user", content: prompt }],
        signal,
        {
            maxOutputTokens: Math.min(SUMMARY_MAX_OUTPUT_TOKENS, model.maxOutputTokens),
            thinking: false,
            quiet: true,
            model,
        }
    );
    if (outcome.kind !== "done") {
        const why = outcome.kind === "failed" ? outcome.error.message : "cancelled";
        return report(false, 0, `could not summarise the conversation (${why}); keeping it as is`);
    }
    conversation.addUsage(outcome.usage, model);
    const parsed = parseSummary(textOf(outcome.message));
    if (!parsed) {
        return report(false, 0, "the summary was not valid JSON; keeping the conversation as is");
    }
    // The caller sets the context figure: only it knows the system prompt and tools sent next.
    conversation.compact(parsed, cut);
    return report(true, cut, `summarised ${cut} earlier messages`);
}

/** Tokens of the messages a summary cutting at `cut` would replace. */
function olderTokens(messages: readonly Message[], cut: number): number {
    return estimatePromptTokens("", messages.slice(0, cut)).total;
}

/**
 * Says once, when the context is nearly full and summarising would gain
 * little, what fills it and what the user can do; said again only after the
 * context went below the threshold (or a summary was tried) and filled up again.
 */
function explainFullContext(
    deps: CompactionDeps,
    estimate: number,
    limit: number,
    attempted: boolean
): void {
    const { conversation } = deps;
    const full = limit > 0 && estimate >= limit * AUTO_SUMMARY_THRESHOLD && estimate <= limit;
    if (!full || attempted) {
        conversation.fullContextExplained = false;
        return;
    }
    if (conversation.fullContextExplained) return;
    conversation.fullContextExplained = true;
    const percent = Math.round((estimate / limit) * 100);
    deps.emit({
        type: "warning",
        message:
            `context ${percent}% full, mostly with the latest messages, which North keeps whole ` +
            `(a large tool output?): summarising the older ones would gain little, so it is not done. ` +
            `/new starts a fresh conversation; /rewind goes back to before a large result.`,
    });
}

/** Messages kept verbatim when the usual summary still leaves the request over the window. */
const MINIMAL_KEEP_LAST = 2;

/**
 * Share of the window the older messages must hold for the automatic summary
 * to be worth a model call while the request still fits: below it, summarising
 * would gain a few tokens and run again at the next turn.
 */
export const MIN_SUMMARY_GAIN = 0.1;

export type FittedRequest =
    | { kind: "fits"; messages: Message[] }
    | { kind: "cancelled" }
    /** Over the window even after summarising: sending would only fail (or be cut). */
    | { kind: "too_large"; estimate: number; limit: number };

/**
 * The messages of the next request, summarised first when the estimate
 * reaches the threshold (and harder when that is not enough); the estimate
 * becomes the context figure. A request still over the window is refused
 * rather than sent.
 */
export async function fitToWindow(
    deps: CompactionDeps,
    system: string,
    tools: ToolSchema[],
    attachedFiles: string | undefined,
    signal: AbortSignal
): Promise<FittedRequest> {
    const { conversation } = deps;
    let messages = conversation.forRequest(attachedFiles);
    const limit = conversation.model.contextLimitTokens;
    let estimate = estimatePromptTokens(system, messages, tools).total;
    // A summary attempted here says its own outcome (done, or why not).
    let attempted = false;
    for (const keepLast of [DEFAULT_KEEP_LAST, MINIMAL_KEEP_LAST]) {
        if (limit <= 0 || estimate < limit * AUTO_SUMMARY_THRESHOLD) break;
        const over = estimate > limit;
        if (keepLast === MINIMAL_KEEP_LAST && !over) break;
        // Only a pass that can remove something runs (and says so): a first pass with nothing
        // older to cut would report "nothing to summarise" right before the harder one summarises.
        const cut = chooseCutIndex(conversation.messages, keepLast);
        if (cut === 0) continue;
        if (!over && olderTokens(conversation.messages, cut) < limit * MIN_SUMMARY_GAIN) continue;
        attempted = true;
        const done = await summarise(deps, { keepLast, trigger: "auto", signal });
        if (signal.aborted) return { kind: "cancelled" };
        if (done) {
            messages = conversation.forRequest(attachedFiles);
            estimate = estimatePromptTokens(system, messages, tools).total;
        }
    }
    explainFullContext(deps, estimate, limit, attempted);
    conversation.setContextTokens(estimate);
    if (limit > 0 && estimate > limit) return { kind: "too_large", estimate, limit };
    return { kind: "fits", messages };
}
