/**
 * Turns the engine's approval requests (and the App's own pickers) into
 * `PendingReview`s the App renders one at a time, and resolves the engine's
 * promise with the user's decision.
 *
 * One review is pending at a time; later requests wait in order. Ctrl+C
 * (`cancelAll`) or the engine's AbortSignal answers waiting requests with a
 * denial ("cancelled by the user") and pickers with null.
 */
import type { ApprovalDecision, ApprovalRequest, Approver } from "../agent/approvals";
import { keepDiffs, sanitizeLine } from "./render/diff-rows";
import { refusalWords } from "../agent/approval-menu";
import type { PendingReview, ResolvedReview, TrustPromptInventory } from "./review-types";
import type { ProcessInfo } from "../tools/processes/types";
import { oneLine } from "../util/short-text";
import type {
    McpElicitation,
    McpElicitationAnswer,
    McpSamplingRequest,
} from "../tools/mcp/client-requests";

/** One choice of a picker review. */
export type PickerOption = Extract<PendingReview, { kind: "picker" }>["options"][number];

/** The reason given to the engine when the user cancels a waiting review. */
export const CANCELLED_REASON = "cancelled by the user";

/** A resolved review as the transcript remembers it, with the id it had while pending. */
export type ResolvedReviewRecord = ResolvedReview & { id: string };

export interface ApprovalBridge {
    /** Hand to the engine; resolves once the user decides (or the run is cancelled). */
    approver: Approver;
    /**
     * Called at once with the pending review (or null), then on every change.
     * Returns an unsubscribe function.
     */
    subscribe(listener: (pending: PendingReview | null) => void): () => void;
    /** Called once per review as it is resolved, for the one-line transcript record. */
    onResolved(listener: (resolved: ResolvedReviewRecord) => void): () => void;
    /** The review waiting for the user now, if any. */
    current(): PendingReview | null;
    /** Reviews waiting, the pending one included. */
    size(): number;
    /** Ctrl+C: deny every waiting approval ("cancelled by the user"), cancel every picker. */
    cancelAll(): void;
    /** Asks the user to choose one option; resolves with its id, or null when cancelled. */
    pick(title: string, options: PickerOption[], note?: string): Promise<string | null>;
    /** Asks whether to learn the project now: true (y), false (n), null (cancelled). */
    askLearning(): Promise<boolean | null>;
    /**
     * Asks whether to trust the project's own configuration: true (y), false
     * (n), null (cancelled). Asked ahead of anything already waiting.
     */
    askTrust(inventory: TrustPromptInventory): Promise<boolean | null>;
    /** Shows an MCP server's form; Ctrl+C or the server giving up answers "cancel". */
    askElicitation(request: McpElicitation, signal: AbortSignal): Promise<McpElicitationAnswer>;
    /** Asks to run an MCP server's sampling request: true only when approved. */
    askSampling(request: McpSamplingRequest, signal: AbortSignal): Promise<boolean>;
    /**
     * Asks for the password a process prompts for, in a masked field: the
     * typed text, or null when declined or cancelled. The record of the
     * review never holds it.
     */
    askSecret(process: ProcessInfo, prompt: string): Promise<string | null>;
}

interface Waiting {
    review: PendingReview;
    /** Resolves the review as cancelled. */
    cancel(): void;
}

/** How a decision on a request reads as a one-line transcript record. */
export function resolvedReviewOf(
    request: ApprovalRequest,
    decision: ApprovalDecision
): ResolvedReview {
    if (request.kind === "plan") {
        const status =
            decision.outcome === "approve"
                ? "accepted"
                : decision.reason === CANCELLED_REASON
                  ? "cancelled"
                  : "rejected";
        const feedback =
            decision.outcome === "deny" && status === "rejected" && decision.reason
                ? ` (feedback: ${decision.reason})`
                : "";
        return {
            kind: "plan",
            summary: `plan: ${request.summary}${feedback}`,
            status,
            ...(request.plan ? { plan: request.plan } : {}),
        };
    }
    const kind = request.kind === "shell" ? "shell" : "write";
    const call = request.toolCallId ? { toolCallId: request.toolCallId } : {};
    let summary = request.kind === "shell" ? (request.command ?? request.summary) : request.summary;
    if (kind === "write" && request.diffs && request.diffs.length > 0) {
        let added = 0;
        let removed = 0;
        for (const diff of request.diffs) {
            added += diff.linesAdded;
            removed += diff.linesRemoved;
        }
        summary += ` (+${added} −${removed})`;
    }
    const status = statusOf(kind, decision);
    // A refusal with the user's reason says it: it is what the model was told to do instead.
    const words = decision.outcome === "deny" ? refusalWords(decision.reason) : undefined;
    if (words !== undefined) summary += ` — "${sanitizeLine(words)}"`;
    // What was approved stays readable in the transcript (and after a resume).
    const approved = status === "accepted" || status === "always";
    if (kind === "write" && approved && request.diffs && request.diffs.length > 0) {
        return { kind, summary, status, diffs: keepDiffs(request.diffs), ...call };
    }
    return { kind, summary, status, ...call };
}

