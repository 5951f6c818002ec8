import { type CommandDefinition, result } from "../types";

/** " (also /clear)": the other names a command answers to. */
export function aliasNote(command: CommandDefinition): string {
    const aliases = command.aliases ?? [];
    return aliases.length > 0 ? ` (also ${aliases.map((a) => `/${a}`).join(", ")})` : "";
}

export const helpCommand: CommandDefinition = {
    name: "help",
    description: "List the commands",
    usage: "/help",
    maxPositional: 0,
    plan(_args, view) {
        const width = Math.max(...view.commands.map((c) => c.usage.length));
        const lines = view.commands.map(
            (c) => `${c.usage.padEnd(width)}  ${c.description}${aliasNote(c)}`
        );
        return result(
            `Commands:\n${lines.join("\n")}\n!command runs a shell command, Tab switches mode, @ attaches a file, Ctrl+C cancels or exits.`
        );
    },
};
