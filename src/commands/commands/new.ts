import type { CommandDefinition } from "../types";

export const newCommand: CommandDefinition = {
    name: "new",
    description:
        "Start a new conversation (clears the transcript and summary; the shell keeps its directory)",
    usage: "/new",
    maxPositional: 0,
    async execute(ctx) {
        if (!ctx.interactive) {
            return {
                message:
                    "/new works in the chat; print mode runs its prompt in the conversation it started with (leave out --continue/--resume for a new one)",
                isError: true,
            };
        }
        await ctx.newConversation();
        return { message: "Started a new conversation." };
    },
};
