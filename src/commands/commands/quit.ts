import type { CommandDefinition } from "../types";

export const quitCommand: CommandDefinition = {
    name: "quit",
    description: "Exit North",
    usage: "/quit",
    maxPositional: 0,
    async execute(ctx) {
        if (!ctx.interactive) return { message: "/quit does nothing in print mode" };
        ctx.exit();
        return { message: "Bye." };
    },
};
