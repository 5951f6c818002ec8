import type { CommandDefinition } from "../types";

export const newCommand: CommandDefinition = {
    name: "new",
    description:
        "Start a new conversation (clears the transcript and summary; the shell keeps its directory)",
    usage: "/new",
    maxPositional: 0,
    async execute(ctx) {
        await ctx.newConversation();
        return { message: "Started a new conversation." };
    },
};
