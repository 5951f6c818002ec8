import { existsSync } from "node:fs";
import { basename } from "node:path";
import { EMPTY_USAGE } from "../providers/types";
import { plainAllTimeCost } from "../storage/all-time-cost";
import { listedModelNames, loadListedModels } from "../storage/listed-models";
import { withListedModels } from "./model-selection";
import { dataDir } from "../storage/paths";
import { createProfileStore } from "../storage/profile";
import { openPromptHistory } from "../storage/prompt-history";
import { userAsksForSandbox } from "../tools/sandbox/policy";
import { createApprovalBridge } from "../ui/approval-bridge";
import type { CliArgs } from "./args";
import { printError, terminalSafeText, writeStdout } from "../util/terminal-text";
import { checkSessionFlags, prepareSession } from "./session-setup";
import type { EngineSession } from "./session-start";

const EXIT_USAGE = 2;

function usageError(message: string): number {
    printError(message);
    return EXIT_USAGE;
}

/** Options that only make sense when nobody can be asked. */
function printOnlyFlag(args: CliArgs): string | null {
    if (args.outputFormat !== undefined) return "--output-format";
    if (args.maxTurns !== undefined) return "--max-turns";
    if (args.allowEdits) return "--allow-edits";
    if (args.allowConfigEdits) return "--allow-config-edits";
    if (args.allowShell) return "--allow-shell";
    if (args.allowedCommands.length > 0) return "--allowed-command";
    return null;
}

/**
 * Loads the UI chunk. Ink decides at load time whether to draw: it draws
 * nothing live when `CI` is set, and chalk ignores `NO_COLOR`; both are
 * adjusted for the import only, so commands North runs see the real env.
 * `fetch` is hidden for the import too: Yoga's loader otherwise fetches its
 * inlined wasm through it, and Node's first `fetch` loads undici (~50 ms
 * before the first frame); without it Yoga decodes the same bytes directly.
 */
async function importUi(colors: boolean) {
    const saved = {
        CI: process.env.CI,
        CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION,
        FORCE_COLOR: process.env.FORCE_COLOR,
    };
    delete process.env.CI;
    delete process.env.CONTINUOUS_INTEGRATION;
    if (!colors) process.env.FORCE_COLOR = "0";
    // Node's `fetch` loads undici on its first call; saving and restoring it loads nothing.
    const fetchDescriptor = Object.getOwnPropertyDescriptor(globalThis, "fetch");
    Object.defineProperty(globalThis, "fetch", {
        value: undefined,
        configurable: true,
        writable: true,
    });
    try {
        return await import("../ui/run-app");
    } finally {
        if (fetchDescriptor) Object.defineProperty(globalThis, "fetch", fetchDescriptor);
        else delete (globalThis as { fetch?: unknown }).fetch;
        for (const [key, value] of Object.entries(saved)) {
            if (value === undefined) delete process.env[key];
            else process.env[key] = value;
        }
    }
}

/**
 * `north [PROMPT]`: the interactive TUI in the detected repository. The UI
 * draws first; the engine (tools, providers, the conversation log) loads
 * behind the first frame.
 */
