import { conversationsCommand } from "./commands/conversations";
import { copyCommand } from "./commands/copy";
import { costsCommand } from "./commands/costs";
import { exportCommand } from "./commands/export";
import { reviewCommand } from "./commands/review";
import { forkCommand } from "./commands/fork";
import { helpCommand } from "./commands/help";
import { learnCommand } from "./commands/learn";
import { lspCommand } from "./commands/lsp";
import { mcpCommand } from "./commands/mcp";
import { memoryCommand } from "./commands/memory";
import { modeCommand } from "./commands/mode";
import { modelCommand } from "./commands/model";
import { newCommand } from "./commands/new";
import { permissionsCommand } from "./commands/permissions";
import { psCommand } from "./commands/ps";
import { quitCommand } from "./commands/quit";
import { resumeCommand } from "./commands/resume";
import { rewindCommand } from "./commands/rewind";
import { skillsCommand } from "./commands/skills";
import { summarizeCommand } from "./commands/summarize";
import { vimCommand } from "./commands/vim";
import { parseCommandInvocations } from "./parse";
import { type CommandRegistry, createCommandRegistry } from "./registry";
import type { HostState, Outcome } from "../agent/protocol";
import type { CommandFront } from "./runner";
import type { CommandDefinition } from "./types";

export { getTokenAtCursor, parseCommandInvocations } from "./parse";
export {
    BARE_SHELL_HINT,
    BARE_SLASH_HINT,
    type CommandNames,
    type InputKind,
    classifyInput,
    commandNamesOf,
    namesSource,
} from "./classify";
export { createCommandRegistry, type CommandRegistry } from "./registry";
export { runPlan, type CommandFront, type PlanOutcome } from "./runner";
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
    reviewCommand,
    copyCommand,
    vimCommand,
    mcpCommand,
    lspCommand,
    skillsCommand,
    permissionsCommand,
    memoryCommand,
    psCommand,
];

export function createCommandRegistryWithAllCommands(): CommandRegistry {
    return createCommandRegistry(BUILTIN_COMMANDS);
}

export interface ExecutedCommand {
    name: string;
    input: string;
    result: Outcome;
    /** Said beside the result (an editor's warning). */
    warnings: string[];
    /** The command ends the app (`/quit`). */
    quit?: boolean;
}

/** Every command of `registry`, built-ins first (`/help` lists them so). */
export function commandsInOrder(registry: CommandRegistry): CommandDefinition[] {
    const builtins = new Set(BUILTIN_COMMANDS.map((c) => c.name));
    const all = registry.list();
    return [
        ...all.filter((c) => builtins.has(c.name)),
        ...all.filter((c) => !builtins.has(c.name)),
    ];
}

/**
 * Runs the commands of one input in order and returns what is left for the
 * model. Command entries are for the transcript only: they never reach the
 * model. `front.choose` marks the chat.
 */
export async function runCommandsInInput(
    input: string,
    registry: CommandRegistry,
    front: CommandFront & { state(): HostState }
): Promise<{ executed: ExecutedCommand[]; remainingText: string }> {
    const parsed = parseCommandInvocations(input, (name) => registry.get(name));
    const executed: ExecutedCommand[] = [];
    for (const invocation of parsed.invocations) {
        const text = input.slice(invocation.span[0], invocation.span[1]);
        // Each command sees the state the one before it left (`/model x /costs`).
        const view = {
            chat: front.choose !== undefined,
            state: front.state(),
            commands: commandsInOrder(registry),
            collisions: registry.collisions(),
        };
        const outcome = invocation.error
            ? { result: { message: invocation.error, isError: true }, warnings: [] }
            : await registry.execute(invocation.name, invocation.args, view, front);
        executed.push({ name: invocation.name, input: text, ...outcome });
    }
    return { executed, remainingText: parsed.remainingText };
}
