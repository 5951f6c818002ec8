import { type CommandDefinition, failure, result } from "../types";

export const copyCommand: CommandDefinition = {
    name: "copy",
    description: "Copy the last answer to the clipboard (/copy 2: the one before it)",
    usage: "/copy [N]",
    maxPositional: 1,
    plan: (args, view) => {
        if (!view.chat)
            return result("/copy is for the chat; print mode writes the answer to stdout");
        const given = args.positional[0];
        const nth = given === undefined ? 1 : Number(given);
        if (!Number.isInteger(nth) || nth < 1) {
            return failure(
                `/copy takes the number of an answer counted from the last (1, 2, …), not "${given}"`
            );
        }
        return { kind: "copy", nth };
    },
};
