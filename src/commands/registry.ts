import { runPlan, type CommandFront, type PlanOutcome } from "./runner";
import type { CommandDefinition, CommandView, ParsedArgs } from "./types";

export interface CommandRegistry {
    register(command: CommandDefinition): void;
    /** Removes a command and its aliases (a plugin's commands when it is disabled). */
    unregister(name: string): void;
    /** Names hidden by another command (`/review` of a project under the built-in): shown by `/help`. */
    noteCollision(name: string, message: string): void;
    /** Forgets the collisions noted for `names` (their commands left). */
    clearCollisions(names: Iterable<string>): void;
    collisions(): string[];
    /** A command's name or one of its aliases. */
    has(name: string): boolean;
    /** The command a name or alias runs. */
    get(name: string): CommandDefinition | undefined;
    list(): CommandDefinition[];
    /** Every name that runs a command, aliases included (suggestions, autocomplete). */
    names(): string[];
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
    /** Alias → the command's own name; a command's own name wins over another's alias. */
    const aliasOf = new Map<string, string>();
    const get = (name: string): CommandDefinition | undefined => {
        const own = byName.get(name);
        if (own) return own;
        const target = aliasOf.get(name);
        return target === undefined ? undefined : byName.get(target);
    };
    const collisions = new Map<string, string>();
    const registry: CommandRegistry = {
        register(command) {
            byName.set(command.name, command);
            for (const alias of command.aliases ?? []) aliasOf.set(alias, command.name);
        },
        unregister(name) {
            const command = byName.get(name);
            if (!command) return;
            byName.delete(name);
            for (const alias of command.aliases ?? []) {
                if (aliasOf.get(alias) === name) aliasOf.delete(alias);
            }
        },
        noteCollision: (name, message) => void collisions.set(name, message),
        clearCollisions(names) {
            for (const name of names) collisions.delete(name);
        },
        collisions: () => [...collisions.values()],
        has: (name) => get(name) !== undefined,
        get,
        list: () => [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)),
        names: () => [
            ...byName.keys(),
            ...[...aliasOf.keys()].filter((alias) => !byName.has(alias) && get(alias)),
        ],
        async execute(name, args, view, front) {
            const command = get(name);
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
