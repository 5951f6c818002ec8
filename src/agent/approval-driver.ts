/**
 * The one driver of a call's approval: given its requirement (the value
 * approval-requirement.ts computes), it refuses a forbidden call, lets a
 * skipped one through, and otherwise asks the approver and keeps what the
 * answer remembers, only as one of the standing options the requirement
 * offered. The attempt itself (run the command, apply the edit) is the
 * caller's; the sandbox is the shell tool's, named in the request.
 */
import type { Logger } from "../storage/logger";
import type { ToolResult } from "../tools/types";
import type {
    ApprovalDecision,
    ApprovalRequest,
    ApprovalSettings,
    Approver,
    StandingScope,
} from "./approvals";
import type {
    ApprovalRequirement,
    ApprovedBy,
    EditsMode,
    Forbidden,
    StandingOption,
} from "./approval-requirement";
import type { EngineEvent } from "./events";

export interface ApprovalDriverDeps {
    approver: Approver;
    settings: ApprovalSettings;
    editsMode?: EditsMode;
    logger: Logger;
    emit: (event: EngineEvent) => void;
}

export function denied(message: string): ToolResult<never> {
    return { ok: false, error: { code: "denied", message } };
}

/** A forbidden call's result: the model reads why. */
export function refusalOf(forbidden: Forbidden): ToolResult<never> {
    return { ok: false, error: { code: forbidden.code, message: forbidden.reason } };
}

/** Shows `request`, awaits the approver, and reports both; an interrupted or cancelled answer is a denial. */
export async function ask(
    deps: Pick<ApprovalDriverDeps, "approver" | "logger" | "emit">,
    request: ApprovalRequest,
    signal: AbortSignal
): Promise<ApprovalDecision> {
    deps.emit({ type: "approval_request", request });
    deps.logger.info(request.kind === "shell" ? "shell_review_shown" : "write_review_shown", {
        toolName: request.toolName,
    });
    let decision: ApprovalDecision;
    try {
        decision = await deps.approver(request, signal);
    } catch {
        decision = { outcome: "deny", reason: "the approval was interrupted" };
    }
    if (signal.aborted && decision.outcome === "approve") {
        decision = { outcome: "deny", reason: "cancelled by the user" };
    }
    deps.emit({ type: "approval_decision", requestId: request.id, decision });
    deps.logger.info(request.kind === "shell" ? "shell_review_decision" : "write_review_decision", {
        toolName: request.toolName,
        outcome: decision.outcome,
        remember: decision.outcome === "approve" ? decision.remember : undefined,
    });
    return decision;
}

/** The request's fields that carry the requirement: why it is asked and what "always" may keep. */
export function requestFields(
    requirement: Extract<ApprovalRequirement, { kind: "needs-approval" }>,
    kind: ApprovalRequest["kind"]
): Partial<ApprovalRequest> {
    const fields: Partial<ApprovalRequest> = { standingOptions: requirement.standingOptions };
    if (requirement.askRule !== undefined) fields.askRule = requirement.askRule;
    if (kind !== "shell") return fields;
    if (requirement.noStanding !== undefined) fields.noStanding = requirement.noStanding;
    return fields;
}

/**
 * The offered option an answer picks, with the place it is kept (undefined:
 * the session, or the option's default); none when the answer remembers
 * nothing, or an option or place the requirement did not offer.
 */
export function chosenOption(
    options: readonly StandingOption[],
    decision: ApprovalDecision
): { option: StandingOption; scope: StandingScope | undefined } | undefined {
    if (decision.outcome !== "approve" || decision.remember === undefined) return undefined;
    const option = options.find((o) => o.remember === decision.remember);
    if (!option) return undefined;
    if (option.keptIn === "session") return { option, scope: undefined };
    const scope = decision.scope ?? option.keptIn[0];
    return scope !== undefined && option.keptIn.includes(scope) ? { option, scope } : undefined;
}

/** Keeps what `option` grants, at `scope` (one of the places it offered). */
function keepStanding(
    option: StandingOption,
    scope: StandingScope | undefined,
    deps: Pick<ApprovalDriverDeps, "settings" | "editsMode">
): void {
    const { settings } = deps;
    const { grant } = option;
    switch (grant.kind) {
        case "exact":
            settings.allowCommand(grant.key, scope);
            return;
        case "prefix":
            settings.allowCommandPattern?.(grant.pattern, scope);
            return;
        case "host":
            settings.permissionRules?.add("allow", grant.rule, "this session");
            return;
        case "every-command":
            settings.approveAllCommandsForSession();
            return;
        case "every-edit":
            deps.editsMode?.acceptFromNowOn();
            return;
        default:
            grant satisfies never;
    }
}

/** What the driver settled: the call may run (`approvedBy`), or its refusal for the model. */
export type DriverOutcome =
    { run: true; approvedBy: ApprovedBy | "user" } | { run: false; refusal: ToolResult<never> };

/**
 * Settles `requirement`: refuses, skips, or asks with `request` (built by the
 * caller from the subject and `requestFields`) and keeps the chosen standing
 * option. `deniedBase` is the refusal when the user gives no reason.
 */
export async function settleApproval(
    requirement: ApprovalRequirement,
    request: () => ApprovalRequest,
    deniedBase: string,
    signal: AbortSignal,
    deps: ApprovalDriverDeps
): Promise<DriverOutcome> {
    if (requirement.kind === "forbidden") return { run: false, refusal: refusalOf(requirement) };
    if (requirement.kind === "skip") return { run: true, approvedBy: requirement.approvedBy };
    const decision = await ask(deps, request(), signal);
    if (decision.outcome === "deny")
        return { run: false, refusal: denied(decision.reason ?? deniedBase) };
    // An answer for an option (or place) the requirement did not offer approves this call
    // only, silently as before: the printed formats carry no warning for it.
    const chosen = chosenOption(requirement.standingOptions, decision);
    if (chosen) keepStanding(chosen.option, chosen.scope, deps);
    return { run: true, approvedBy: "user" };
}
