/**
 * Slash commands in the editor: advertised with `available_commands_update`
 * (the built-in commands print mode can run, the project's and user's
 * Markdown commands, and skills as `/name`) and run from a prompt the way
 * print mode runs them (headless/print-commands.ts), their outcomes collected
 * as lines for the editor. Commands that switch the conversation are the
 * editor's to do (its session list), so they are neither offered nor run.
 */
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import type { EngineHostPort } from "../../agent/protocol";
import { createCustomCommands } from "../../commands/custom-commands";
import {
    BUILTIN_COMMANDS,
    createCommandRegistryWithAllCommands,
    parseCommandInvocations,
} from "../../commands/index";
import type { CommandDefinition } from "../../commands/types";
import { runPrintCommands } from "../../headless/print-commands";
import type { CustomCommand } from "../../project/custom-commands";

/** A skill as the slash menu offers it. */
export interface SkillCommand {
    name: string;
    description: string;
}

export interface SlashCommandSources {
    skills: readonly SkillCommand[];
    customCommands: readonly CustomCommand[];
}

/** Why a built-in is not offered in the editor; the editor's own session controls do it. */
const NOT_IN_EDITOR: Readonly<Record<string, string>> = {
    quit: "close the session in your editor instead",
    new: "start a new session in your editor instead",
    resume: "open the conversation from your editor's session list instead",
    fork: "open the conversation as a new session from your editor instead",
    rewind: "run `north rewind` in a terminal instead",
};

/** The registry print mode uses, with the Markdown commands registered beside the built-ins. */
function commandRegistry(customCommands: readonly CustomCommand[]) {
    const registry = createCommandRegistryWithAllCommands();
    createCustomCommands(registry).add(customCommands);
    return registry;
}

/** What follows the name in a command's usage ("<name>", "[--keep-last N]"), if it takes anything. */
function inputHint(command: CommandDefinition): string | undefined {
    const takesInput = command.maxPositional > 0 || Object.keys(command.flags ?? {}).length > 0;
    if (!takesInput) return undefined;
    const hint = command.usage.replace(new RegExp(`^/${command.name}\\s*`), "").trim();
    return hint === "" ? "arguments" : hint;
}

function advertised(name: string, description: string, hint: string | undefined): AvailableCommand {
    return hint === undefined ? { name, description } : { name, description, input: { hint } };
}

/**
 * Code-unit order, not the registry's `localeCompare`: its first call builds
 * ICU's collator, ~8 ms before the first prompt's request that print mode
 * never pays (ARCHITECTURE.md, "The launch boundary"). The built-ins' names
 * are lower-case, so their order is the same; only Markdown commands whose
 * names mix cases are ordered differently.
 */
function inCodeUnitOrder(names: Iterable<string>): string[] {
    return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The commands of `customCommands`' registry, built-ins first (as `/help` lists them). */
function registeredInOrder(customCommands: readonly CustomCommand[]): CommandDefinition[] {
    const registry = commandRegistry(customCommands);
    const names = new Set([
        ...inCodeUnitOrder(BUILTIN_COMMANDS.map((c) => c.name)),
        ...inCodeUnitOrder(customCommands.map((c) => c.name)),
    ]);
    return [...names].flatMap((name) => registry.get(name) ?? []);
}

/** Every command a prompt can run here, built-ins first, then Markdown commands, then skills. */
export function availableCommands(sources: SlashCommandSources): AvailableCommand[] {
    const commands = registeredInOrder(sources.customCommands)
        .filter((command) => !Object.hasOwn(NOT_IN_EDITOR, command.name))
        .map((command) => advertised(command.name, command.description, inputHint(command)));
    const taken = new Set(commands.map((c) => c.name));
    for (const skill of sources.skills) {
        if (taken.has(skill.name) || Object.hasOwn(NOT_IN_EDITOR, skill.name)) continue;
        taken.add(skill.name);
        commands.push(advertised(skill.name, `${skill.description} (skill)`, "what to use it for"));
    }
    return commands;
}

/** A prompt starting with `/skill`: the model is asked to load that skill and use it on the rest. */
function skillPrompt(input: string, skills: readonly SkillCommand[]): string | undefined {
    const match = /^\s*\/(\S+)(?:\s+([\s\S]*))?$/.exec(input);
    const skill = match && skills.find((s) => s.name === match[1]);
    if (!match || !skill) return undefined;
    const task = match[2]?.trim() ?? "";
    const load = `Load the skill "${skill.name}" with the skill tool and follow it.`;
    return task === "" ? load : `${load}\n\n${task}`;
}

export interface SlashCommandRun {
    /** What goes to the model after the commands ran (a Markdown command's prompt, the rest of the input). */
    remainingText: string;
    /** One line per command's outcome, for the editor. */
    said: string[];
    failed: boolean;
}

/**
 * Runs the slash commands of a prompt against the session's host as print
 * mode does, and says their outcomes; a command the editor does its own way
 * stops the prompt before anything runs.
 */
export async function runSlashCommands(
    input: string,
    host: EngineHostPort,
    customCommands: readonly CustomCommand[],
    skills: readonly SkillCommand[] = []
): Promise<SlashCommandRun> {
    const registry = commandRegistry(customCommands);
    const parsed = parseCommandInvocations(input, (name) => registry.get(name));
    const refused = parsed.invocations.filter((i) => Object.hasOwn(NOT_IN_EDITOR, i.name));
    if (refused.length > 0) {
        return {
            remainingText: "",
            said: refused.map(
                (i) => `✗ /${i.name} is not available in the editor: ${NOT_IN_EDITOR[i.name]}.`
            ),
            failed: true,
        };
    }
    if (parsed.invocations.length === 0) {
        return { remainingText: skillPrompt(input, skills) ?? input, said: [], failed: false };
    }
    const said: string[] = [];
    const sink = { write: (text: string) => said.push(text.replace(/\n$/, "")) };
    const run = await runPrintCommands(input, {
        host,
        format: "text",
        stdout: sink,
        stderr: sink,
        customCommands,
    });
    return { remainingText: run.remainingText, said, failed: run.failed };
}
