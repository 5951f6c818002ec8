import type { ApprovalPolicy } from "../tools/types";

/** Something only the user (or a policy standing in for them) may allow. */
export interface ApprovalRequest {
    id: string;
    kind: Exclude<ApprovalPolicy, "none">;
    toolName: string;
    toolCallId: string;
    input: unknown;
    /** One line a front-end can show: the command, or the file being edited. */
    summary: string;
}

export type ApprovalDecision =
    | { outcome: "approve"; remember?: "exact" | "all" }
    | { outcome: "deny"; reason?: string };

/** A front-end answers approval requests; the engine awaits the answer. */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** Used where no front-end can ask (print mode without flags). */
export const denyAll =
    (reason: string): Approver =>
    async () => ({ outcome: "deny", reason });
