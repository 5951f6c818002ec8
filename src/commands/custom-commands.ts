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

/** A custom command as the registry holds it: every token up to the next command is its argument. */
function customDefinition(command: CustomCommand): CommandDefinition {
    const where = command.scope === "project" ? "project command" : "user command";
    return {
        name: command.name,
        description: `${command.description || "custom command"} (${where})`,
        usage: `/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ""}`,
        maxPositional: Number.POSITIVE_INFINITY,
        plan: () => result(`Sent the prompt of ${command.file}`),
    };
}

export interface CustomCommands {
    /** Registers `commands`; a name already taken (a built-in, an earlier custom) is skipped. */
    add(commands: readonly CustomCommand[]): void;
    /** The prompt an executed command stands for, or undefined for a built-in or a failed run. */
    promptOf(run: ExecutedCommand): string | undefined;
}

export function createCustomCommands(registry: CommandRegistry): CustomCommands {
    const customs = new Map<string, CustomCommand>();
    return {
        add(commands) {
            for (const command of commands) {
                if (registry.get(command.name)) continue;
                customs.set(command.name, command);
                registry.register(customDefinition(command));
            }
        },
        promptOf(run) {
            const custom = customs.get(run.name);
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
