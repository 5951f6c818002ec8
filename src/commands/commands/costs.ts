import type { CostFigures } from "../../agent/protocol";
import { formatCost } from "../../providers/catalogue";
import { type CommandDefinition, result, submit } from "../types";

/** Print mode's `/costs`: all-time spend by model. */
function costLines(figures: CostFigures): string {
    const lines = figures.allTime.map(
        (c) =>
            `${c.provider}/${c.model}: ${c.inputTokens} in, ${c.outputTokens} out, ${formatCost(c.costUsd)}${c.unpricedRequests ? ` (+${c.unpricedRequests} unpriced)` : ""}`
    );
    return [`All time: ${formatCost(figures.allTimeUsd)}`, ...lines].join("\n");
}

export const costsCommand: CommandDefinition = {
    name: "costs",
    description: "Show costs by provider and model, this session and all time",
    usage: "/costs",
    maxPositional: 0,
    // The chat opens its costs dialog on this op's reply.
    plan: (_args, view) =>
        submit({ type: "costs" }, (figures) =>
            result(
                view.chat
                    ? `Session ${formatCost(figures.sessionUsd)} · all time ${formatCost(figures.allTimeUsd)} (Esc or Q closes the dialog)`
                    : costLines(figures)
            )
        ),
};
