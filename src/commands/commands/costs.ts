import type { CommandDefinition } from "../types";

export const costsCommand: CommandDefinition = {
    name: "costs",
    description: "Show costs by provider and model, this session and all time",
    usage: "/costs",
    maxPositional: 0,
    execute: (ctx) => ctx.showCosts(),
};
