/**
 * Slash commands in the editor: advertised with `available_commands_update`
 * (the built-in commands the editor can run, the project's and user's
 * Markdown commands, and skills as `/name`) and run from a prompt against the
 * session's host, their outcomes collected as lines for the editor. The
 * registry is print mode's with the editor's own `/mode` (accept-edits is a
 * session mode here, not a print flag), `/model`, `/help` and `/memory`.
 * Commands that switch the conversation are the editor's to do (its session
 * list), and `/learn` is the chat's, so they are neither offered nor run.
 */
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import { MODES } from "../../agent/events";
import type { EngineHostPort } from "../../agent/protocol";
import { createCustomCommands, runCommandsWithPrompts } from "../../commands/custom-commands";
import {
    BUILTIN_COMMANDS,
    classifyInput,
    commandNamesOf,
    createCommandRegistryWithAllCommands,
    namesSource,
    parseCommandInvocations,
} from "../../commands/index";
import { commandTable } from "../../commands/commands/help";
import { type CommandDefinition, failure, result, submit } from "../../commands/types";
import type { CustomCommand } from "../../project/custom-commands";
import { type Skill, SKILL_FILE, loadSkillBody } from "../../project/skills";
import { isMode, modeWords } from "./session-config";

/** A skill as the slash menu offers it: the whole record, so a user-only skill's body can be read. */
export type SkillCommand = Skill;

export interface SlashCommandSources {
    skills: readonly SkillCommand[];
    customCommands: readonly CustomCommand[];
}

/** Why a built-in is not offered in the editor; the editor's own session controls (or the chat) do it. */
const NOT_IN_EDITOR: Readonly<Record<string, string>> = {
    quit: "close the session in your editor instead",
    new: "start a new session in your editor instead",
    resume: "open the conversation from your editor's session list instead",
    conversations: "open a saved conversation from your editor's session list instead",
    fork: "open the conversation as a new session from your editor instead",
    rewind: "run `north rewind` in a terminal instead",
    learn: "run /learn in North's chat (`north`) in this project instead",
};

const MODE_USAGE = `/mode [${MODES.join("|")}]`;

/** `/mode` acting on the editor's session: its mode menu follows (current_mode_update). */
const editorModeCommand: CommandDefinition = {
    name: "mode",
    description: "Set the mode of the next requests: ask (read-only), agent, accept-edits, or plan",
    usage: MODE_USAGE,
    maxPositional: 1,
    plan(args, view) {
        const value = args.positional[0];
        if (value === undefined) {
            const { name, description } = modeWords(view.state.mode);
            return result(
                `Mode: ${name}. ${description} Switch with the editor's mode menu or ${MODE_USAGE}.`
            );
        }
        if (!isMode(value)) return failure(`unknown mode "${value}": use ${MODES.join(", ")}`);
        return submit({ type: "set_mode", mode: value }, () => {
            const { name, description } = modeWords(value);
            return result(`Mode: ${name}. ${description}`);
        });
    },
};

/** `/help` listing what runs here, without the chat's keys. */
const editorHelpCommand: CommandDefinition = {
    name: "help",
    description: "List the commands",
    usage: "/help",
    maxPositional: 0,
    plan(_args, view) {
        const offered = view.commands.filter((c) => !Object.hasOwn(NOT_IN_EDITOR, c.name));
        const own = offered.filter((c) => c.plugin === undefined);
        const fromPlugins = offered.filter((c) => c.plugin !== undefined);
        const collisions = view.collisions ?? [];
        return result(
            [
                `Commands:\n${commandTable(own)}`,
                ...(fromPlugins.length > 0 ? [`Plugin commands:\n${commandTable(fromPlugins)}`] : []),
                ...(collisions.length > 0
                    ? [`Name collisions:\n${collisions.map((c) => `  ${c}`).join("\n")}`]
                    : []),
                "Skills run as /name. The editor's mode and model menus switch those too.",
            ].join("\n")
        );
    },
};

/** `/memory edit` opens the chat's $EDITOR: here the editor is the user's own. */
function editorMemoryCommand(memory: CommandDefinition): CommandDefinition {
    return {
        ...memory,
        plan(args, view) {
            if (args.positional[0] === "edit") {
                return failure(
                    "/memory edit opens a terminal editor in North's chat; here, open the MEMORY.md that /memory lists in your editor"
                );
            }
            return memory.plan(args, view);
        },
    };
}

/** `/model` without a model names the current one and the editor's model menu (print mode names only the id). */
function editorModelCommand(model: CommandDefinition): CommandDefinition {
    return {
        ...model,
        description: "Switch model (the editor's model menu does too)",
        plan(args, view) {
            if (args.positional[0] !== undefined) return model.plan(args, view);
            const { display, id } = view.state.model;
            return result(
                `Model: ${display} (${id}). Switch with the editor's model menu or /model <alias>.`
            );
        },
    };
}

