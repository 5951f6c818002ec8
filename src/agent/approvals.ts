import type { PermissionRules } from "../tools/permissions/rules";
import type { ApprovalPolicy, FileDiff } from "../tools/types";
import type { StandingOption } from "./approval-requirement";

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
    /** Shell: the command runs in the OS sandbox, which allows this much. */
    sandbox?: string;
    /** Write: the prepared changes. */
    diffs?: FileDiff[];
    /**
     * Write: the diffs' paths that are protected configuration (`.north/`,
     * `.mcp.json`, ...); such a review is never auto-accepted.
     */
    protectedPaths?: string[];
    /** Plan: the proposed plan in Markdown. */
    plan?: string;
    /** The ask rule that made this review appear (auto-approval did not count), as written. */
    askRule?: string;
    /** A web request's host ("always" allows it for the session); `summary` is the URL. */
    domain?: string;
    /**
     * Shell: why no standing answer ("don't ask again") is offered or kept: the
     * command writes git's internals or protected configuration (or a file only
     * known when it runs), or a rule reviews it whatever else allows it.
     */
    noStanding?: string;
    /**
     * What a "don't ask again" answer may keep, as the approval requirement
     * offered it; the review's menu lists these (front-ends that print
     * requests do not). An answer for anything else approves this call only.
     */
    standingOptions?: StandingOption[];
}

/**
 * Where a standing answer is kept: "personal" (the default) in North's data
 * folder, keyed by the project; "local" in the project's
 * `.north/settings.local.json`, only when the user picks that scope.
 */
export type StandingScope = "personal" | "local";

/**
 * `remember` picks one of the request's `standingOptions` (see
 * approval-requirement.ts): for a command, "exact" allows this exact string
 * from now on, "prefix" the offered `Bash(...)` pattern, both kept where
 * `scope` says among the places offered (personal by default); "all"
 * approves every command for the rest of this session only (kept nowhere).
 * For an edit, "all" switches the session to the `accept-edits` mode (shown,
 * and switched back with Shift+Tab), never a saved setting. A `remember`
 * the request did not offer approves this call only.
 */
export type ApprovalDecision =
    | { outcome: "approve"; remember?: "exact" | "prefix" | "all"; scope?: StandingScope }
    | { outcome: "deny"; reason?: string };

/** A front-end answers approval requests; the engine awaits the answer. */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** Used where no front-end can ask (print mode without flags). */
export const denyAll =
    (reason: string | ((request: ApprovalRequest) => string)): Approver =>
    async (request) => ({
        outcome: "deny",
        reason: typeof reason === "string" ? reason : reason(request),
    });

/** Standing auto-approval in force, for the status line: commands run unasked, edits land unreviewed. */
export interface StandingAutoApproval {
    commands: boolean;
    edits: boolean;
}

/**
 * The standing permissions, one source of the approval requirement
 * (approval-requirement.ts says in what order they count). The user's own
 * answers (personal store, `.north/settings.local.json`) hold without trust;
 * a project's `shellAutoApprove`, `allowedCommands` and `editsAutoAccept`
 * (set by hand in its settings: storage/settings/load.ts) only while trusted.
 */
export interface ApprovalSettings {
    isShellAutoApproved(): boolean;
    isCommandAllowed(command: string): boolean;
    /** Allows `command` exactly from now on, kept where `scope` says (default personal). */
    allowCommand(command: string, scope?: StandingScope): void;
    /** Every command approved for the rest of this session; saved nowhere. */
    approveAllCommandsForSession(): void;
    /** A setting (never an answer in the chat) accepts every edit; the mode is the run's. */
    isEditsAutoAccepted(): boolean;
    /**
     * Writes to protected configuration may land without a review. Only print
     * mode's `--allow-edits --allow-config-edits` grants it; absent means no.
     */
    areProtectedEditsAllowed?(): boolean;
    /** The permission rules in force (deny beats ask beats allow); absent: none. */
    permissionRules?: PermissionRules;
    /**
     * A standing answer can be kept in the project's `.north/settings.local.json`
     * now (only while the project is trusted); absent means yes.
     */
    keepsLocalAnswers?(): boolean;
    /** Reads standing answers again that another session may have changed (cheap when none did). */
    refreshStanding?(): void;
    /** Remembers a `Bash(pattern)` allow rule ("always" with a prefix), kept where `scope` says. */
    allowCommandPattern?(pattern: string, scope?: StandingScope): void;
    /** What flags grant for the whole run (`/permissions` lists them): `every command`, `--allow-shell`. */
    flagGrants?(): Array<{ text: string; flag: string }>;
}

/** No standing permissions: everything is asked. */
export function createNoStandingApprovals(): ApprovalSettings {
    return {
        isShellAutoApproved: () => false,
        isCommandAllowed: () => false,
        allowCommand: () => {},
        approveAllCommandsForSession: () => {},
        isEditsAutoAccepted: () => false,
    };
}