export async function runInteractiveCommand(givenArgs: CliArgs, version: string): Promise<number> {
    let args = givenArgs;
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
        return usageError(
            'the interactive mode needs a terminal (stdin and stdout must be a TTY); for scripts and pipes use print mode: north -p "PROMPT"'
        );
    }
    const printOnly = printOnlyFlag(args);
    if (printOnly) return usageError(`${printOnly} is a print-mode option: use it with -p`);
    const flags = checkSessionFlags(args);
    if (!flags.ok) return usageError(flags.error);

    const notices: Array<{ level: "info" | "warning"; text: string }> = [];
    let warn = (message: string): void => void notices.push({ level: "warning", text: message });
    // `--worktree`: the chat runs in a new worktree; leaving it offers to keep, merge or remove it.
    const worktreeSession =
        args.worktree === undefined
            ? undefined
            : await import("./subcommands").then((m) => m.openSessionWorktree(args));
    if (worktreeSession && !worktreeSession.ok) return usageError(worktreeSession.error);
    const inWorktree = worktreeSession?.session;
    if (inWorktree) {
        args = inWorktree.args;
        for (const note of inWorktree.notes) notices.push({ level: "info", text: note });
    }
    const prepared = await prepareSession(
        args,
        (message) => warn(message),
        // The full settings check comes with the engine, which the chat loads next anyway.
        () => import("./engine-entry").then((engine) => engine.loadUserSettings)
    );
    if (!prepared.ok) return usageError(prepared.error);
    if (inWorktree) {
        prepared.worktree = {
            mainRoot: inWorktree.worktree.repoRoot,
            name: inWorktree.worktree.name,
        };
    }
    const { model, repoRoot } = prepared;
    // The model is named by the status line, which follows `/model`; a header naming it would go stale.
    notices.unshift({
        level: "info",
        text: `North · ${repoRoot}\nEnter sends · Ctrl+J newline · / commands (/help) · Tab mode · @ attaches a file · PgUp/PgDn scroll · Ctrl+C cancels (twice to exit) · Ctrl+D exits`,
    });
    if (prepared.resumed) {
        notices.splice(1, 0, {
            level: "info",
            text: `Continuing conversation ${prepared.resumed.conversation.id}`,
        });
    }

    // A resumed conversation's figures and history show from the first frame.
    const resumedView = prepared.resumed
        ? await import("./resume-wiring").then(({ historyOf, restoredStateOf }) => ({
              state: restoredStateOf(prepared.resumed!.conversation),
              history: historyOf(prepared.resumed!.conversation),
          }))
        : undefined;
    const resumedState = resumedView?.state ?? {
        contextUsedTokens: 0,
        totalUsage: { ...EMPTY_USAGE },
        totalCostUsd: 0,
    };
    const profiles = createProfileStore(dataDir(), repoRoot);
    const promptHistory = openPromptHistory(dataDir(), repoRoot, {
        warn: (message) => warn(message),
    });
    // A costs file that needs repair shows 0 until the engine's cost store has moved it aside
    // (it starts over at 0) and said so in the transcript.
    const allTimeUsd = plainAllTimeCost(dataDir()) ?? 0;
    const bridge = createApprovalBridge();
    const colors = !process.env.NO_COLOR;
    const { runInteractiveApp } = await importUi(colors);

    let handle: EngineSession | null = null;
    let closed = false;
    // runInteractiveApp draws the first frame synchronously, so the engine's files are read
    // and compiled only once it is on screen (a resumed conversation's tool titles load first).
    const engine = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => import("./engine-entry"))
        .then(async ({ startInteractiveSession, summarizeInventory }) => {
            const started = await startInteractiveSession(prepared, {
                version,
                logLevel: flags.logLevel,
                mode: flags.mode,
                profiles,
                reviews: bridge.approver,
                // Asked before any of the project's hooks or servers run; Esc or Ctrl+C: not trusted.
                decideTrust: async (inventory) => {
                    if (args.trust) return "trust-once";
                    const answer = await bridge.askTrust(inventory);
                    if (answer) {
                        // A second, separate yes: trusting the project installs nothing.
                        if (inventory.plugins?.plugins.some((p) => p.state === "not installed")) {
                            // Through the rarely used commands' split point: no chunk of its own.
                            const offer = await import("./subcommands");
                            await offer.offerDeclaredPlugins(
                                inventory.plugins,
                                offer.chatPluginAsker(bridge, warn),
                                { dataDir: dataDir(), projectDir: repoRoot }
                            );
                        }
                        return "trust";
                    }
                    warn(
                        `this project is not trusted, so its own configuration was skipped: ${summarizeInventory(inventory)}. North asks again next time.`
                    );
                    return "untrusted";
                },
                warn: (message) => warn(message),
                mcpPrompts: {
                    elicit: (request, signal) => bridge.askElicitation(request, signal),
                    approveSampling: (request, signal) => bridge.askSampling(request, signal),
                },
            });
            handle = started;
            if (closed) started.close();
            return {
                host: started.host,
                toolDisplays: started.toolDisplays,
                contextFiles: started.extensions.contextFiles.map((file) => file.label),
                customCommands: started.extensions.customCommands,
                pluginCommands: started.extensions.plugins,
                history: started.host.conversation.history,
                statusLine: started.statusLine,
            };
        });
    const code = await runInteractiveApp({
        engine,
        initialCosts: { sessionUsd: resumedState.totalCostUsd, allTimeUsd },
        models: withListedModels(
            prepared.catalogue,
            listedModelNames(loadListedModels(process.env))
        ),
        learning: {
            ask: !profiles.hasProfile() && !profiles.hasDeclined(),
            decline: () => profiles.markDeclined(),
        },
        initialState: {
            model,
            running: false,
            contextUsedTokens: resumedState.contextUsedTokens,
            contextLimitTokens: model.contextLimitTokens,
            contextUsage:
                model.contextLimitTokens > 0
                    ? resumedState.contextUsedTokens / model.contextLimitTokens
                    : 0,
            totalCostUsd: resumedState.totalCostUsd,
            totalUsage: resumedState.totalUsage,
        },
        bridge,
        repoRoot,
        // A folder name can hold escape sequences too.
        projectName:
            terminalSafeText(
                inWorktree
                    ? `${basename(inWorktree.worktree.repoRoot)} · worktree ${inWorktree.worktree.name}`
                    : basename(repoRoot) || repoRoot
            ) +
            (userAsksForSandbox(prepared.sandbox, prepared.userMerged.sandbox)
                ? " · sandboxed"
                : ""),
        mode: flags.mode,
        altScreen: args.altScreen,
        colors,
        theme: prepared.userMerged.theme,
        mouse: prepared.userMerged.mouse,
        editorMode: prepared.userMerged.editorMode,
        notifications: prepared.userMerged.notifications,
        version,
        initialPrompt: args.prompt?.trim() || undefined,
        initialHistory: resumedView?.history,
        notices,
        close: () => {
            closed = true;
            handle?.close();
        },
        bindWarnings: (show) => {
            warn = show;
        },
        promptHistory,
        exitTranscript: prepared.userMerged.exitTranscript,
    });
    const finished = handle as EngineSession | null;
    if (finished) {
        const { conversation } = finished.host;
        // A conversation nothing was said in was never created: nothing to continue.
        if (code === 0 && conversation.log && existsSync(conversation.log.path)) {
            writeStdout(`Continue this conversation: north --resume ${conversation.sessionId}\n`);
        }
        finished.logger.info("app_exit", { mode: "interactive", code });
        finished.logger.flush();
        // SessionEnd hooks and a clean stop of MCP servers (the screen is already restored).
        await finished.closeAsync();
    }
    if (inWorktree) {
        const { offerWorktreeExit, askOnTerminal } = await import("./subcommands");
        await offerWorktreeExit(inWorktree, askOnTerminal, writeStdout);
    }
    return code;
}
