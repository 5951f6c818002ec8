/**
 * Front-ends answer the host's `approval_request` events with the `approval`
 * op: the chat with the user's answer (its review is the approver here),
 * print mode and the Node API by policy. The approver's signal aborts when
 * the host settled the request itself (its run was cancelled).
 */
import type { Approver } from "./approvals";
import type { EngineHostPort } from "./protocol";

export function answerApprovalsWith(host: EngineHostPort, approver: Approver): () => void {
    const asking = new Map<string, AbortController>();
    return host.subscribe((event) => {
        if (event.type === "approval_decision") {
            asking.get(event.requestId)?.abort();
            asking.delete(event.requestId);
            return;
        }
        if (event.type !== "approval_request") return;
        const requestId = event.request.id;
        const settledElsewhere = new AbortController();
        asking.set(requestId, settledElsewhere);
        void approver(event.request, settledElsewhere.signal)
            .catch(() => ({ outcome: "deny" as const, reason: "the approval was interrupted" }))
            .then((decision) => {
                if (settledElsewhere.signal.aborted) return;
                return host.submit({ type: "approval", requestId, decision });
            });
    });
}
