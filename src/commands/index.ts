import { conversationsCommand } from "./commands/conversations";
import { costsCommand } from "./commands/costs";
import { exportCommand } from "./commands/export";
import { forkCommand } from "./commands/fork";
import { helpCommand } from "./commands/help";
import { learnCommand } from "./commands/learn";
import { mcpCommand } from "./commands/mcp";
import { memoryCommand } from "./commands/memory";
import { modeCommand } from "./commands/mode";
import { modelCommand } from "./commands/model";
import { newCommand } from "./commands/new";
import { permissionsCommand } from "./commands/permissions";
import { quitCommand } from "./commands/quit";
import { resumeCommand } from "./commands/resume";
import { rewindCommand } from "./commands/rewind";
import { skillsCommand } from "./commands/skills";
import { summarizeCommand } from "./commands/summarize";
import { parseCommandInvocations } from "./parse";
import { type CommandRegistry, createCommandRegistry } from "./registry";
import type { CommandContext, CommandResult } from "./types";

export { getTokenAtCursor, parseCommandInvocations } from "./parse";
export { createCommandRegistry, type CommandRegistry } from "./registry";
export type * from "./types";

export const BUILTIN_COMMANDS = [
    quitCommand,
    newCommand,
    helpCommand,
    modelCommand,
    modeCommand,
    summarizeCommand,
    costsCommand,
    learnCommand,
    conversationsCommand,
    resumeCommand,
    rewindCommand,
    forkCommand,
    exportCommand,
    mcpCommand,
    skillsCommand,
    permissionsCommand,
    memoryCommand,
];

export function createCommandRegistryWithAllCommands(): CommandRegistry {
    return createCommandRegistry(BUILTIN_COMMANDS);
}

export interface ExecutedCommand {
    name: string;
    input: string;
    result: CommandResult;
}

/**
 * Runs the commands of one input in order and returns what is left for the
 * model. Command entries are for the transcript only: they never reach the model.
 */
export async function runCommandsInInput(
    input: string,
    registry: CommandRegistry,
    ctx: CommandContext
): Promise<{ executed: ExecutedCommand[]; remainingText: string }> {
    const parsed = parseCommandInvocations(input, (name) => registry.get(name));
    const executed: ExecutedCommand[] = [];
    for (const invocation of parsed.invocations) {
        const text = input.slice(invocation.span[0], invocation.span[1]);
        const result = invocation.error
            ? { message: invocation.error, isError: true }
            : await registry.execute(invocation.name, ctx, invocation.args);
        executed.push({ name: invocation.name, input: text, result });
    }
    return { executed, remainingText: parsed.remainingText };
}
