import { type CommandDefinition, shown, submit } from "../types";

export const exportCommand: CommandDefinition = {
    name: "export",
    description:
        "Write the conversation as Markdown (default: north-<id>.md in ~/.north/exports, out of the repository)",
    usage: "/export [file]",
    maxPositional: 1,
    plan: (args) => submit({ type: "export", path: args.positional[0] }, shown),
};
