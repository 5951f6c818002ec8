import type { ApprovalSettings, Approver } from "../agent/approvals";
import { AgentSession } from "../agent/session";
import type { ModelInfo } from "../providers/catalogue";
import { createProvider } from "../providers/index";
import { resolveEndpoint } from "../providers/models";
import type { Provider } from "../providers/types";
import type { ConversationLog } from "../storage/conversations";
import { type LogLevel, type Logger, createFileLogger } from "../storage/logger";
import { logFilePath } from "../storage/paths";
import { createConversationSink, restoreConversation } from "./conversation-wiring";
import { loadCatalogue } from "./model-selection";
import type { PreparedSession } from "./session-setup";
import { type ProjectExtensions, loadProjectExtensions, withMcpTools } from "./project-extensions";
import { createConversationToolset } from "./toolset";

/**
 * What print mode and the interactive TUI share, second part: the session
 * with its log, logger and tools, around a prepared (checked) start. Each
 * front-end brings its own approver.
 */

export interface SessionHandle {
    session: AgentSession;
    sessionId: string;
    repoRoot: string;
    model: ModelInfo;
    logger: Logger;
    /** Null when the conversation cannot be saved (the warning was given). */
    log: ConversationLog | undefined;
    /** Context files, hooks, skills, custom commands, costs and MCP servers of the project. */
    extensions: ProjectExtensions;
    /** Disposes the tools (running commands are killed), ends and closes the log. */
    close(): void;
    /** `close()`, then SessionEnd hooks and a clean stop of MCP servers. */
    closeAsync(): Promise<void>;
}

export interface StartSessionOptions {
    version: string;
    /** Written to the log's `app_start` line. */
    frontEnd: "print" | "interactive";
    logLevel: LogLevel;
    approver: Approver;
    approvalSettings: (repoRoot: string) => ApprovalSettings;
    warn: (message: string) => void;
}

/** Opens (or continues) the conversation log and builds the session around it. */
export async function startSession(
    prepared: PreparedSession,
    options: StartSessionOptions
): Promise<SessionHandle> {
    const { store, resumed, model, endpoint, repoRoot } = prepared;
    const { warn } = options;
    const logger = createFileLogger(logFilePath(), options.logLevel);
    let log = resumed?.log;
    if (!log) {
        const writable = store.checkWritable();
        if (writable.ok) {
            try {
                log = store.start({ repoRoot, model: model.id });
            } catch (error) {
                warn(`this conversation will not be saved: ${(error as Error).message}`);
            }
        } else warn(`this conversation will not be saved: ${writable.error}`);
    }
    const sessionId = log?.id ?? store.newId();
    logger.info("app_start", {
        version: options.version,
        projectPath: repoRoot,
        cwd: process.cwd(),
        mode: options.frontEnd,
        model: model.id,
        sessionId,
        resumed: resumed !== undefined,
    });

    const extensions = await loadProjectExtensions(repoRoot, {
        sessionId,
        version: options.version,
        resumed: resumed !== undefined,
        warn,
    });
    const restored = resumed ? restoreConversation(resumed.conversation) : undefined;
    const toolset = createConversationToolset(repoRoot, extensions.extraTools);
    // One provider per provider id, so a model switch can change provider mid-conversation.
    const providers = new Map<string, Promise<Provider>>([
        [model.provider, createProvider(endpoint)],
    ]);
    const loaded = loadCatalogue(process.env);
    const providerFor = (wanted: ModelInfo): Promise<Provider> => {
        let provider = providers.get(wanted.provider);
        if (!provider) {
            const info = loaded.ok ? loaded.catalogue.providers.get(wanted.provider) : undefined;
            const resolved = info ? resolveEndpoint(info, process.env) : null;
            provider = resolved?.ok
                ? createProvider(resolved.endpoint)
                : Promise.reject(
                      new Error(
                          resolved && !resolved.ok
                              ? resolved.error
                              : `provider "${wanted.provider}" is not configured`
                      )
                  );
            providers.set(wanted.provider, provider);
        }
        return provider;
    };
    const session = new AgentSession({
        sessionId,
        repoRoot,
        model,
        providerFor,
        tools: withMcpTools(toolset.registry, extensions.mcp),
        context: extensions.context,
        hookSettings: extensions.hookSettings,
        usageSink: ({ model: used, usage, costUsd }) =>
            void extensions.costs.add({
                modelId: used.id,
                provider: used.provider,
                inputTokens: usage.inputTokens,
                outputTokens: usage.outputTokens,
                cacheReadTokens: usage.cacheReadTokens,
                cacheWriteTokens: usage.cacheWriteTokens,
                costUsd,
            }),
        outputCache: toolset.outputs,
        approver: options.approver,
        approvalSettings: options.approvalSettings(repoRoot),
        logger,
        messages: restored?.messages,
        rollingSummary: restored?.rollingSummary,
        sink: log ? createConversationSink(log, warn) : undefined,
    });
    if (log && resumed && resumed.conversation.model !== model.id) {
        log.append({ type: "model_changed", model: model.id });
    }

    let closed = false;
    const close = (): void => {
        if (closed) return;
        closed = true;
        toolset.dispose();
        log?.append({ type: "conversation_ended" });
        log?.close();
        logger.flush();
    };
    return {
        session,
        sessionId,
        repoRoot,
        model,
        logger,
        log,
        extensions,
        close,
        async closeAsync() {
            close();
            await extensions.close().catch(() => undefined);
        },
    };
}
