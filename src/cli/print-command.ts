import { existsSync, fstatSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";
import { MODES, type Mode } from "../agent/events";
import { AgentSession } from "../agent/session";
import {
    EXIT,
    OUTPUT_FORMATS,
    type OutputFormat,
    createBufferedSink,
    createPrintRenderer,
    exitCodeFor,
} from "../headless/print-mode";
import { createPrintApprovalSettings, printModeApprover } from "../headless/print-approvals";
import { detectRepoRoot } from "../project/repo-root";
import { createProvider } from "../providers/index";
import type { Provider } from "../providers/types";
import { LOG_LEVELS, type LogLevel, createFileLogger } from "../storage/logger";
import { createConversationStore } from "../storage/conversations";
import { dataDir, logFilePath } from "../storage/paths";
import { createProjectApprovalSettings } from "../storage/project-settings";
import type { CliArgs } from "./args";
import {
    type ResumeTarget,
    createConversationSink,
    openForResume,
    restoreConversation,
} from "./conversation-wiring";
import { resolveModelFromConfig } from "./model-selection";
import { createConversationToolset } from "./toolset";

function usageError(message: string): number {
    process.stderr.write(`north: ${message}\n`);
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
    const mode = (args.mode ?? "agent") as Mode;
    if (!MODES.includes(mode))
        return usageError(`--mode must be one of ${MODES.join(", ")} (got "${args.mode}")`);
    let maxTurns: number | undefined;
    if (args.maxTurns !== undefined) {
        maxTurns = Number(args.maxTurns);
        if (!Number.isInteger(maxTurns) || maxTurns < 1) {
            return usageError(
                `--max-turns must be a positive whole number (got "${args.maxTurns}")`
            );
        }
    }
    const logLevel = (args.logLevel ?? "info") as LogLevel;
    if (!LOG_LEVELS.includes(logLevel)) {
        return usageError(
            `--log-level must be one of ${LOG_LEVELS.join(", ")} (got "${args.logLevel}")`
        );
    }

    const store = createConversationStore(join(dataDir(), "conversations"));
    let resumed: Extract<ResumeTarget, { ok: true }> | undefined;
    if (args.resume !== undefined || args.continue) {
        let continueRepo: string | undefined;
        if (args.continue) {
            const here = detectRepoRoot(args.path ?? process.cwd());
            if (!here.ok) return usageError(`--path: ${here.error}`);
            continueRepo = here.root;
        }
        const target = openForResume(store, { resumeId: args.resume, continueRepo });
        if (!target.ok) return usageError(target.error);
        for (const warning of target.warnings) process.stderr.write(`north: warning: ${warning}\n`);
        resumed = target;
    }

    const selection = resolveModelFromConfig(
        args.model ?? resumed?.conversation.model,
        process.env
    );
    if (!selection.ok) return usageError(selection.error);
    const { model, endpoint } = selection;

    const storedRoot = resumed?.conversation.repoRoot;
    const repo = detectRepoRoot(
        args.path ?? (storedRoot && existsSync(storedRoot) ? storedRoot : process.cwd())
    );
    if (!repo.ok) return usageError(`--path: ${repo.error}`);

    const piped = await readPipedStdin();
    const prompt = [args.prompt, piped.trim()].filter((p) => p && p.trim().length > 0).join("\n\n");
    if (!prompt) return usageError('no prompt: pass one (north -p "PROMPT") or pipe it on stdin');

    const logger = createFileLogger(logFilePath(), logLevel);
    const warn = (message: string): void =>
        void process.stderr.write(`north: warning: ${message}\n`);
    let log = resumed?.log;
    if (!log) {
        const writable = store.checkWritable();
        if (writable.ok) {
            try {
                log = store.start({ repoRoot: repo.root, model: model.id });
            } catch (error) {
                warn(`this conversation will not be saved: ${(error as Error).message}`);
            }
        } else warn(`this conversation will not be saved: ${writable.error}`);
    }
    const sessionId = log?.id ?? store.newId();
    logger.info("app_start", {
        version,
        projectPath: repo.root,
        cwd: process.cwd(),
        mode: "print",
        model: model.id,
        sessionId,
        resumed: resumed !== undefined,
    });

    const restored = resumed ? restoreConversation(resumed.conversation) : undefined;
    const toolset = createConversationToolset(repo.root);
    let provider: Promise<Provider> | undefined;
    const session = new AgentSession({
        sessionId,
        repoRoot: repo.root,
        model,
        providerFor: () => (provider ??= createProvider(endpoint)),
        tools: toolset.registry,
        outputCache: toolset.outputs,
        approver: printModeApprover,
        approvalSettings: createPrintApprovalSettings(
            {
                allowEdits: args.allowEdits,
                allowShell: args.allowShell,
                allowedCommands: args.allowedCommands,
            },
            createProjectApprovalSettings(repo.root)
        ),
        logger,
        messages: restored?.messages,
        rollingSummary: restored?.rollingSummary,
        sink: log ? createConversationSink(log, warn) : undefined,
    });
    if (log && resumed && resumed.conversation.model !== model.id) {
        log.append({ type: "model_changed", model: model.id });
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

    const result = await session.run(prompt, { mode, signal: controller.signal, maxTurns });
    toolset.dispose();
    log?.append({ type: "conversation_ended" });
    log?.close();
    renderer.finish(result);
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
    process.off("SIGHUP", onSigint);
    logger.info("app_exit", { subtype: result.subtype, numTurns: result.numTurns });
    logger.flush();
    return exitCodeFor(result);
}
