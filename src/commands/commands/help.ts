import { type CommandDefinition, result } from "../types";

export const helpCommand: CommandDefinition = {
    name: "help",
    description: "List the commands",
    usage: "/help",
    maxPositional: 0,
    plan(_args, view) {
        const width = Math.max(...view.commands.map((c) => c.usage.length));
        const lines = view.commands.map((c) => `${c.usage.padEnd(width)}  ${c.description}`);
        return result(
            `Commands:\n${lines.join("\n")}\nTab switches mode, @ attaches a file, Ctrl+C cancels (twice at an empty composer exits), Ctrl+D exits.`
        );
    },
};
