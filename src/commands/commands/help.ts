import { type CommandDefinition, result } from "../types";

/** The usage with the other names a command answers to: "/new, /clear". */
export function usageWithAliases(command: CommandDefinition): string {
    return [command.usage, ...(command.aliases ?? []).map((alias) => `/${alias}`)].join(", ");
}

export const helpCommand: CommandDefinition = {
    name: "help",
    description: "List the commands",
    usage: "/help",
    maxPositional: 0,
    plan(_args, view) {
        const usages = view.commands.map(usageWithAliases);
        const width = Math.max(...usages.map((usage) => usage.length));
        const lines = view.commands.map((c, i) => `${usages[i]!.padEnd(width)}  ${c.description}`);
        return result(
            `Commands:\n${lines.join("\n")}\n!command runs a shell command, Tab switches mode, @ attaches a file, Ctrl+C cancels (twice at an empty composer exits), Ctrl+D exits.`
        );
    },
};
