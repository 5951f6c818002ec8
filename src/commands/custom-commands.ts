/**
 * The project's and user's Markdown commands as slash commands, the same in
 * the chat and in print mode: registered beside the built-ins (a built-in
 * keeps its name), running one only says so, and its prompt, with the
 * arguments filled in, is sent after the input's commands have run.
 */
import { type CustomCommand, expandCustomCommand } from "../project/custom-commands";
import { type ExecutedCommand, runCommandsInInput } from "./index";
import type { CommandFront } from "./runner";
import type { HostState } from "../agent/protocol";
import type { CommandRegistry } from "./registry";
import { type CommandDefinition, result } from "./types";

/** Where a Markdown command came from, as `/help` says it. */
function origin(command: CustomCommand): string {
    if (command.plugin !== undefined) return `plugin ${command.plugin}`;
    return command.scope === "project" ? "project command" : "user command";
}

/** `alpha:greet` → `greet`: the name a plugin command answers to when nothing else owns it. */
export function bareCommandName(command: CustomCommand): string | undefined {
    if (command.plugin === undefined) return undefined;
    const colon = command.name.indexOf(":");
    return colon < 0 ? undefined : command.name.slice(colon + 1);
}

/** A custom command as the registry holds it: every token up to the next command is its argument. */
function customDefinition(command: CustomCommand, bare?: string): CommandDefinition {
    return {
        name: command.name,
        ...(bare !== undefined ? { aliases: [bare] } : {}),
        ...(command.plugin !== undefined ? { plugin: command.plugin } : {}),
        description: `${command.description || "custom command"} (${origin(command)})`,
        usage: `/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ""}`,
        maxPositional: Number.POSITIVE_INFINITY,
        plan: () => result(`Sent the prompt of ${command.file}`),
    };
}

export interface CustomCommands {
    /**
     * Registers `commands`. A user's or project's command never replaces a
     * built-in; a plugin's is always `/plugin:command`, and its bare name
     * only when no built-in, user or project command (or an earlier plugin)
     * owns it. Every hidden name is noted as a collision for `/help`.
     */
    add(commands: readonly CustomCommand[]): void;
    /** Replaces every plugin command with `commands` (after a plugin was enabled, disabled or removed). */
    setPluginCommands(commands: readonly CustomCommand[]): void;
    /** The prompt an executed command stands for, or undefined for a built-in or a failed run. */
    promptOf(run: ExecutedCommand): string | undefined;
}

export function createCustomCommands(registry: CommandRegistry): CustomCommands {
    const customs = new Map<string, CustomCommand>();
    /** Bare name → the plugin commands that claim it, first (the one it runs) first. */
    const bareClaims = new Map<string, CustomCommand[]>();
    const ownerText = (name: string): string => {
        const owner = registry.get(name);
        const custom = owner && customs.get(owner.name);
        if (!custom) return `the built-in /${owner?.name ?? name}`;
        return `/${custom.name} (${origin(custom)} ${custom.file})`;
    };
    const addOwn = (command: CustomCommand): void => {
        if (registry.get(command.name)) {
            if (customs.get(registry.get(command.name)?.name ?? "")?.file === command.file) return;
            registry.noteCollision(
                command.name,
                `/${command.name} (${origin(command)} ${command.file}) is hidden by ${ownerText(command.name)}; rename it`
            );
            return;
        }
        customs.set(command.name, command);
        registry.register(customDefinition(command));
    };
    const addPlugins = (commands: readonly CustomCommand[]): void => {
        const registered: CustomCommand[] = [];
        for (const command of commands) {
            if (registry.get(command.name)) {
                registry.noteCollision(
                    command.name,
                    `/${command.name} (${origin(command)}) is hidden by ${ownerText(command.name)}`
                );
                continue;
            }
            customs.set(command.name, command);
            registered.push(command);
        }
        // Bare names after every full name, so a plugin never takes another plugin's full name.
        for (const command of registered) {
            const bare = bareCommandName(command);
            const claims = bare === undefined ? undefined : (bareClaims.get(bare) ?? []);
            if (bare === undefined || claims === undefined) {
                registry.register(customDefinition(command));
                continue;
            }
            const free = claims.length === 0 && !registry.get(bare);
            if (claims.length === 0 && !free) {
                registry.noteCollision(
                    command.name,
                    `/${bare}: ${ownerText(bare)} runs; the plugin's is /${command.name}`
                );
            }
            if (free || claims.length > 0) {
                claims.push(command);
                bareClaims.set(bare, claims);
            }
            registry.register(customDefinition(command, free ? bare : undefined));
            if (claims.length > 1) {
                registry.noteCollision(
                    bare,
                    `/${bare}: ${claims.map((c) => c.name).join(" and ")} — /${bare} runs ${claims[0]?.name}; use the full names`
                );
            }
        }
    };
    return {
        add(commands) {
            for (const command of commands) if (command.plugin === undefined) addOwn(command);
            addPlugins(commands.filter((command) => command.plugin !== undefined));
        },
        setPluginCommands(commands) {
            const leaving = [...customs.values()].filter((c) => c.plugin !== undefined);
            for (const command of leaving) {
                customs.delete(command.name);
                registry.unregister(command.name);
            }
            registry.clearCollisions([
                ...leaving.map((c) => c.name),
                ...bareClaims.keys(),
                ...commands.flatMap((c) => [c.name, bareCommandName(c) ?? c.name]),
            ]);
            bareClaims.clear();
            addPlugins(commands);
        },
        promptOf(run) {
            // `run.name` may be a plugin command's bare name (an alias).
            const custom = customs.get(registry.get(run.name)?.name ?? run.name);
            if (!custom || run.result.isError) return undefined;
            return expandCustomCommand(custom, run.input.slice(run.name.length + 1));
        },
    };
}

/**
 * Runs an input's commands in order and splits what they did: the outcomes
 * to show (the built-ins'), and the prompt for the model — the Markdown
 * commands' prompts, then what the input says besides its commands.
 */
export async function runCommandsWithPrompts(
    input: string,
    registry: CommandRegistry,
    customs: CustomCommands,
    front: CommandFront & { state(): HostState }
): Promise<{ shown: ExecutedCommand[]; prompt: string; failed: boolean }> {
    const { executed, remainingText } = await runCommandsInInput(input, registry, front);
    const shown: ExecutedCommand[] = [];
    const prompts: string[] = [];
    for (const command of executed) {
        const prompt = customs.promptOf(command);
        if (prompt === undefined) shown.push(command);
        else prompts.push(prompt);
    }
    if (remainingText.trim() !== "") prompts.push(remainingText);
    return {
        shown,
        prompt: prompts.join("\n\n"),
        failed: executed.some((c) => c.result.isError),
    };
}
