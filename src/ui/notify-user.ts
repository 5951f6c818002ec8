/**
 * Connects the chat to the notifier (terminal/notify.ts): an answer's start
 * and end come from the engine's events, a waiting review from the approval
 * bridge. Reviews the user opened (pickers) or that ask at start (trust,
 * learning) do not notify: the user is there.
 */
import type { EngineHostPort } from "../agent/protocol";
import type { ApprovalBridge } from "./approval-bridge";
import type { PendingReview } from "./review-types";
import type { Notifier } from "./terminal/notify";

const WAITING: Partial<Record<PendingReview["kind"], string>> = {
    write: "an edit",
    shell: "a command",
    plan: "a plan",
    elicitation: "an MCP server's question",
    sampling: "an MCP server's request",
    secret: "a password prompt",
};

/** Starts notifying; returns the unsubscribe. */
export function notifyUser(
    notifier: Notifier,
    host: Pick<EngineHostPort, "subscribe">,
    bridge: Pick<ApprovalBridge, "subscribe">
): () => void {
    const offEvents = host.subscribe((event) => {
        if (event.type === "run_start") notifier.runStarted();
        // An answer the user stopped needs no word.
        else if (event.type === "run_end") notifier.runEnded(event.result.subtype !== "cancelled");
    });
    let lastReviewId: string | null = null;
    const offReviews = bridge.subscribe((pending) => {
        if (!pending || pending.id === lastReviewId) return;
        lastReviewId = pending.id;
        const what = WAITING[pending.kind];
        if (what) notifier.reviewWaiting(what);
    });
    return () => {
        offEvents();
        offReviews();
    };
}
