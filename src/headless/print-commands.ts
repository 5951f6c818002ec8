/**
 * Slash commands in print mode (`north -p "/model gpt-5.1 explain x"`): the
 * commands' plans run against the engine host without a picker, so the
 * commands say what print mode offers instead. The host is built without
 * saving a model choice: scripts should not change the user's default.
 */
import type { EngineHostPort } from "../agent/protocol";
import { createCustomCommands, runCommandsWithPrompts } from "../commands/custom-commands";
import {
    classifyInput,
    commandNamesOf,
    createCommandRegistryWithAllCommands,
    namesSource,
} from "../commands/index";
import type { CustomCommand } from "../project/custom-commands";
import { terminalSafeText } from "../util/terminal-text";
import { type OutputFormat, type OutputSink, jsonLine } from "./print-mode";

export interface PrintCommandsOptions {
    host: EngineHostPort;
    format: OutputFormat;
    stdout: OutputSink;
    stderr: OutputSink;
    /** The project's and user's Markdown commands: expanded into the prompt, as the chat does. */
    customCommands?: readonly CustomCommand[];
    /** The skills' names: `/skill` is a prompt for the model, not an unknown command. */
    skillNames?: readonly string[];
}

/**
 * Runs the commands of `input` in order and prints each outcome: stream-json
 * as a `command` line, otherwise on stderr when a prompt follows (stdout keeps
 * the answer alone) and on stdout when the input was only commands.
 */
export async function runPrintCommands(
    input: string,
    options: PrintCommandsOptions
): Promise<{ remainingText: string; failed: boolean }> {
    const { host, format, stdout, stderr, customCommands = [], skillNames = [] } = options;
    const registry = createCommandRegistryWithAllCommands();
    const customs = createCustomCommands(registry);
    customs.add(customCommands);
    const kind = classifyInput(
        input,
        commandNamesOf(
            registry,
            namesSource(() => skillNames)
        )
    );
    // An unknown `/name` (or a bare `/`) never reaches the model: the run fails saying so.
    if (kind.kind === "refused" && !input.trimStart().startsWith("!")) {
        if (format === "stream-json") {
            const line = { type: "command", input: input.trim(), ok: false, message: kind.message };
            stdout.write(jsonLine(line));
        } else stderr.write(terminalSafeText(`✗ ${kind.message}\n`));
        return { remainingText: "", failed: true };
    }
    const { shown, prompt, failed } = await runCommandsWithPrompts(input, registry, customs, {
        submit: (op) => host.submit(op),
        state: () => host.state(),
    });
    for (const command of shown) {
        const text = command.input.trim();
        if (format === "stream-json") {
            stdout.write(
                jsonLine({
                    type: "command",
                    input: text,
                    ok: !command.result.isError,
                    message: command.result.message,
                })
            );
            continue;
        }
        const mark = command.result.isError ? "✗" : "⚙";
        const line = terminalSafeText(`${mark} ${text}: ${command.result.message}\n`);
        (prompt ? stderr : stdout).write(line);
    }
    return { remainingText: prompt, failed };
}
