import type { ApprovalPolicy, FileDiff } from "../tools/types";

/** Something only the user (or a policy standing in for them) may allow. */
export interface ApprovalRequest {
    id: string;
    /** `plan`: a proposed plan (plan mode); a denial's reason is the user's feedback. */
    kind: Exclude<ApprovalPolicy, "none"> | "plan";
    toolName: string;
    toolCallId: string;
    input: unknown;
    /** One line a front-end can show: the command, or the file being edited. */
    summary: string;
    /** Shell: the exact command string. */
    command?: string;
    /** Shell: the absolute directory the command will start in, when the tool knows it. */
    cwd?: string;
    /** Write: the prepared changes. */
    diffs?: FileDiff[];
    /**
     * Write: the diffs' paths that are protected configuration (`.north/`,
     * `.mcp.json`, ...); such a review is never auto-accepted.
     */
    protectedPaths?: string[];
    /** Plan: the proposed plan in Markdown. */
    plan?: string;
}

/**
 * `remember`: for a command, "exact" adds this exact string to the project
 * allowlist and "all" turns on auto-approve for every command; for an edit,
 * "all" turns on auto-accept for every edit.
 */
export type ApprovalDecision =
    { outcome: "approve"; remember?: "exact" | "all" } | { outcome: "deny"; reason?: string };

/** A front-end answers approval requests; the engine awaits the answer. */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** Used where no front-end can ask (print mode without flags). */
export const denyAll =
    (reason: string | ((request: ApprovalRequest) => string)): Approver =>
    async (request) => ({
        outcome: "deny",
        reason: typeof reason === "string" ? reason : reason(request),
    });

/**
 * The project's standing permissions (`shellAutoApprove`, `allowedCommands`,
 * `editsAutoAccept` in its settings: storage/settings/load.ts), consulted
 * before asking, in the spec's order: auto-approve, then the exact-match
 * allowlist, then the user.
 */
export interface ApprovalSettings {
    isShellAutoApproved(): boolean;
    isCommandAllowed(command: string): boolean;
    allowCommand(command: string): void;
    enableShellAutoApprove(): void;
    isEditsAutoAccepted(): boolean;
    enableEditsAutoAccept(): void;
    /**
     * Writes to protected configuration may land without a review. Only print
     * mode's `--allow-edits --allow-config-edits` grants it; absent means no.
     */
    areProtectedEditsAllowed?(): boolean;
}

/** No standing permissions: everything is asked. */
export function createNoStandingApprovals(): ApprovalSettings {
    return {
        isShellAutoApproved: () => false,
        isCommandAllowed: () => false,
        allowCommand: () => {},
        enableShellAutoApprove: () => {},
        isEditsAutoAccepted: () => false,
        enableEditsAutoAccept: () => {},
    };
}
