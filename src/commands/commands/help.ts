import { type CommandDefinition, result } from "../types";

/** The usage with the other names a command answers to: "/new, /clear". */
export function usageWithAliases(command: CommandDefinition): string {
    return [command.usage, ...(command.aliases ?? []).map((alias) => `/${alias}`)].join(", ");
}

/** One line per command: its usage (aliases beside it), padded, then its description. */
export function commandTable(commands: readonly CommandDefinition[]): string {
    const usages = commands.map(usageWithAliases);
    const width = Math.max(...usages.map((usage) => usage.length));
    return commands.map((c, i) => `${usages[i]!.padEnd(width)}  ${c.description}`).join("\n");
}

export const helpCommand: CommandDefinition = {
    name: "help",
    description: "List the commands",
    usage: "/help",
    maxPositional: 0,
    plan(_args, view) {
        return result(
            `Commands:\n${commandTable(view.commands)}\n!command runs a shell command, Tab switches mode, @ attaches a file, Ctrl+C cancels (twice at an empty composer exits), Ctrl+D exits.`
        );
    },
};
