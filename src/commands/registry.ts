import { runPlan, type CommandFront, type PlanOutcome } from "./runner";
import type { CommandDefinition, CommandView, ParsedArgs } from "./types";

export interface CommandRegistry {
    register(command: CommandDefinition): void;
    has(name: string): boolean;
    get(name: string): CommandDefinition | undefined;
    list(): CommandDefinition[];
    /** Parses and runs one command; a throw becomes its error result. */
    execute(
        name: string,
        args: ParsedArgs,
        view: CommandView,
        front: CommandFront
    ): Promise<PlanOutcome>;
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
        async execute(name, args, view, front) {
            const command = byName.get(name);
            if (!command) {
                return {
                    result: { message: `unknown command /${name}`, isError: true },
                    warnings: [],
                };
            }
            try {
                return await runPlan(command.plan(args, view), front);
            } catch (error) {
                const message = `/${name} failed: ${(error as Error).message}`;
                return { result: { message, isError: true }, warnings: [] };
            }
        },
    };
    for (const command of commands) registry.register(command);
    return registry;
}
