/**
 * The options of the one review menu every consent review shows (edit,
 * command, web fetch, MCP call, plan, trust): the chat's menu
 * (ui/reviews/review-options.ts) and the editor's permission requests
 * (cli/acp/permissions.ts) offer the same choices with the same words.
 *
 * Option 1 grants the least ("Yes, once"); a standing option says what it
 * grants and where it is kept, and Tab toggles that place; the last option is
 * always the refusal, which Esc reaches and which may take a one-line reason.
 */
import { sanitizeLine } from "../util/display-line";
import type { StandingOption } from "./approval-requirement";
import type { ApprovalDecision, ApprovalRequest, StandingScope } from "./approvals";

/** A refusal's reason is cut here (the model reads it; the API and stream-json refuse longer). */
export const MAX_REFUSAL_REASON_CHARS = 2000;

export interface MenuOption<T> {
    /** What choosing it does, in words; a standing option's depends on where it is kept. */
    label(scope: StandingScope): string;
    /**
     * It grants something beyond this request, kept at `scope`, and Tab toggles
     * that place; unset when only one place can keep it (an untrusted project's
     * local file is not written, so it is not offered).
     */
    standing?: boolean;
    /** The refusal: it opens a reason field first when `asksReason`. */
    refusal?: { asksReason: boolean };
    answer(scope: StandingScope, reason?: string): T;
}

/** Where a standing answer is kept, as the menu says it. */
export function standingPlace(scope: StandingScope): string {
    return scope === "local" ? "kept in .north/settings.local.json" : "kept in ~/.north for you";
}

const code = (text: string): string => `\`${sanitizeLine(text)}\``;

/** Longer commands are named by reference: the review shows them whole just above. */
const MAX_INLINE_COMMAND = 60;

/** A command as a standing option names it: inline when short and one line. */
function exactCommand(command: string): string {
    return command.length > MAX_INLINE_COMMAND || /[\r\n]/.test(command)
        ? "this exact command"
        : code(command);
}

const SAID = "; they said what to do instead: ";

/** A refusal as the model reads it: `base`, then the user's own words when they gave some. */
export function refusalReason(base: string, reason: string | undefined): string {
    return reason === undefined ? base : `${base}${SAID}${reason}`;
}

/** The user's own words in a refusal `refusalReason` made, if any (for the transcript). */
export function refusalWords(reason: string | undefined): string | undefined {
    const at = reason?.indexOf(SAID) ?? -1;
    return reason === undefined || at < 0 ? undefined : reason.slice(at + SAID.length);
}

const refuse = (base: string): MenuOption<ApprovalDecision> => ({
    label: () => "No, and tell North what to do instead",
    refusal: { asksReason: true },
    answer: (_scope, reason) => ({ outcome: "deny", reason: refusalReason(base, reason) }),
});

const once = (label: string): MenuOption<ApprovalDecision> => ({
    label: () => label,
    answer: () => ({ outcome: "approve" }),
});

/** A standing option of the request as the menu offers it; Tab toggles its place when it has two. */
function standingEntry(option: StandingOption): MenuOption<ApprovalDecision> {
    const { grant, remember } = option;
    const places = option.keptIn === "session" ? [] : option.keptIn;
    const scoped = (grants: string): MenuOption<ApprovalDecision> => ({
        label: (scope) => `Yes, and don't ask again for ${grants} (${standingPlace(scope)})`,
        standing: places.length > 1,
        answer: (scope) => ({
            outcome: "approve",
            remember,
            scope: places.includes(scope) ? scope : (places[0] ?? "personal"),
        }),
    });
    switch (grant.kind) {
        case "exact":
            return scoped(
                `${grant.command === undefined ? code(grant.key) : exactCommand(grant.command)} in this project`
            );
        case "prefix":
            return scoped(
                `commands starting ${code(grant.pattern.replace(/:\*$/, ""))} in this project`
            );
        case "host":
            return {
                label: () => `Yes, and don't ask again for ${code(grant.host)} in this session`,
                answer: () => ({ outcome: "approve", remember }),
            };
        case "every-command":
            return {
                label: () => "Yes, and don't ask again for any command this session",
                answer: () => ({ outcome: "approve", remember }),
            };
        case "every-edit":
            return {
                label: () => "Yes, and accept all edits this session (Shift+Tab to switch back)",
                answer: () => ({ outcome: "approve", remember }),
            };
        default:
            return grant satisfies never;
    }
}

/** What the options of an approval request depend on. */
export type MenuRequest = Pick<ApprovalRequest, "kind" | "toolName"> &
    Partial<Pick<ApprovalRequest, "command" | "domain">> & {
        /** The request's standing options (absent: none is offered). */
        standingOptions?: readonly StandingOption[];
    };

/** Option 1 and the refusal of a request, by what it asks. */
function onceAndRefusal(request: MenuRequest): [string, string] {
    if (request.kind === "write")
        return ["Yes, make this edit", "the user rejected this edit; nothing was written"];
    if (request.domain !== undefined) return ["Yes, fetch it once", "the user denied this fetch"];
    if (request.command === undefined)
        return ["Yes, call it once", "the user denied this tool call"];
    return ["Yes, run it once", "the user denied this command"];
}

/**
 * The options of a pending approval request: once, then each standing option
 * the request's requirement offered (agent/approval-requirement.ts), then no.
 */
export function approvalOptions(request: MenuRequest): MenuOption<ApprovalDecision>[] {
    if (request.kind === "plan") {
        return [
            once("Yes, start on this plan"),
            {
                label: () => "No, keep planning, and tell North what to change",
                refusal: { asksReason: true },
                // The plan's reason is the user's feedback, read as is (agent/plan.ts).
                answer: (_scope, reason) => ({
                    outcome: "deny",
                    ...(reason === undefined ? {} : { reason }),
                }),
            },
        ];
    }
    const [onceLabel, refusal] = onceAndRefusal(request);
    const standing = (request.standingOptions ?? []).filter((o) => o.inMenu).map(standingEntry);
    return [once(onceLabel), ...standing, refuse(refusal)];
}

/** The trust question's options: true trusts; false starts without it and asks again next time. */
export function trustOptions(): MenuOption<boolean>[] {
    return [
        { label: () => "Yes, trust this project", answer: () => true },
        {
            label: () => "No, start without its configuration (asks again next time)",
            refusal: { asksReason: false },
            answer: () => false,
        },
    ];
}

/** An MCP server's sampling request: true runs it through the model once. */
export function samplingOptions(): MenuOption<boolean>[] {
    return [
        { label: () => "Yes, run this one request through the model", answer: () => true },
        { label: () => "No, deny it", refusal: { asksReason: false }, answer: () => false },
    ];
}
