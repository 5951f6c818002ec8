import { CLI_OPTIONS, HELP_TEXT, SUBCOMMAND_NAMES, parseCliArgs } from "./args";
import { printError } from "../util/terminal-text";

declare const __NORTH_VERSION__: string;

/**
 * Entry point. Only argument parsing is loaded eagerly; everything heavy
 * (engine, SDKs, UI) is imported on demand so `north --version` stays fast.
 */
async function main(): Promise<number> {
    const parsed = parseCliArgs(process.argv.slice(2));
    if (!parsed.ok) {
        printError(parsed.error);
        return 2;
    }
    const { args } = parsed;
    switch (args.command) {
        case "version":
            process.stdout.write(`${__NORTH_VERSION__}\n`);
            return 0;
        case "help":
            process.stdout.write(HELP_TEXT);
            return 0;
        case "models": {
            const { runModelsCommand } = await import("./subcommands");
            return runModelsCommand();
        }
        case "list": {
            const { runListCommand } = await import("./subcommands");
            return runListCommand(args);
        }
        case "doctor": {
            const { runDoctorCommand } = await import("./subcommands");
            return runDoctorCommand(args, __NORTH_VERSION__);
        }
        case "completion": {
            const { runCompletionCommand } = await import("./subcommands");
            return runCompletionCommand(args, {
                options: CLI_OPTIONS,
                helpText: HELP_TEXT,
                subcommands: SUBCOMMAND_NAMES,
            });
        }
        case "mcp": {
            const { runMcpCommand } = await import("./subcommands");
            return runMcpCommand(args.mcpArgs ?? [], __NORTH_VERSION__);
        }
        case "rewind": {
            const { runRewindCommand } = await import("./subcommands");
            return runRewindCommand(args);
        }
        case "resume": {
            // `north resume ID` continues a conversation; `north resume` opens the picker.
            const { runInteractiveCommand } = await import("./interactive-command");
            const id = args.prompt?.trim();
            return runInteractiveCommand(
                id
                    ? { ...args, resume: id, prompt: undefined }
                    : { ...args, prompt: "/conversations" },
                __NORTH_VERSION__
            );
        }
        case "run": {
            if (!args.print) {
                const { runInteractiveCommand } = await import("./interactive-command");
                return runInteractiveCommand(args, __NORTH_VERSION__);
            }
            const { runPrintCommand } = await import("./engine-entry");
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
