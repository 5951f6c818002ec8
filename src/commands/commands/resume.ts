import type { CommandDefinition } from "../types";

export const resumeCommand: CommandDefinition = {
    name: "resume",
    description: "Switch to a saved conversation by id",
    usage: "/resume <id>",
    maxPositional: 1,
    async execute(ctx, args) {
        const id = args.positional[0];
        if (!id)
            return {
                message: "/resume needs a conversation id (see /conversations)",
                isError: true,
            };
        return ctx.resume(id);
    },
};
