import { createCommandHost } from "../commands/host";
import { fstatSync } from "node:fs";
import * as z from "zod";
import {
    EXIT,
    OUTPUT_FORMATS,
    type OutputFormat,
    createBufferedSink,
    createPrintRenderer,
    exitCodeFor,
} from "../headless/print-mode";
import { terminalSafeText } from "../util/terminal-text";
import { createPrintApprovalSettings, printModeApprover } from "../headless/print-approvals";
import { runPrintCommands } from "../headless/print-commands";
import { createProfileStore } from "../storage/profile";
import { dataDir } from "../storage/paths";
import { resolveReadyModel } from "./model-selection";
import type { CliArgs } from "./args";
import { checkSessionFlags, prepareSession } from "./session-setup";
import { startSession } from "./session-start";
import { summarizeInventory } from "./project-trust";

const MCP_STARTUP_WAIT_MS = 10_000;

function usageError(message: string): number {
    process.stderr.write(terminalSafeText(`north: ${message}\n`));
    return EXIT.usage;
}

/** Reads a piped or redirected stdin; a terminal or /dev/null gives nothing. */
async function readPipedStdin(): Promise<string> {
    if (process.stdin.isTTY) return "";
    try {
        const stat = fstatSync(0);
        if (!stat.isFIFO() && !stat.isFile() && !stat.isSocket()) return "";
    } catch {
        return "";
    }
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
}

export async function runPrintCommand(args: CliArgs, version: string): Promise<number> {
    // Zod's JIT compiles each object schema with `new Function`: slower than it saves for
    // a handful of tool calls, and it costs start-up time.
    z.config({ jitless: true });
    const format = (args.outputFormat ?? "text") as OutputFormat;
    if (!OUTPUT_FORMATS.includes(format)) {
        return usageError(
            `--output-format must be one of ${OUTPUT_FORMATS.join(", ")} (got "${args.outputFormat}")`
        );
    }
    const flags = checkSessionFlags(args);
    if (!flags.ok) return usageError(flags.error);
    const { mode, logLevel } = flags;
    let maxTurns: number | undefined;
    if (args.maxTurns !== undefined) {
        maxTurns = Number(args.maxTurns);
        if (!Number.isInteger(maxTurns) || maxTurns < 1) {
            return usageError(
                `--max-turns must be a positive whole number (got "${args.maxTurns}")`
            );
        }
    }

    const warn = (message: string): void =>
        void process.stderr.write(terminalSafeText(`north: warning: ${message}\n`));
    const prepared = prepareSession(args, warn);
    if (!prepared.ok) return usageError(prepared.error);

    const piped = await readPipedStdin();
    const prompt = [args.prompt, piped.trim()].filter((p) => p && p.trim().length > 0).join("\n\n");
    if (!prompt) return usageError('no prompt: pass one (north -p "PROMPT") or pipe it on stdin');

    const handle = await startSession(prepared, {
        version,
        frontEnd: "print",
        logLevel,
        approver: printModeApprover,
        approvalSettings: (project) =>
            createPrintApprovalSettings(
                {
                    allowEdits: args.allowEdits,
                    allowConfigEdits: args.allowConfigEdits,
                    allowShell: args.allowShell,
                    allowedCommands: args.allowedCommands,
                },
                project
            ),
        // Print mode never asks: untrusted project configuration is skipped, and said so.
        decideTrust: async (inventory) => {
            if (args.trust) return "trust-once";
            warn(
                `this project is not trusted, so its own configuration was skipped: ${summarizeInventory(inventory)}. Trust it in the chat (north) or pass --trust.`
            );
            return "untrusted";
        },
        warn,
    });
    const { session, sessionId, logger } = handle;
    // Print mode has one prompt: give MCP servers a bounded moment so their tools are offered.
    if (handle.extensions.mcp) {
        await Promise.race([
            handle.extensions.mcp.settled(),
            new Promise((resolve) => setTimeout(resolve, MCP_STARTUP_WAIT_MS).unref()),
        ]);
    }

    let stdoutBroken = false;
    process.stdout.on("error", () => {
        stdoutBroken = true; // e.g. `north -p ... | head -1`: stop writing, keep going.
    });
    const stdout = createBufferedSink({
        write: (text) => {
            if (!stdoutBroken) process.stdout.write(text);
        },
    });
    const stderr = { write: (text: string) => void process.stderr.write(text) };
    const renderer = createPrintRenderer({
        format,
        sessionId,
        stdout,
        stderr,
        progress: format === "text" && process.stderr.isTTY === true,
    });
    session.subscribe((event) => renderer.onEvent(event));

    const controller = new AbortController();
    let interrupts = 0;
    const onSigint = (): void => {
        interrupts++;
        if (interrupts > 1) process.exit(EXIT.interrupted);
        controller.abort();
    };
    process.on("SIGINT", onSigint);
    process.on("SIGTERM", onSigint);
    process.on("SIGHUP", onSigint);

    // Slash commands first (`north -p "/model gpt-5.1 explain x"`); they never reach the model.
    let runMode = mode;
    const host = createCommandHost(handle, {
        resolveModel: (name) => resolveReadyModel(prepared.catalogue, name, process.env),
        profiles: createProfileStore(dataDir(), handle.repoRoot),
    });
    const { remainingText, failed } = await runPrintCommands(prompt, {
        host,
        format,
        stdout,
        stderr,
        currentModel: () => session.state().model,
        models: () => prepared.catalogue.models,
        setMode: (next) => (runMode = next),
        signal: () => controller.signal,
    });
    if (failed || !remainingText) {
        stdout.flush();
        await handle.closeAsync();
        logger.flush();
        return failed ? EXIT.usage : EXIT.ok;
    }

    // Shown as the prompt when the conversation is resumed in the chat.
    handle.recordView({ type: "user", text: remainingText, attachments: [] });
    // `--mode plan` with nobody to review: the plan is the answer, nothing is changed.
    const result = await session.run(remainingText, {
        mode: runMode,
        signal: controller.signal,
        maxTurns,
        planOnly: runMode === "plan",
    });
    await handle.closeAsync();
    renderer.finish(result);
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
    process.off("SIGHUP", onSigint);
    logger.info("app_exit", { subtype: result.subtype, numTurns: result.numTurns });
    logger.flush();
    return exitCodeFor(result);
}
