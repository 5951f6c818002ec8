import { type CommandDefinition, failure, shown, submit } from "../types";

export const resumeCommand: CommandDefinition = {
    name: "resume",
    description: "Switch to a saved conversation by id",
    usage: "/resume <id>",
    maxPositional: 1,
    plan(args, view) {
        const id = args.positional[0];
        if (!id) return failure("/resume needs a conversation id (see /conversations)");
        if (!view.chat) {
            return failure(`use north -p --resume ${id} "PROMPT" to continue a conversation`);
        }
        return submit({ type: "resume", id }, shown);
    },
};
