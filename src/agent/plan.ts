import type { ToolCallBlock, ToolResultBlock, ToolSchema } from "../providers/types";
import type { ToolDisplay, ToolResult } from "../tools/types";
import { type ApprovalDriverDeps, ask } from "./approval-driver";

/** The tool the model calls in plan mode to put its plan before the user. */
export const PROPOSE_PLAN_TOOL = "propose_plan";

export const PROPOSE_PLAN_SCHEMA: ToolSchema = {
    name: PROPOSE_PLAN_TOOL,
    description:
        "Plan mode: propose your plan (Markdown: steps, files to change, how to verify) for the user to accept or reject. Changes and commands are refused until a plan is accepted; a rejection comes back with the user's feedback.",
    inputSchema: {
        type: "object",
        properties: { plan: { type: "string", description: "The plan in Markdown." } },
        required: ["plan"],
    },
};

/** How a propose_plan call reads in the transcript (the plan itself shows in its review). */
export const PROPOSE_PLAN_DISPLAY: ToolDisplay = { title: () => "Proposing a plan" };

export const PLAN_REQUIRED_MESSAGE =
    "PLAN_REQUIRED: this is plan mode. Propose a plan with propose_plan and wait for the user to accept it before changing files or running commands.";

/** The plan text of a propose_plan call, or null when the arguments do not carry one. */
export function planOf(input: unknown): string | null {
    if (typeof input !== "object" || input === null) return null;
    const plan = (input as { plan?: unknown }).plan;
    return typeof plan === "string" && plan.trim() ? plan : null;
}

/**
 * Puts a proposed plan before the user: accepted (changes are then allowed),
 * or rejected with the user's feedback for the model. `accepted` is the plan
 * when the user accepted it.
 */
export async function reviewPlan(
    call: ToolCallBlock,
    signal: AbortSignal,
    deps: Pick<ApprovalDriverDeps, "approver" | "logger" | "emit">
): Promise<{ result: ToolResult; accepted: string | null }> {
    const plan = planOf(call.input);
    if (!plan) {
        return {
            accepted: null,
            result: {
                ok: false,
                error: {
                    code: "invalid_args",
                    message: "propose_plan needs {plan: string} with the plan in Markdown",
                },
            },
        };
    }
    const decision = await ask(
        deps,
        {
            id: `approval-${call.id}`,
            kind: "plan",
            toolName: call.name,
            toolCallId: call.id,
            input: call.input,
            summary:
                plan
                    .split("\n")
                    .find((line) => line.trim())
                    ?.trim() ?? "plan",
            plan,
        },
        signal
    );
    if (decision.outcome === "deny") {
        return {
            accepted: null,
            result: {
                ok: true,
                data: {
                    accepted: false,
                    feedback: decision.reason ?? "The user rejected the plan without comment.",
                    next: "Revise the plan with this feedback and propose it again.",
                },
            },
        };
    }
    return {
        accepted: plan,
        result: {
            ok: true,
            data: { accepted: true, next: "The user accepted the plan: carry it out now." },
        },
    };
}

/**
 * Plan mode with nobody to review: the turn's first proposed plan ends the
 * run as its result, and none of the turn's other calls run. Null when the
 * turn proposed no plan.
 */
export function endWithPlan(
    calls: ToolCallBlock[]
): { plan: string; call: ToolCallBlock; results: ToolResultBlock[] } | null {
    const planCall = calls.find((c) => c.name === PROPOSE_PLAN_TOOL && planOf(c.input));
    if (!planCall) return null;
    return {
        plan: planOf(planCall.input) ?? "",
        call: planCall,
        results: calls.map((c) => ({
            type: "tool_result",
            toolCallId: c.id,
            content: JSON.stringify(
                c === planCall
                    ? { recorded: true, message: "The plan was handed to the user." }
                    : {
                          error: {
                              code: "cancelled",
                              message: "not run: plan mode ended with the plan",
                          },
                      }
            ),
            isError: c !== planCall,
        })),
    };
}
