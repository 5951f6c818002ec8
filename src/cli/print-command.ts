import { PROMPT_STDIN_NOTICE, readPipedStdin } from "./piped-stdin";
import {
    EXIT,
    OUTPUT_FORMATS,
    type OutputFormat,
    createBufferedSink,
    createPrintRenderer,
    exitCodeFor,
    jsonLine,
} from "../headless/print-mode";
import { printError, printWarning, writeStderr } from "../util/terminal-text";
import { readBoundedLines } from "../util/bounded-lines";
import { MAX_PROMPT_BYTES } from "../tools/limits";
import { awaitMcpServers, mcpReports } from "./mcp-reports";
import { promptSizeProblem } from "./prompt-size";
import { createPrintApprovalSettings, printModeApprover } from "../headless/print-approvals";
import { runPrintCommands } from "../headless/print-commands";
import {
    declineSecrets,
    stopRunningProcesses,
    stoppedProcessesText,
    withFinalProcesses,
} from "../headless/print-processes";
import { createMessageSecrets } from "../headless/stream-secrets";
import { attachMentionedFiles } from "../headless/print-attachments";
import {
    INPUT_FORMATS,
    type InputFormat,
    type MessageApprovals,
    createMessageApprovals,
    driveStreamInput,
} from "../headless/stream-input";
import { answerApprovalsWith } from "../agent/approval-answers";
import type { RunResult } from "../agent/events";
import { isEngineEvent } from "../agent/protocol";
import { createProfileStore } from "../storage/profile";
import { dataDir } from "../storage/paths";
import { resolveReadyModel } from "./model-selection";
import type { CliArgs } from "./args";
import { checkSessionFlags, prepareSession } from "./session-setup";
import { loadUserSettings } from "../storage/settings/load";
import { startSession } from "./session-start";
import { summarizeInventory } from "./project-trust";
import { declaredPluginNotes } from "./project-declared-plugins";
import { watchParent } from "./parent-watch";

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
type StopSignal = (typeof STOP_SIGNALS)[number];
/** 128 + the signal's number, as shells report it. */
const SIGNAL_ENDINGS: Record<StopSignal, { code: number; reason: string }> = {
    SIGINT: { code: EXIT.interrupted, reason: "cancelled by the user" },
    SIGTERM: { code: EXIT.terminated, reason: "terminated (SIGTERM)" },
    SIGHUP: { code: EXIT.hangup, reason: "terminated: the terminal went away (SIGHUP)" },
};

function usageError(message: string): number {
    printError(message);
    return EXIT.usage;
}

