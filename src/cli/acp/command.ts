/**
 * `north acp`: North as an Agent Client Protocol agent on stdio, for editors
 * (Zed, JetBrains, Neovim, Emacs). stdout carries protocol lines only; the
 * guard goes in before anything else can write there.
 */
import { LOG_LEVELS, type LogLevel, createFileLogger } from "../../storage/logger";
import { logFilePath } from "../../storage/paths";
import { printError, printWarning } from "../../util/terminal-text";
import type { CliArgs } from "../args";
import { serveAcp } from "./server";
import { acpStdioStream, guardStdout } from "./stdio";

const EXIT_USAGE = 2;

/** Flags that mean nothing here: the editor sends the prompts, the project and the approvals. */
function refusedFlag(args: CliArgs): string | null {
    const refused: Array<[boolean, string]> = [
        [args.print, "--print"],
        [args.prompt !== undefined, "a PROMPT"],
        [args.outputFormat !== undefined, "--output-format"],
        [args.inputFormat !== undefined, "--input-format"],
        [args.mode !== undefined, "--mode (the editor picks the session's mode)"],
        [args.path !== undefined, "--path (the editor gives each session's directory)"],
        [args.maxTurns !== undefined, "--max-turns"],
        [args.allowEdits, "--allow-edits (the editor asks for each edit)"],
        [args.allowConfigEdits, "--allow-config-edits"],
        [args.allowShell, "--allow-shell (the editor asks for each command)"],
        [args.resume !== undefined, "--resume (the editor loads sessions)"],
        [args.continue, "--continue"],
        [args.forkSession, "--fork-session"],
        [!args.altScreen, "--no-alt-screen"],
    ];
    const found = refused.filter(([given]) => given).map(([, name]) => name);
    return found.length > 0 ? `north acp takes no ${found.join(", ")}` : null;
}

export async function runAcpCommand(args: CliArgs, version: string): Promise<number> {
    const output = guardStdout();
    const refused = refusedFlag(args);
    if (refused) {
        printError(refused);
        return EXIT_USAGE;
    }
    const logLevel = (args.logLevel ?? "info") as LogLevel;
    if (!LOG_LEVELS.includes(logLevel)) {
        printError(`--log-level must be one of ${LOG_LEVELS.join(", ")} (got "${args.logLevel}")`);
        return EXIT_USAGE;
    }
    const logger = createFileLogger(logFilePath(), logLevel);
    const warn = (message: string): void => {
        printWarning(message);
        logger.warn("acp_warning", { message });
    };
    const stop = new AbortController();
    const onSignal = (): void => stop.abort();
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, onSignal);
    logger.info("acp_start", { version, pid: process.pid });
    try {
        await serveAcp(acpStdioStream(process.stdin, output.write), {
            version,
            args,
            logLevel,
            warn,
            stop: stop.signal,
        });
    } finally {
        logger.info("acp_end", { stoppedBy: stop.signal.aborted ? "signal" : "client" });
        logger.flush();
        await output.end();
    }
    return 0;
}
