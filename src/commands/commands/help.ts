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
        const own = view.commands.filter((c) => c.plugin === undefined);
        const fromPlugins = view.commands.filter((c) => c.plugin !== undefined);
        const sections = [`Commands:\n${commandTable(own)}`];
        if (fromPlugins.length > 0) {
            sections.push(`Plugin commands:\n${commandTable(fromPlugins)}`);
        }
        const collisions = view.collisions ?? [];
        if (collisions.length > 0) {
            sections.push(`Name collisions:\n${collisions.map((c) => `  ${c}`).join("\n")}`);
        }
        return result(
            `${sections.join("\n")}\n!command runs a shell command, Tab switches mode, @ attaches a file, Ctrl+C cancels (twice at an empty composer exits), Ctrl+D exits.`
        );
    },
};
