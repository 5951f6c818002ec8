import type { CostFigures } from "../../agent/protocol";
import { formatCost } from "../../providers/catalogue";
import { type CommandDefinition, result, submit } from "../types";

/** ", 3 web searches" when this conversation's provider searched the web. */
function searchesNote(figures: CostFigures): string {
    const searches = figures.session.reduce((n, row) => n + (row.webSearches ?? 0), 0);
    return searches > 0 ? `, ${searches} web search${searches === 1 ? "" : "es"}` : "";
}

/** Print mode's `/costs`: all-time spend by model. */
function costLines(figures: CostFigures): string {
    const lines = figures.allTime.map(
        (c) =>
            `${c.provider}/${c.model}: ${c.inputTokens} in, ${c.outputTokens} out, ${formatCost(c.costUsd)}${c.unpricedRequests ? ` (+${c.unpricedRequests} unpriced)` : ""}`
    );
    const searches = searchesNote(figures);
    // The session's line only says something new when its provider searched the web.
    const session = searches ? [`Session: ${formatCost(figures.sessionUsd)}${searches}`] : [];
    return [...session, `All time: ${formatCost(figures.allTimeUsd)}`, ...lines].join("\n");
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
                    ? `Session ${formatCost(figures.sessionUsd)}${searchesNote(figures)} · all time ${formatCost(figures.allTimeUsd)} (Esc or Q closes the dialog)`
                    : costLines(figures)
            )
        ),
};
