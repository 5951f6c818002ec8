/**
 * North's reviews as `session/request_permission` questions. The options are
 * the consent menu's (agent/approval-menu.ts) with its words: allow once, each
 * standing choice the menu offers as "allow always" whose name says what it
 * grants and where it is kept (the editor has no Tab to toggle the place, so
 * a choice the menu can keep in two places is offered twice), and the
 * refusal. The editor draws the buttons, so the scope in the names is the
 * safeguard. An answer North did not offer, or a cancelled prompt, approves
 * nothing.
 */
import { randomUUID } from "node:crypto";
import type {
    PermissionOption,
    RequestPermissionOutcome,
    ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import { type MenuOption, approvalOptions } from "../../agent/approval-menu";
import type { StandingOption } from "../../agent/approval-requirement";
import type { ApprovalDecision, ApprovalRequest, StandingScope } from "../../agent/approvals";
import { type TrustAnswer, type TrustInventory, summarizeInventory } from "../project-trust";
import { fenced, textContent } from "./tool-call-view";

export interface PermissionQuestion {
    options: PermissionOption[];
    /** The decision the editor's answer stands for. */
    answer(outcome: RequestPermissionOutcome): ApprovalDecision;
}

export interface TrustQuestion {
    toolCall: ToolCallUpdate;
    options: PermissionOption[];
    answer(outcome: RequestPermissionOutcome): TrustAnswer;
}

/** ACP carries no reason with a rejection: the model is told so, and where the reason may come from. */
export const EDITOR_REFUSAL_NOTE =
    "They answered in their editor, which sends no reason: their next message may say why or what to do instead.";

const CANCELLED: ApprovalDecision = {
    outcome: "deny",
    reason: "the prompt was cancelled in the editor before the user answered",
};

const NOT_OFFERED: ApprovalDecision = {
    outcome: "deny",
    reason: "the editor answered with a choice North did not offer; nothing was approved",
};

/** One option of the question and the decision it stands for. */
interface Choice {
    option: PermissionOption;
    decision: ApprovalDecision;
}

/** The words of a standing option where the chat's differ (the editor has no Shift+Tab). */
function standingName(
    option: MenuOption<ApprovalDecision>,
    standing: StandingOption,
    scope: StandingScope
) {
    if (standing.grant.kind === "every-edit") {
        return "Yes, and accept all edits this session (the mode switches to accept edits)";
    }
    return option.label(scope);
}

function refusalDecision(refusal: MenuOption<ApprovalDecision>): ApprovalDecision {
    const decision = refusal.answer("personal");
    if (decision.outcome !== "deny") return decision;
    const base = decision.reason ?? "the user refused";
    return { outcome: "deny", reason: `${base}. ${EDITOR_REFUSAL_NOTE}` };
}

function planChoices(): Choice[] {
    return [
        {
            option: { optionId: "allow-once", name: "Yes, start on this plan", kind: "allow_once" },
            decision: { outcome: "approve" },
        },
        {
            option: { optionId: "reject-once", name: "No, keep planning", kind: "reject_once" },
            decision: {
                outcome: "deny",
                // Without words to revise by, a new plan would only ask again: the model waits.
                reason: "The user wants to keep planning and will say what to change in their next message (their editor sends no reason with a rejection). End your turn now; do not propose a plan again until they have.",
            },
        },
    ];
}

function menuChoices(request: ApprovalRequest): Choice[] {
    const menu = approvalOptions(request);
    const once = menu[0];
    const refusal = menu.at(-1);
    if (!once || !refusal || menu.length < 2) return [];
    // The menu lists the request's in-menu standing options between once and the refusal, in order.
    const standing = (request.standingOptions ?? []).filter((o) => o.inMenu);
    const choices: Choice[] = [
        {
            option: { optionId: "allow-once", name: once.label("personal"), kind: "allow_once" },
            decision: once.answer("personal"),
        },
    ];
    menu.slice(1, -1).forEach((option, index) => {
        const offered = standing[index];
        if (!offered) return;
        const id = `allow-always-${offered.remember}`;
        const scopes: StandingScope[] = option.standing ? ["personal", "local"] : ["personal"];
        for (const scope of scopes) {
            choices.push({
                option: {
                    optionId: scope === "local" ? `${id}-local` : id,
                    name: standingName(option, offered, scope),
                    kind: "allow_always",
                },
                decision: option.answer(scope),
            });
        }
    });
    choices.push({
        option: {
            optionId: "reject-once",
            name: "No, and tell North what to do instead in your next message",
            kind: "reject_once",
        },
        decision: refusalDecision(refusal),
    });
    return choices;
}

/** The question an approval request becomes; North keeps no standing refusal, so there is no reject_always. */
export function permissionQuestion(request: ApprovalRequest): PermissionQuestion {
    const choices = request.kind === "plan" ? planChoices() : menuChoices(request);
    return {
        options: choices.map((c) => c.option),
        answer(outcome) {
            if (outcome.outcome === "cancelled") return CANCELLED;
            const chosen = choices.find((c) => c.option.optionId === outcome.optionId);
            return chosen ? chosen.decision : NOT_OFFERED;
        },
    };
}

const TRUST_OPTIONS: Array<{ option: PermissionOption; answer: TrustAnswer }> = [
    {
        option: { optionId: "trust-once", name: "Trust for this session", kind: "allow_once" },
        answer: "trust-once",
    },
    {
        option: {
            optionId: "trust",
            name: "Trust and remember (until these files change)",
            kind: "allow_always",
        },
        answer: "trust",
    },
    {
        option: {
            optionId: "untrusted",
            name: "Don't trust: skip its configuration",
            kind: "reject_once",
        },
        answer: "untrusted",
    },
];

/** Every item of the inventory, one per line, as the chat's trust prompt lists them. */
function inventoryText(inventory: TrustInventory): string {
    const lines = inventory.items.map((item) => `${item.kind}  ${item.source}: ${item.text}`);
    return [
        `This project's own configuration would run or allow: ${summarizeInventory(inventory)}.`,
        fenced(lines.join("\n")),
        "Trusting it lets these run in this session; without trust North starts without them.",
    ].join("\n\n");
}

/** The trust question, asked on a call of its own before the first prompt's work. */
export function trustQuestion(inventory: TrustInventory): TrustQuestion {
    return {
        toolCall: {
            toolCallId: `north-trust-${randomUUID()}`,
            title: "Trust this project's configuration",
            kind: "other",
            status: "pending",
            content: [textContent(inventoryText(inventory))],
        },
        options: TRUST_OPTIONS.map((t) => t.option),
        answer(outcome) {
            if (outcome.outcome === "cancelled") return "untrusted";
            return (
                TRUST_OPTIONS.find((t) => t.option.optionId === outcome.optionId)?.answer ??
                "untrusted"
            );
        },
    };
}
