import type { CommandDefinition } from "../types";

export const conversationsCommand: CommandDefinition = {
    name: "conversations",
    description: "Pick a saved conversation to switch to",
    usage: "/conversations",
    maxPositional: 0,
    async execute(ctx) {
        const options = await ctx.listConversations();
        if (options.length === 0) return { message: "No saved conversations yet." };
        if (!ctx.interactive) {
            return {
                message: options
                    .map((o) => `${o.label}${o.hint ? `  (${o.hint})` : ""}`)
                    .join("\n"),
            };
        }
        const choice = await ctx.pick("Switch to conversation", options);
        if (!choice) return { message: "Stayed in this conversation." };
        return ctx.resume(choice);
    },
};
