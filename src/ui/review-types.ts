import type { ApprovalDecision, ApprovalRequest } from "../agent/approvals";
import type { KeptFileDiff } from "./render/diff-rows";
import type { ProcessInfo } from "../tools/processes/types";
import type {
    McpElicitation,
    McpElicitationAnswer,
    McpSamplingRequest,
} from "../tools/mcp/client-requests";

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
          /** Plan mode: the model's plan; a rejection's reason is the user's feedback. */
          kind: "plan";
          id: string;
          request: ApprovalRequest;
          resolve: (decision: ApprovalDecision) => void;
      }
    | {
          /** The project ships hooks, MCP servers or approvals: trust it? (null: not now). */
          kind: "trust";
          id: string;
          inventory: TrustPromptInventory;
          resolve: (answer: boolean | null) => void;
      }
    | {
          /** First start in a project: learn it now? (null: asked again next time). */
          kind: "learning";
          id: string;
          resolve: (answer: boolean | null) => void;
      }
    | {
          /** An MCP server asks the user to fill in a form. */
          kind: "elicitation";
          id: string;
          request: McpElicitation;
          resolve: (answer: McpElicitationAnswer) => void;
      }
    | {
          /** An MCP server asks to run one request through the session's model (null: cancelled). */
          kind: "sampling";
          id: string;
          request: McpSamplingRequest;
          resolve: (approved: boolean | null) => void;
      }
    | {
          /**
           * A program in a terminal asks for a password: typed into a masked
           * field, it goes to the process only (null: declined).
           */
          kind: "secret";
          id: string;
          process: ProcessInfo;
          /** The prompt as the program printed it ("[sudo] password for ann:"). */
          prompt: string;
          resolve: (secret: string | null) => void;
      }
    | {
          kind: "picker";
          id: string;
          title: string;
          /** Shown under the title (what choosing entails); lines split at "\n". */
          note?: string;
          options: Array<{ id: string; label: string; hint?: string }>;
          resolve: (choice: string | null) => void;
      };

/** What a project's own configuration would run or allow, for the trust question. */
export interface TrustPromptInventory {
    repoRoot: string;
    items: ReadonlyArray<{ kind: string; source: string; text: string }>;
}

/**
 * How a resolved review is remembered in the transcript: one line, plus what
 * was approved (an accepted edit's diff, a plan's text) to read again.
 */
export interface ResolvedReview {
    kind:
        | "write"
        | "shell"
        | "picker"
        | "plan"
        | "learning"
        | "trust"
        | "elicitation"
        | "sampling"
        | "secret";
    summary: string;
    /**
     * "accepted", "always", "auto", "rejected", "ran", "denied", "selected",
     * "declined", "cancelled", "answered" (a password went to a process).
     */
    status: string;
    /** An accepted edit's diff, bounded (`keepDiffs`). */
    diffs?: KeptFileDiff[];
    /** A plan's Markdown. */
    plan?: string;
    /**
     * The tool call reviewed (an edit, a command): its transcript entry shows
     * the outcome, so the decision reads with its command, not after its output.
     */
    toolCallId?: string;
}
