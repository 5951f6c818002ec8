import type { ToolSchema } from "../providers/types";

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

export const PLAN_REQUIRED_MESSAGE =
    "PLAN_REQUIRED: this is plan mode. Propose a plan with propose_plan and wait for the user to accept it before changing files or running commands.";

/** The plan text of a propose_plan call, or null when the arguments do not carry one. */
export function planOf(input: unknown): string | null {
    if (typeof input !== "object" || input === null) return null;
    const plan = (input as { plan?: unknown }).plan;
    return typeof plan === "string" && plan.trim() ? plan : null;
}
