import type { CommandContext, CommandDefinition, CommandResult, ParsedArgs } from "./types";

export interface CommandRegistry {
    register(command: CommandDefinition): void;
    has(name: string): boolean;
    get(name: string): CommandDefinition | undefined;
    list(): CommandDefinition[];
    execute(name: string, ctx: CommandContext, args: ParsedArgs): Promise<CommandResult>;
}

export function createCommandRegistry(commands: CommandDefinition[] = []): CommandRegistry {
    const byName = new Map<string, CommandDefinition>();
    const registry: CommandRegistry = {
        register(command) {
            byName.set(command.name, command);
        },
        has: (name) => byName.has(name),
        get: (name) => byName.get(name),
        list: () => [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)),
        async execute(name, ctx, args) {
            const command = byName.get(name);
            if (!command) return { message: `unknown command /${name}`, isError: true };
            try {
                return await command.execute(ctx, args);
            } catch (error) {
                return { message: `/${name} failed: ${(error as Error).message}`, isError: true };
            }
        },
    };
    for (const command of commands) registry.register(command);
    return registry;
}
