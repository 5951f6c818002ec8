import type { ApprovalDecision, ApprovalRequest } from "../agent/approvals";

/**
 * A review waiting for the user, as the App renders it. The approval bridge
 * (ui/approval-bridge.ts) turns engine approval requests into these and
 * resolves the engine's promise with the decision; the App only renders the
 * pending one and routes keys to it.
 */
export type PendingReview =
    | {
          kind: "write";
          id: string;
          request: ApprovalRequest;
          resolve: (decision: ApprovalDecision) => void;
      }
    | {
          kind: "shell";
          id: string;
          request: ApprovalRequest;
          resolve: (decision: ApprovalDecision) => void;
      }
    | {
          kind: "picker";
          id: string;
          title: string;
          options: Array<{ id: string; label: string; hint?: string }>;
          resolve: (choice: string | null) => void;
      };

/** How a resolved review is remembered in the transcript (one line). */
export interface ResolvedReview {
    kind: "write" | "shell" | "picker";
    summary: string;
    /** "accepted", "always", "auto", "rejected", "ran", "denied", "selected", "cancelled". */
    status: string;
}
