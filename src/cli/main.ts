import { CLI_OPTIONS, HELP_TEXT, SUBCOMMAND_NAMES, parseCliArgs } from "./args";
import {
    enableCompileCache,
    loadAcp,
    loadChat,
    loadPrint,
    loadSubcommands,
} from "./launch-boundary";
import { printError } from "../util/terminal-text";

declare const __NORTH_VERSION__: string;

/** Entry point: parses the arguments and hands over through the launch boundary. */
async function main(): Promise<number> {
    const parsed = parseCliArgs(process.argv.slice(2));
    if (!parsed.ok) {
        printError(parsed.error);
        return 2;
    }
    const { args } = parsed;
    if (args.command === "version") {
        process.stdout.write(`${__NORTH_VERSION__}\n`);
        return 0;
    }
    if (args.command === "help") {
        process.stdout.write(HELP_TEXT);
        return 0;
    }
    enableCompileCache(process.env);
    switch (args.command) {
        case "models": {
            const { runModelsCommand } = await loadSubcommands();
            return runModelsCommand(args.modelsArgs ?? []);
        }
        case "list": {
            const { runListCommand } = await loadSubcommands();
            return runListCommand(args);
        }
        case "doctor": {
            const { runDoctorCommand } = await loadSubcommands();
            return runDoctorCommand(args, __NORTH_VERSION__);
        }
        case "completion": {
            const { runCompletionCommand } = await loadSubcommands();
            return runCompletionCommand(args, {
                options: CLI_OPTIONS,
                helpText: HELP_TEXT,
                subcommands: SUBCOMMAND_NAMES,
            });
        }
        case "mcp": {
            const { runMcpCommand } = await loadSubcommands();
            return runMcpCommand(args.mcpArgs ?? [], __NORTH_VERSION__);
        }
        case "plugin": {
            const { runPluginCommand } = await loadSubcommands();
            return runPluginCommand(args.pluginArgs ?? [], __NORTH_VERSION__);
        }
        case "acp": {
            const { runAcpCommand } = await loadAcp();
            return runAcpCommand(args, __NORTH_VERSION__);
        }
        case "rewind": {
            const { runRewindCommand } = await loadSubcommands();
            return runRewindCommand(args);
        }
        case "resume": {
            // `north resume ID` continues a conversation; `north resume` opens the picker.
            const { runInteractiveCommand } = await loadChat();
            const id = args.prompt?.trim();
            return runInteractiveCommand(
                id
                    ? { ...args, resume: id, prompt: undefined }
                    : { ...args, prompt: "/conversations" },
                __NORTH_VERSION__
            );
        }
        case "review": {
            const { runReviewCommand } = await loadSubcommands();
            return runReviewCommand(args, __NORTH_VERSION__);
        }
        case "export": {
            const { runExportCommand } = await loadSubcommands();
            return runExportCommand(args, __NORTH_VERSION__);
        }
        case "attempts": {
            const { runAttemptsCommand } = await loadSubcommands();
            return runAttemptsCommand(args);
        }
        case "run": {
            if (args.attempts !== undefined) {
                const { runAttemptsPrint } = await loadSubcommands();
                return runAttemptsPrint(args, __NORTH_VERSION__);
            }
            if (!args.print) {
                const { runInteractiveCommand } = await loadChat();
                return runInteractiveCommand(args, __NORTH_VERSION__);
            }
            const { runPrintCommand } = await loadPrint();
            return runPrintCommand(args, __NORTH_VERSION__);
        }
    }
}

main().then(
    (code) => {
        // Exit explicitly once output is written: pooled HTTP sockets must not keep North alive.
        process.stdout.write("", () => process.exit(code));
    },
    (error: unknown) => {
        printError(`unexpected error: ${(error as Error)?.message ?? String(error)}`);
        process.exitCode = 1;
    }
);
