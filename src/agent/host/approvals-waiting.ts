/**
 * Approval requests waiting for an `approval` op. A request waits from its
 * `approval_request` event (the host hears it before any front-end, so an
 * answer given from the event itself finds it) until it is answered, its
 * run is cancelled, or the host closes.
 */
import type { ApprovalDecision, ApprovalRequest, Approver } from "../approvals";

interface Waiting {
    request: ApprovalRequest;
    decided: Promise<ApprovalDecision>;
    settle(decision: ApprovalDecision): void;
}

export class WaitingApprovals {
    private readonly waiting = new Map<string, Waiting>();
    private closedReason: string | null = null;

    /** The host's `approval_request` listener. */
    opened(request: ApprovalRequest): void {
        let settle!: (decision: ApprovalDecision) => void;
        const decided = new Promise<ApprovalDecision>((resolve) => (settle = resolve));
        this.waiting.set(request.id, { request, decided, settle });
        if (this.closedReason !== null)
            this.answer(request.id, { outcome: "deny", reason: this.closedReason });
    }

    /** The approver every session of the host asks: it waits for the request's answer. */
    readonly approver: Approver = (request, signal) => {
        const entry = this.waiting.get(request.id);
        if (!entry) return Promise.resolve({ outcome: "deny", reason: "the approval was lost" });
        const onAbort = (): void =>
            void this.answer(request.id, { outcome: "deny", reason: "cancelled" });
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
        return entry.decided.finally(() => signal.removeEventListener("abort", onAbort));
    };

    answer(id: string, decision: ApprovalDecision): { ok: true } | { ok: false; error: string } {
        const entry = this.waiting.get(id);
        if (!entry) return { ok: false, error: `no approval request is waiting with id "${id}"` };
        this.waiting.delete(id);
        entry.settle(decision);
        return { ok: true };
    }

    /** Nobody can answer any more: waiting and later requests are denied with `reason`. */
    close(reason: string): void {
        this.closedReason = reason;
        for (const id of [...this.waiting.keys()]) this.answer(id, { outcome: "deny", reason });
    }
}