function statusOf(kind: "write" | "shell", decision: ApprovalDecision): string {
    if (decision.outcome === "deny") {
        if (decision.reason === CANCELLED_REASON) return "cancelled";
        return kind === "write" ? "rejected" : "denied";
    }
    if (kind === "write") return decision.remember === "all" ? "always" : "accepted";
    if (decision.remember === "exact" || decision.remember === "prefix") return "always";
    if (decision.remember === "all") return "auto";
    return "ran";
}

export function createApprovalBridge(): ApprovalBridge {
    const queue: Waiting[] = [];
    const listeners = new Set<(pending: PendingReview | null) => void>();
    const resolvedListeners = new Set<(resolved: ResolvedReviewRecord) => void>();
    let pickerCounter = 0;

    const current = (): PendingReview | null => queue[0]?.review ?? null;

    const notify = (): void => {
        const pending = current();
        for (const listener of [...listeners]) listener(pending);
    };

    const announce = (resolved: ResolvedReviewRecord): void => {
        for (const listener of [...resolvedListeners]) listener(resolved);
    };

    /** Removes a settled entry; notifies only when the pending review changed. */
    const remove = (entry: Waiting): void => {
        const at = queue.indexOf(entry);
        if (at === -1) return;
        queue.splice(at, 1);
        if (at === 0) notify();
    };

    const enqueue = (entry: Waiting, first = false): void => {
        if (first) queue.unshift(entry);
        else queue.push(entry);
        if (first || queue.length === 1) notify();
    };

    const approver: Approver = (request, signal) =>
        new Promise<ApprovalDecision>((resolvePromise) => {
            const cancelled: ApprovalDecision = { outcome: "deny", reason: CANCELLED_REASON };
            if (signal.aborted) {
                resolvePromise(cancelled);
                return;
            }
            let settled = false;
            const settle = (decision: ApprovalDecision): void => {
                if (settled) return;
                settled = true;
                signal.removeEventListener("abort", onAbort);
                remove(entry);
                announce({ id: request.id, ...resolvedReviewOf(request, decision) });
                resolvePromise(decision);
            };
            const onAbort = (): void => settle(cancelled);
            const kind =
                request.kind === "shell" || request.kind === "plan" ? request.kind : "write";
            const entry: Waiting = {
                review: { kind, id: request.id, request, resolve: settle },
                cancel: onAbort,
            };
            signal.addEventListener("abort", onAbort, { once: true });
            enqueue(entry);
        });

    const pick = (title: string, options: PickerOption[], note?: string): Promise<string | null> =>
        new Promise<string | null>((resolvePromise) => {
            const id = `picker-${++pickerCounter}`;
            let settled = false;
            const settle = (choice: string | null): void => {
                if (settled) return;
                settled = true;
                remove(entry);
                const chosen = options.find((o) => o.id === choice);
                announce({
                    id,
                    kind: "picker",
                    summary: chosen ? `${title}: ${chosen.label}` : title,
                    status: chosen ? "selected" : "cancelled",
                });
                resolvePromise(chosen ? chosen.id : null);
            };
            const entry: Waiting = {
                review: { kind: "picker", id, title, note, options, resolve: settle },
                cancel: () => settle(null),
            };
            enqueue(entry);
        });

    /** A y/n question: `first` puts it ahead of everything already waiting. */
    const askYesNo = (
        review: (id: string, resolve: (answer: boolean | null) => void) => PendingReview,
        record: { kind: ResolvedReview["kind"]; summary: string },
        first = false
    ): Promise<boolean | null> =>
        new Promise<boolean | null>((resolvePromise) => {
            const id = `${record.kind}-${++pickerCounter}`;
            let settled = false;
            const settle = (answer: boolean | null): void => {
                if (settled) return;
                settled = true;
                remove(entry);
                announce({
                    id,
                    ...record,
                    status: answer === null ? "cancelled" : answer ? "accepted" : "declined",
                });
                resolvePromise(answer);
            };
            const entry: Waiting = { review: review(id, settle), cancel: () => settle(null) };
            enqueue(entry, first);
        });

    const askLearning = (): Promise<boolean | null> =>
        askYesNo((id, resolve) => ({ kind: "learning", id, resolve }), {
            kind: "learning",
            summary: "learn this project",
        });

    const askTrust = (inventory: TrustPromptInventory): Promise<boolean | null> =>
        askYesNo(
            (id, resolve) => ({ kind: "trust", id, inventory, resolve }),
            {
                kind: "trust",
                summary: `trust this project's hooks, MCP servers and approvals (${inventory.items.length})`,
            },
            true
        );

    /** A server's question, taken off the queue when the server gives up (`signal`). */
    const askServer = <T>(
        review: (id: string, resolve: (answer: T) => void) => PendingReview,
        cancelled: T,
        record: (answer: T) => ResolvedReview,
        signal: AbortSignal
    ): Promise<T> =>
        new Promise<T>((resolvePromise) => {
            const id = `mcp-${++pickerCounter}`;
            let settled = false;
            const settle = (answer: T): void => {
                if (settled) return;
                settled = true;
                signal.removeEventListener("abort", onAbort);
                remove(entry);
                announce({ id, ...record(answer) });
                resolvePromise(answer);
            };
            const onAbort = (): void => settle(cancelled);
            const entry: Waiting = { review: review(id, settle), cancel: onAbort };
            if (signal.aborted) {
                resolvePromise(cancelled);
                return;
            }
            signal.addEventListener("abort", onAbort, { once: true });
            enqueue(entry);
        });

    const askElicitation = (
        request: McpElicitation,
        signal: AbortSignal
    ): Promise<McpElicitationAnswer> =>
        askServer<McpElicitationAnswer>(
            (id, resolve) => ({ kind: "elicitation", id, request, resolve }),
            { action: "cancel" },
            (answer) => ({
                kind: "elicitation",
                summary: `${request.server} asked: ${request.message}`,
                status:
                    answer.action === "accept"
                        ? "accepted"
                        : answer.action === "decline"
                          ? "declined"
                          : "cancelled",
            }),
            signal
        );

    const askSampling = async (
        request: McpSamplingRequest,
        signal: AbortSignal
    ): Promise<boolean> =>
        (await askServer<boolean | null>(
            (id, resolve) => ({ kind: "sampling", id, request, resolve }),
            null,
            (answer) => ({
                kind: "sampling",
                summary: `${request.server} asked to use the model (up to ${request.maxTokens} tokens)`,
                status: answer === null ? "cancelled" : answer ? "accepted" : "denied",
            }),
            signal
        )) === true;

    const askSecret = (process: ProcessInfo, prompt: string): Promise<string | null> =>
        new Promise<string | null>((resolvePromise) => {
            const id = `secret-${++pickerCounter}`;
            let settled = false;
            const settle = (secret: string | null): void => {
                if (settled) return;
                settled = true;
                remove(entry);
                announce({
                    id,
                    kind: "secret",
                    summary: `${process.id} \`${oneLine(process.command, 60)}\` asked for a password`,
                    status: secret === null ? "declined" : "answered",
                });
                resolvePromise(secret);
            };
            const entry: Waiting = {
                review: { kind: "secret", id, process, prompt, resolve: settle },
                cancel: () => settle(null),
            };
            enqueue(entry);
        });

    return {
        approver,
        askSecret,
        askLearning,
        askTrust,
        askElicitation,
        askSampling,
        subscribe(listener) {
            listeners.add(listener);
            listener(current());
            return () => void listeners.delete(listener);
        },
        onResolved(listener) {
            resolvedListeners.add(listener);
            return () => void resolvedListeners.delete(listener);
        },
        current,
        size: () => queue.length,
        cancelAll() {
            if (queue.length === 0) return;
            // Take them all out first, so the App never shows a queued one as pending.
            const all = queue.splice(0);
            for (const entry of all) entry.cancel();
            notify();
        },
        pick,
    };
}
