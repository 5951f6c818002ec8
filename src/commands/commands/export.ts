import type { CommandDefinition } from "../types";

export const exportCommand: CommandDefinition = {
    name: "export",
    description: "Write the conversation as Markdown (default: north-<id>.md in the project)",
    usage: "/export [file]",
    maxPositional: 1,
    execute: (ctx, args) => ctx.exportMarkdown(args.positional[0]),
};