/** Print mode's registry with the editor's commands in place, the Markdown commands beside them. */
function commandRegistry(customCommands: readonly CustomCommand[]) {
    const registry = createCommandRegistryWithAllCommands();
    const memory = registry.get("memory");
    const model = registry.get("model");
    registry.register(editorModeCommand);
    registry.register(editorHelpCommand);
    if (memory) registry.register(editorMemoryCommand(memory));
    if (model) registry.register(editorModelCommand(model));
    const customs = createCustomCommands(registry);
    customs.add(customCommands);
    return { registry, customs };
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
    const { registry } = commandRegistry(customCommands);
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
        // Aliases (`/compact`) run when typed; the menu lists each command once, as /help does.
        .map((command) => advertised(command.name, command.description, inputHint(command)));
    const taken = new Set(commands.map((c) => c.name));
    for (const skill of sources.skills) {
        if (taken.has(skill.name) || Object.hasOwn(NOT_IN_EDITOR, skill.name)) continue;
        taken.add(skill.name);
        commands.push(advertised(skill.name, `${skill.description} (skill)`, "what to use it for"));
    }
    return commands;
}

/**
 * A prompt starting with `/skill`: a skill the model may load is loaded by
 * its tool; a user-only one (`disable-model-invocation`) the model's tool
 * refuses, so its instructions come with the prompt, read now.
 */
async function skillPrompt(
    input: string,
    skills: readonly SkillCommand[]
): Promise<{ prompt: string } | { error: string } | undefined> {
    const match = /^\s*\/(\S+)(?:\s+([\s\S]*))?$/.exec(input);
    const skill = match && skills.find((s) => s.name === match[1]);
    if (!match || !skill) return undefined;
    const task = match[2]?.trim() ?? "";
    if (skill.modelInvocable) {
        const load = `Load the skill "${skill.name}" with the skill tool and follow it.`;
        return { prompt: task === "" ? load : `${load}\n\n${task}` };
    }
    let body: string;
    try {
        ({ body } = await loadSkillBody(skill));
    } catch (error) {
        return {
            error: `✗ /${skill.name}: cannot read ${skill.file}: ${(error as Error).message}`,
        };
    }
    const instructions =
        `The user ran the skill "${skill.name}" (${SKILL_FILE} below; files it mentions are in ${skill.path}). ` +
        `Follow its instructions${task === "" ? "" : " for the request after them"}.\n\n` +
        `<skill name="${skill.name}">\n${body}\n</skill>`;
    return { prompt: task === "" ? instructions : `${instructions}\n\n${task}` };
}

export interface SlashCommandRun {
    /** What goes to the model after the commands ran (a Markdown command's prompt, the rest of the input). */
    remainingText: string;
    /** One line per command's outcome, for the editor. */
    said: string[];
    failed: boolean;
}

/**
 * Runs the slash commands of a prompt against the session's host and says
 * their outcomes; a command the editor does its own way stops the prompt
 * before anything runs.
 */
export async function runSlashCommands(
    input: string,
    host: EngineHostPort,
    customCommands: readonly CustomCommand[],
    skills: readonly SkillCommand[] = []
): Promise<SlashCommandRun> {
    const { registry, customs } = commandRegistry(customCommands);
    const known = commandNamesOf(
        registry,
        namesSource(() => skills.map((skill) => skill.name))
    );
    const kind = classifyInput(input, known);
    // An unknown `/name` is said to the editor, never sent to the model.
    if (kind.kind === "refused" && input.trimStart().startsWith("/")) {
        return { remainingText: "", said: [`✗ ${kind.message}`], failed: true };
    }
    const parsed = parseCommandInvocations(input, (name) => registry.get(name));
    // An alias (`/clear`) is refused as its command (`/new`) is.
    const editorRefusal = (name: string): string | undefined => {
        const own = registry.get(name)?.name ?? name;
        return Object.hasOwn(NOT_IN_EDITOR, own) ? NOT_IN_EDITOR[own] : undefined;
    };
    const refused = parsed.invocations.filter((i) => editorRefusal(i.name) !== undefined);
    if (refused.length > 0) {
        return {
            remainingText: "",
            said: refused.map(
                (i) => `✗ /${i.name} is not available in the editor: ${editorRefusal(i.name)}.`
            ),
            failed: true,
        };
    }
    if (parsed.invocations.length === 0) {
        const skill = await skillPrompt(input, skills);
        if (skill === undefined) return { remainingText: input, said: [], failed: false };
        if ("error" in skill) return { remainingText: "", said: [skill.error], failed: true };
        return { remainingText: skill.prompt, said: [], failed: false };
    }
    const { shown, prompt, failed } = await runCommandsWithPrompts(input, registry, customs, {
        submit: (op) => host.submit(op),
        state: () => host.state(),
    });
    const said = shown.map(
        (command) =>
            `${command.result.isError ? "✗" : "⚙"} ${command.input.trim()}: ${command.result.message}`
    );
    return { remainingText: prompt, said, failed };
}
