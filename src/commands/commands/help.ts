import type { CommandDefinition } from "../types";

export const helpCommand: CommandDefinition = {
    name: "help",
    description: "List the commands",
    usage: "/help",
    maxPositional: 0,
    async execute(ctx) {
        const commands = ctx.listCommands();
        const width = Math.max(...commands.map((c) => c.usage.length));
        const lines = commands.map((c) => `${c.usage.padEnd(width)}  ${c.description}`);
        return {
            message: `Commands:\n${lines.join("\n")}\nTab switches mode, @ attaches a file, Ctrl+C cancels or exits.`,
        };
    },
};