export async function runPrintCommand(givenArgs: CliArgs, version: string): Promise<number> {
    let args = givenArgs;
    const format = (args.outputFormat ?? "text") as OutputFormat;
    if (!OUTPUT_FORMATS.includes(format)) {
        return usageError(
            `--output-format must be one of ${OUTPUT_FORMATS.join(", ")} (got "${args.outputFormat}")`
        );
    }
    const inputFormat = (args.inputFormat ?? "text") as InputFormat;
    if (!INPUT_FORMATS.includes(inputFormat)) {
        return usageError(
            `--input-format must be one of ${INPUT_FORMATS.join(", ")} (got "${args.inputFormat}")`
        );
    }
    const streamInput = inputFormat === "stream-json";
    if (streamInput && format !== "stream-json") {
        return usageError("--input-format stream-json needs --output-format stream-json");
    }
    if (streamInput && args.prompt) {
        return usageError(
            "--input-format stream-json reads every prompt from stdin; pass no PROMPT argument"
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

    const warn = printWarning;
    // `--worktree`: the session's project root is a new worktree, kept when the run ends.
    const worktreeSession =
        args.worktree === undefined
            ? undefined
            : await import("./subcommands").then((m) => m.openSessionWorktree(args));
    if (worktreeSession && !worktreeSession.ok) return usageError(worktreeSession.error);
    const inWorktree = worktreeSession?.session;
    if (inWorktree) {
        args = inWorktree.args;
        for (const note of inWorktree.notes) writeStderr(`north: ${note}\n`);
    }
    // Refused before the session started: the new worktree holds nothing, so it goes.
    const unstarted = async (message: string): Promise<number> => {
        if (inWorktree) {
            const { removeWorktree } = await import("./subcommands");
            await removeWorktree(inWorktree.worktree, { deleteBranch: true }).catch(
                () => undefined
            );
        }
        return usageError(message);
    };
    const prepared = await prepareSession(args, warn, async () => loadUserSettings);
    if (!prepared.ok) return unstarted(prepared.error);
    if (inWorktree) {
        prepared.worktree = {
            mainRoot: inWorktree.worktree.repoRoot,
            name: inWorktree.worktree.name,
        };
    }
    if (prepared.script.maxBudgetUsd !== undefined && !prepared.model.pricing) {
        return unstarted(
            `--max-budget-usd needs a model with a known price; ${prepared.model.id} has none (see north models)`
        );
    }

    const piped = streamInput
        ? ""
        : ((await readPipedStdin({ waitingNotice: PROMPT_STDIN_NOTICE })) ?? "");
    const prompt = [args.prompt, piped.trim()].filter((p) => p && p.trim().length > 0).join("\n\n");
    if (!prompt && !streamInput) {
        return unstarted('no prompt: pass one (north -p "PROMPT") or pipe it on stdin');
    }
    // Before the session starts: a prompt no request can carry leaves no conversation behind.
    const sizeProblem = streamInput ? null : promptSizeProblem(prompt, prepared.model);
    if (sizeProblem !== null) return unstarted(sizeProblem);

    let stdoutBroken = false;
    process.stdout.on("error", () => {
        stdoutBroken = true; // e.g. `north -p ... | head -1`: stop writing, keep going.
    });
    const stdout = createBufferedSink({
        write: (text) => {
            if (!stdoutBroken) process.stdout.write(text);
        },
    });
    const handle = await startSession(prepared, {
        version,
        frontEnd: "print",
        logLevel,
        mode,
        resolveModel: (name) => resolveReadyModel(prepared.catalogue, name, process.env),
        profiles: createProfileStore(dataDir(), prepared.repoRoot),
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
            if (args.trust) {
                // Listed, never installed: installing a plugin takes a yes print mode cannot ask.
                if (inventory.plugins) declaredPluginNotes(inventory.plugins).forEach(warn);
                return "trust-once";
            }
            warn(
                `this project is not trusted, so its own configuration was skipped: ${summarizeInventory(inventory)}. Trust it in the chat (north) or pass --trust.`
            );
            return "untrusted";
        },
        warn,
    });
    const { host, logger } = handle;
    const sessionId = host.state().conversationId;
    // Approval requests go out at once: the client is waiting to answer them.
    const messageApprovals: MessageApprovals | null = streamInput
        ? createMessageApprovals(host, (line) => {
              stdout.write(jsonLine(line));
              stdout.flush();
          })
        : null;
    if (!messageApprovals) answerApprovalsWith(host, printModeApprover);
    // A password prompt: a stream-json client may answer it (its user types it); else nobody can.
    const messageSecrets = streamInput
        ? createMessageSecrets(host, (line) => {
              stdout.write(jsonLine(line));
              stdout.flush();
          })
        : null;
    if (!messageSecrets) declineSecrets(host, warn);
    // Print mode has one prompt: give MCP servers a bounded moment so their tools are offered.
    const mcp = handle.extensions.mcp;
    if (mcp) await awaitMcpServers(mcp, warn);

    const stderr = { write: (text: string) => void process.stderr.write(text) };
    const renderer = createPrintRenderer({
        format,
        sessionId,
        stdout,
        stderr,
        progress: format === "text" && process.stderr.isTTY === true,
        mcpServers: () => (mcp ? mcpReports(mcp) : []),
        resultExtras: inWorktree
            ? (await import("./subcommands")).worktreeResultField(inWorktree.worktree)
            : undefined,
    });
    const reportWorktree = async (): Promise<void> => {
        if (!inWorktree) return;
        const { printModeWorktreeText } = await import("./subcommands");
        writeStderr(printModeWorktreeText(inWorktree.worktree));
    };
    host.subscribe((event) => {
        if (isEngineEvent(event)) renderer.onEvent(event);
    });

    const controller = new AbortController();
    let interrupts = 0;
    let stoppedBy: StopSignal | undefined;
    const onSignal = (signal: NodeJS.Signals): void => {
        interrupts++;
        stoppedBy ??= signal as StopSignal;
        if (interrupts > 1) {
            // A second signal stops at once, keeping the costs of the turns already answered.
            handle.extensions.costs.flush();
            process.exit(SIGNAL_ENDINGS[stoppedBy].code);
        }
        controller.abort();
        stdinLines?.close();
    };
    // Bounded before buffering: a huge line is dropped as it arrives, never kept.
    const stdinLines = streamInput ? readBoundedLines(process.stdin, MAX_PROMPT_BYTES) : null;
    for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
    // An attempt whose run was killed stops as if terminated.
    watchParent(process.env, () => onSignal("SIGTERM"));

    // One prompt: slash commands, `@path` attachments, then the model. A number is
    // the exit code of a prompt that never reached the model.
    const runPrompt = async (prompt: string): Promise<RunResult | number> => {
        // Slash commands first (`north -p "/model gpt-5.1 explain x"`); they never reach the model.
        const { remainingText, failed } = await runPrintCommands(prompt, {
            host,
            format,
            stdout,
            stderr,
            customCommands: handle.extensions.customCommands,
            skillNames: handle.extensions.skills.map((skill) => skill.name),
        });
        if (failed || !remainingText) {
            stdout.flush();
            return failed ? EXIT.usage : EXIT.ok;
        }

        // `@path` mentions attach files as the chat's picker does; the chat's outline too.
        const attachments = await attachMentionedFiles(
            handle.repoRoot,
            remainingText,
            async () => {
                const { outlineOf } = await import("../ui/attachment-outline");
                return outlineOf;
            },
            {
                readDenial: async (path) => (await host.submit({ type: "read_denial", path })).rule,
                onDenied: (path, rule) =>
                    warn(`not attached: reading ${path} is denied by the permission rule ${rule}`),
            }
        );
        if (attachments.missing.length > 0) {
            warn(`not attached (missing or unreadable): ${attachments.missing.join(", ")}`);
        }
        // The answer would be about a picture the model never saw: stop before paying for it.
        if (attachments.refused.length > 0) {
            for (const { path, reason } of attachments.refused)
                warn(`not attached: ${path}: ${reason}`);
            stdout.flush();
            return EXIT.usage;
        }
        for (const { path, note } of attachments.scaled) printError(`${path}: ${note}`);
        // A stream-json prompt no request can carry is refused here, so later ones still fit.
        const sizeProblem = promptSizeProblem(remainingText, host.state().model);
        if (sizeProblem !== null) {
            if (streamInput) stdout.write(jsonLine({ type: "error", error: sizeProblem }));
            printError(sizeProblem);
            stdout.flush();
            return EXIT.usage;
        }
        // Shown as the prompt when the conversation is resumed in the chat.
        const action = { type: "user", text: remainingText, attachments: attachments.attached };
        await host.submit({ type: "record_view", action });
        // An edit approved with "remember":"all" put the host in accept-edits: the next
        // prompt runs in it, as the chat's does. `--mode plan` with nobody to review: the
        // plan is the answer, nothing is changed.
        return host.submit({
            type: "prompt",
            text: remainingText,
            signal: controller.signal,
            maxTurns,
            planOnly: host.state().mode === "plan",
            attachedContext: attachments.context,
            attachedImages: attachments.images,
        });
    };

    if (stdinLines && messageApprovals) {
        const code = await driveStreamInput({
            lines: stdinLines,
            approvals: messageApprovals,
            secrets: messageSecrets ?? undefined,
            signal: controller.signal,
            emit: (line) => stdout.write(jsonLine(line)),
            warn: printError,
            runPrompt: async (text) => {
                const result = await runPrompt(text);
                if (typeof result === "number") return result;
                const ending =
                    stoppedBy && result.subtype === "cancelled" ? SIGNAL_ENDINGS[stoppedBy] : null;
                renderer.finish(ending ? { ...result, error: ending.reason } : result);
                return exitCodeFor(result);
            },
        });
        // Processes live from one prompt to the next; none outlives the session (their `process` lines say so).
        await stopRunningProcesses(host);
        stdout.flush();
        await handle.closeAsync();
        await reportWorktree();
        for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
        logger.info("app_exit", { subtype: stoppedBy ? "cancelled" : "stream_input_end" });
        logger.flush();
        return stoppedBy ? SIGNAL_ENDINGS[stoppedBy].code : code;
    }

    const ran = await runPrompt(prompt);
    if (typeof ran === "number") {
        await handle.closeAsync();
        await reportWorktree();
        logger.flush();
        return ran;
    }
    // Nothing the run started outlives `north -p` (Ctrl+C and SIGTERM end the run, and come here too).
    const { stopped, all } = await stopRunningProcesses(host);
    const result = withFinalProcesses(ran, all);
    if (format === "text") writeStderr(stoppedProcessesText(stopped));
    await handle.closeAsync();
    // A signal's own words and exit code: kill (SIGTERM) is not the user's Ctrl+C.
    const ending = stoppedBy && result.subtype === "cancelled" ? SIGNAL_ENDINGS[stoppedBy] : null;
    renderer.finish(ending ? { ...result, error: ending.reason } : result);
    await reportWorktree();
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
    logger.info("app_exit", { subtype: result.subtype, numTurns: result.numTurns });
    logger.flush();
    return ending ? ending.code : exitCodeFor(result);
}
