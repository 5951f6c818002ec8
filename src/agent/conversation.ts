import type { ModelInfo } from "../providers/catalogue";
import { calculateCost } from "../providers/catalogue";
import type { Message, Usage } from "../providers/types";
import { EMPTY_USAGE } from "../providers/types";
import { type StructuredSummary, withSummary } from "./summary-text";
import type { EngineEvent } from "./events";

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

export type UsageSink = (update: {
    model: ModelInfo;
    usage: Usage;
    costUsd: number | null;
}) => void;

export interface ConversationOptions {
    model: ModelInfo;
    messages?: Message[];
    summary?: StructuredSummary | null;
    restored?: RestoredState;
    sink?: TranscriptSink;
    usageSink?: UsageSink;
    /** What a response's server-side searches cost (priced per search, by provider); none: 0. */
    searchCostUsd?: (model: ModelInfo, usage: Usage) => number;
    /** Announces context figure changes. */
    emit: (event: EngineEvent) => void;
}

export function addUsage(a: Usage, b: Usage): Usage {
    return {
        inputTokens: a.inputTokens + b.inputTokens,
        outputTokens: a.outputTokens + b.outputTokens,
        cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
        cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
        ...(a.webSearchRequests || b.webSearchRequests
            ? { webSearchRequests: (a.webSearchRequests ?? 0) + (b.webSearchRequests ?? 0) }
            : {}),
    };
}

/**
 * What outlives a run: the transcript and its rolling summary, the model,
 * the spend and the context figure. Every change reaches the sink before
 * anything is announced about it.
 */
export class Conversation {
    private readonly transcript: Message[];
    private readonly sink: TranscriptSink | undefined;
    private readonly usageSink: UsageSink | undefined;
    private readonly searchCostUsd: ConversationOptions["searchCostUsd"];
    private readonly emit: (event: EngineEvent) => void;
    private rolling: StructuredSummary | null;
    private current: ModelInfo;
    private requests = 0;
    contextUsedTokens = 0;
    /** False until a request was estimated or counted (or a stored figure restored). */
    contextKnown = false;
    totalUsage: Usage = { ...EMPTY_USAGE };
    /** Null once any response came from a model without a price. */
    totalCostUsd: number | null = 0;
    /** The user was told the context is nearly full with nothing worth summarising (compaction.ts). */
    fullContextExplained = false;

    constructor(options: ConversationOptions) {
        this.transcript = [...(options.messages ?? [])];
        this.rolling = options.summary ?? null;
        this.current = options.model;
        this.sink = options.sink;
        this.usageSink = options.usageSink;
        this.searchCostUsd = options.searchCostUsd;
        this.emit = options.emit;
        if (options.restored) {
            this.contextUsedTokens = options.restored.contextUsedTokens;
            this.contextKnown = options.restored.contextUsedTokens > 0;
            this.totalUsage = { ...options.restored.totalUsage };
            this.totalCostUsd = options.restored.totalCostUsd;
        }
    }

    get messages(): readonly Message[] {
        return this.transcript;
    }

    get summary(): StructuredSummary | null {
        return this.rolling;
    }

    get model(): ModelInfo {
        return this.current;
    }

    setModel(model: ModelInfo): void {
        if (model.id === this.current.id) return;
        this.current = model;
        this.sink?.modelChanged(model.id);
    }

    add(message: Message, prompt = false): void {
        this.transcript.push(message);
        this.sink?.messageAdded(message, prompt);
    }

    /**
     * Takes back `message` (a prompt no request could carry), so later requests
     * and a resumed conversation go on without it. False when it is no longer
     * in the transcript.
     */
    withdraw(message: Message): boolean {
        const at = this.transcript.lastIndexOf(message);
        if (at === -1) return false;
        this.transcript.splice(at, 1);
        this.sink?.transcriptReplaced(this.transcript);
        return true;
    }

    /** The whole transcript changed (tool pairing repaired). */
    replace(messages: readonly Message[]): void {
        this.transcript.splice(0, this.transcript.length, ...messages);
        this.sink?.transcriptReplaced(this.transcript);
    }

    /** The first `cut` messages are now told by `summary`. */
    compact(summary: StructuredSummary, cut: number): void {
        this.rolling = summary;
        this.transcript.splice(0, cut);
        this.sink?.summarySet(summary);
        this.sink?.transcriptReplaced(this.transcript);
    }

    /** The messages as sent: attached files and the summary ahead of the transcript. */
    forRequest(attachedFiles?: string): Message[] {
        return withSummary(this.transcript, this.rolling, attachedFiles);
    }

    nextRequestId(): string {
        return `req-${++this.requests}`;
    }

    /**
     * Adds a response's usage to the totals and the usage sink, priced by the
     * model that answered it (a subagent's may differ); returns its cost (null
     * without a price).
     */
    addUsage(usage: Usage, model: ModelInfo = this.current): number | null {
        const tokens = calculateCost(model.pricing, usage);
        const searches = usage.webSearchRequests ? (this.searchCostUsd?.(model, usage) ?? 0) : 0;
        const cost = tokens === null ? null : tokens + searches;
        this.totalUsage = addUsage(this.totalUsage, usage);
        this.totalCostUsd =
            this.totalCostUsd === null || cost === null ? null : this.totalCostUsd + cost;
        this.usageSink?.({ model, usage, costUsd: cost });
        return cost;
    }

    /** The provider's count of a finished request becomes the context figure. */
    recordContext(usage: Usage): void {
        const used =
            usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
        this.setContextTokens(used > 0 ? used : this.contextUsedTokens);
    }

    /** The context figure changed: front-ends show it, and a resumed conversation starts from it. */
    setContextTokens(used: number): void {
        this.contextUsedTokens = used;
        this.contextKnown = true;
        const limit = this.current.contextLimitTokens;
        this.emit({
            type: "context",
            usedTokens: used,
            limitTokens: limit,
            usage: limit > 0 ? used / limit : 0,
        });
    }
}
