import { terminalSafeText } from "../util/terminal-text";
import { HELP_TEXT, parseCliArgs } from "./args";

declare const __NORTH_VERSION__: string;

/**
 * Entry point. Only argument parsing is loaded eagerly; everything heavy
 * (engine, SDKs, UI) is imported on demand so `north --version` stays fast.
 */
async function main(): Promise<number> {
    const parsed = parseCliArgs(process.argv.slice(2));
    if (!parsed.ok) {
        process.stderr.write(`north: ${parsed.error}\nRun \`north --help\` for usage.\n`);
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
            const { runModelsCommand } = await import("./models-command");
            return runModelsCommand();
        }
        case "list": {
            const { runListCommand } = await import("./list-command");
            return runListCommand(args);
        }
        case "doctor": {
            const { runDoctorCommand } = await import("./doctor-command");
            return runDoctorCommand(args, __NORTH_VERSION__);
        }
        case "rewind": {
            const { runRewindCommand } = await import("./rewind-command");
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
            const { runPrintCommand } = await import("./print-command");
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
        process.stderr.write(
            terminalSafeText(
                `north: unexpected error: ${(error as Error)?.message ?? String(error)}\n`
            )
        );
        process.exitCode = 1;
    }
);
