import { type CommandDefinition, result } from "../types";

export const quitCommand: CommandDefinition = {
    name: "quit",
    description: "Exit North",
    usage: "/quit",
    maxPositional: 0,
    plan: (_args, view) =>
        view.chat
            ? { kind: "quit", result: { message: "Bye." } }
            : result("/quit does nothing in print mode"),
};
