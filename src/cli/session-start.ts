import type { ApprovalSettings, Approver, StandingAutoApproval } from "../agent/approvals";
import { AgentSession, type SessionOptions, type ToolRunner } from "../agent/session";
import type { ModelInfo } from "../providers/catalogue";
import { createProvider } from "../providers/index";
import { type ModelCatalogue, resolveEndpoint, resolveModel } from "../providers/models";
import type { Message, Provider } from "../providers/types";
import {
    type ConversationLog,
    type ConversationStore,
    type LoadedConversation,
    type OpenResult,
    createConversationStore,
} from "../storage/conversations";
import type { CostBreakdown } from "../storage/costs";
import { type LogLevel, type Logger, createFileLogger } from "../storage/logger";
import { secretEnvNames } from "../util/child-env";
import { dataDir, logFilePath } from "../storage/paths";
import { loadMemory, memoryDirs } from "../project/memory";
import { createProjectApprovalSettings } from "../storage/project-settings";
import { parseProjectLayers, resolveSettings } from "../storage/settings/load";
import { createTrustStore } from "../storage/trust";
import {
    type ViewRecorder,
    createConversationSink,
    createUsageRecorder,
    createViewRecorder,
    entryIdsFrom,
    historyOf,
    isPromptEntry,
    promptText,
    restoreConversation,
    restoredUsage,
} from "./conversation-wiring";
import type { SwitchResult } from "../commands/host";
import type { PermissionListing } from "../commands/types";
import { type SessionCosts, createSessionCosts } from "../agent/session-costs";
import { createCheckpointStore } from "../storage/checkpoints";
import { conversationCheckpoints } from "./checkpoint-wiring";
import type { PreparedSession } from "./session-setup";
import { type ProjectExtensions, loadProjectExtensions, withMcpTools } from "./project-extensions";
import { type TrustDecider, settleProjectTrust } from "./project-trust";
import {
    createPermissionCatalog,
    loadSessionPermissions,
    withPermissionRules,
} from "./permission-wiring";
import { createPersonalApprovalStore } from "../storage/standing-approvals";
import { createSessionSandbox } from "./sandbox-setting";
import { loadSubagents } from "./subagent-wiring";
import { createConversationToolset } from "./toolset";
import { addedDirsNote, withoutTools } from "./script-flags";
import { type McpUserPrompts, type SamplingDeps, mcpClientHandlers } from "./mcp-sampling";

/**
 * What print mode and the interactive TUI share, second part: the session
 * with its log, logger and tools, around a prepared (checked) start. Each
 * front-end brings its own approver. The TUI may switch conversations
 * (`/new`, `/resume`): tools, providers and the shell stay, the session and
 * its log change.
 */

export interface SessionHandle {
    /** The conversation now; `newConversation` and `resumeConversation` replace it. */
    readonly session: AgentSession;
    readonly sessionId: string;
    /** Null when the conversation cannot be saved (the warning was given). */
    readonly log: ConversationLog | undefined;
    repoRoot: string;
    /** The model North started with. */
    model: ModelInfo;
    catalogue: ModelCatalogue;
    store: ConversationStore;
    logger: Logger;
    /** Every tool, MCP ones included; shared by the conversations of this process. */
    tools: ToolRunner;
    /** Builds (once per provider id) the provider serving a model. */
    providerFor(model: ModelInfo): Promise<Provider>;
    /** Context files, hooks, skills, custom commands, costs and MCP servers of the project. */
    extensions: ProjectExtensions;
    /** The permission rules and standing approvals in force and their sources (`/permissions`). */
    permissions(): PermissionListing;
    /** Standing auto-approval in force now (settings, or "every command" this session). */
    standingAutoApproval(): StandingAutoApproval;
    /** Removes entry `number` of `permissions()` from its file and this session (`/permissions`). */
    removePermission(number: number): { ok: boolean; message: string };
    /** The `Read(...)` deny rule covering an absolute path, if any. */
    readDenial(absPath: string): string | undefined;
    costs: {
        /** What this conversation cost, per model (a resumed one's earlier spend included). */
        readonly session: SessionCosts;
        /** The all-time totals as of the last response (or the start). */
        allTime(): CostBreakdown;
        /** Records one response's usage in both; hand to anything that calls a model. */
        record: NonNullable<SessionOptions["usageSink"]>;
    };
    /** Sends `profile` (a freshly learned one) with every later request, in this conversation and the next. */
    setProfile(profile: string): void;
    /** Ends the current conversation's log and starts a new, empty conversation. */
    newConversation(): { warnings: string[] };
    /** Ends the current conversation's log and continues a stored one of this project (any unique id prefix). */
    resumeConversation(id: string): { ok: true; warnings: string[] } | { ok: false; error: string };
    /** Continues in a copy of this conversation, up to just before prompt `beforeEntryId` when given. */
    forkConversation(beforeEntryId?: string): SwitchResult;
    /** Takes the conversation back to just before prompt `entryId` (the log keeps everything). */
    rewindConversation(entryId: string): SwitchResult;
    /** The user prompts of this conversation, oldest first, with their entry ids. */
    prompts(): ConversationPrompt[];
    /** What the conversation showed so far (its `view` records) and its messages, for the chat. */
    history(): ConversationHistory;
    /** Records one of the chat's own transcript actions (prompt, review, notice, command). */
    recordView(action: Record<string, unknown>): void;
    /** Disposes the tools (running commands are killed), ends and closes the log. */
    close(): void;
    /** `close()`, then SessionEnd hooks and a clean stop of MCP servers. */
    closeAsync(): Promise<void>;
}

export interface ConversationPrompt {
    entryId: string;
    text: string;
    /** This prompt's id and every later entry's, rewound ones included (for checkpoints). */
    fromHere: string[];
}

export interface ConversationHistory {
    view: ReadonlyArray<Record<string, unknown>>;
    messages: readonly Message[];
    /** Messages older than the first view record (logs from before views were kept). */
    messagesBeforeView: number;
}

export interface StartSessionOptions {
    version: string;
    /** Written to the log's `app_start` line. */
    frontEnd: "print" | "interactive";
    logLevel: LogLevel;
    approver: Approver;
    /**
     * The permissions in force, given the project's standing ones (its
     * settings under live trust): the chat uses them as they are, print mode
     * adds its flags.
     */
    approvalSettings: (project: ApprovalSettings) => ApprovalSettings;
    /** Settles an untrusted project's configuration: the chat asks, print mode skips. */
    decideTrust: TrustDecider;
    warn: (message: string) => void;
    /** Asks the user for MCP servers' forms and sampling requests (the chat); without: declined. */
    mcpPrompts?: McpUserPrompts;
    /**
     * Base environment of commands, hooks and MCP servers (the Node API's
     * `env` merged over `process.env`); default `process.env`.
     */
    childEnv?: NodeJS.ProcessEnv;
}

/** Opens (or continues) the conversation log and builds the session around it. */
export async function startSession(
    prepared: PreparedSession,
    options: StartSessionOptions
): Promise<SessionHandle> {
    const { resumed, model, endpoint, repoRoot, catalogue } = prepared;
    const store = prepared.store ?? createConversationStore();
    const { warn } = options;
    // Start loading the provider's SDK now: it compiles while the project's files are read.
    const providers = new Map<string, Promise<Provider>>([
        [model.provider, createProvider(endpoint)],
    ]);
    // Provider keys stay with North: kept from every child process, masked in the log.
    const hiddenEnv = secretEnvNames([...catalogue.providers.values()].map((p) => p.apiKeyEnv));
    const logger = createFileLogger(logFilePath(), options.logLevel, {
        secrets: hiddenEnv.map((name) => process.env[name]),
    });
    const openLog = (modelId: string, warnings: string[]): ConversationLog | undefined => {
        const writable = store.checkWritable();
        if (!writable.ok) {
            warnings.push(`this conversation will not be saved: ${writable.error}`);
            return undefined;
        }
        try {
            return store.start({ repoRoot, model: modelId });
        } catch (error) {
            warnings.push(`this conversation will not be saved: ${(error as Error).message}`);
            return undefined;
        }
    };
    let log = resumed?.log;
    if (!log) {
        const warnings: string[] = [];
        log = openLog(model.id, warnings);
        warnings.forEach((w) => warn(w));
    }
    let sessionId = log?.id ?? store.newId();
    logger.info("app_start", {
        version: options.version,
        projectPath: repoRoot,
        cwd: process.cwd(),
        mode: options.frontEnd,
        model: model.id,
        sessionId,
        resumed: resumed !== undefined,
    });

    // Before anything of the project's runs: its hooks and servers need the user's trust.
    const trust = await settleProjectTrust(
        repoRoot,
        createTrustStore(dataDir()),
        options.decideTrust
    );
    logger.info("project_trust", {
        trusted: trust.trusted,
        gatedItems: trust.inventory.items.length,
    });
    // A FIFO, a symlink out of the repo or an unreadable settings file: say why it was left out.
    for (const [name, reason] of Object.entries(trust.snapshot.unreadable)) {
        warn(reason.includes(name) ? reason : `${name}: ${reason}`);
    }
    // Every settings layer, read once: the user's at preparation, the project's now, if trusted.
    const settings = resolveSettings(
        repoRoot,
        prepared.userSettings,
        trust.trusted ? trust.snapshot.files : undefined
    );
    settings.warnings.forEach((w) => warn(w));
    // Set once the session exists; a server's sampling request before that is refused.
    let samplingDeps: SamplingDeps | null = null;
    const extensions = await loadProjectExtensions(repoRoot, {
        sessionId,
        version: options.version,
        resumed: resumed !== undefined,
        trust,
        settings,
        warn,
        hiddenEnv,
        mcpRoots: [repoRoot, ...prepared.script.addDirs],
        mcpClient: options.mcpPrompts
            ? mcpClientHandlers(options.mcpPrompts, () => samplingDeps)
            : undefined,
        childEnv: options.childEnv,
    });
    const sandbox = createSessionSandbox(
        settings.layers,
        prepared.sandbox,
        warn,
        {},
        prepared.script.addDirs
    );
    const subagents = await loadSubagents(
        repoRoot,
        trust.trusted,
        catalogue,
        warn,
        prepared.userMerged.subagents?.tools
    );
    const toolset = createConversationToolset(
        repoRoot,
        [...extensions.extraTools, subagents.tool],
        {
            hiddenEnv,
            sandbox,
            env: options.childEnv,
            // A user setting only: a project must not open its own network to the model.
            webFetchAllowPrivateNetwork: prepared.userMerged.webFetch?.allowPrivateNetwork === true,
        }
    );
    const appendSystemPrompt = [
        addedDirsNote(prepared.script.addDirs),
        prepared.script.appendSystemPrompt,
    ]
        .filter(Boolean)
        .join("\n\n");
    const tools = withoutTools(
        withMcpTools(toolset.registry, extensions.mcp),
        prepared.script.disallowedTools,
        warn
    );
    // One provider per provider id, so a model switch can change provider mid-conversation.

    const providerFor = (wanted: ModelInfo): Promise<Provider> => {
        let provider = providers.get(wanted.provider);
        if (!provider) {
            const info = catalogue.providers.get(wanted.provider);
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

    let sessionCosts = createSessionCosts();
    let allTime = extensions.costs.breakdown();
    const record: SessionHandle["costs"]["record"] = (update) => {
        sessionCosts.add(update);
        const { usage } = update;
        const totals = extensions.costs.add({
            modelId: update.model.id,
            provider: update.model.provider,
            inputTokens: usage.inputTokens,
            outputTokens: usage.outputTokens,
            cacheReadTokens: usage.cacheReadTokens,
            cacheWriteTokens: usage.cacheWriteTokens,
            costUsd: update.costUsd,
        });
        if (totals) allTime = totals;
    };
    /** A conversation's own spend so far, per model. */
    const costsOf = (conversation: LoadedConversation | undefined): SessionCosts => {
        const costs = createSessionCosts();
        for (const spent of conversation?.usage ?? []) {
            const found = resolveModel(catalogue, spent.model);
            const provider = found.ok ? found.model.provider : spent.model.split(":")[0] || "?";
            costs.add({
                model: { id: spent.model, provider },
                usage: restoredUsage(spent.usage),
                costUsd: spent.costUsd,
            });
        }
        return costs;
    };

    // Deny and ask rules only take permissions away: an untrusted project's still count.
    const permissions = loadSessionPermissions({
        repoRoot,
        layers: settings.layers,
        untrustedProjectLayers: trust.trusted
            ? undefined
            : parseProjectLayers(repoRoot, trust.snapshot.files).layers,
        isTrustedNow: () => trust.live.isTrustedNow(),
        tools: tools.list(),
        flags: prepared.commandFlags,
    });
    // One set for every conversation of this process, so "always" answers carry over.
    const projectApprovals = createProjectApprovalSettings(repoRoot, trust.live, {
        layers: settings.layers,
        personal: createPersonalApprovalStore(dataDir(), repoRoot),
        warn,
    });
    const approvalSettings = options.approvalSettings(
        withPermissionRules(projectApprovals, permissions)
    );
    permissions.warnings.forEach((w) => warn(w));
    const permissionCatalog = createPermissionCatalog(
        permissions,
        projectApprovals,
        () => approvalSettings.flagGrants?.() ?? []
    );
    let context = extensions.context;
    let sessionsBuilt = 0;
    const checkpointStore = createCheckpointStore();
    let view: ViewRecorder | undefined;
    let history: ConversationHistory = { view: [], messages: [], messagesBeforeView: 0 };
    const buildSession = (
        id: string,
        sessionModel: ModelInfo,
        sessionLog: ConversationLog | undefined,
        stored?: LoadedConversation
    ): AgentSession => {
        const restored = stored ? restoreConversation(stored) : undefined;
        const usageLog = sessionLog ? createUsageRecorder(sessionLog, warn) : undefined;
        view?.flush();
        view = sessionLog ? createViewRecorder(sessionLog, warn) : undefined;
        sessionCosts = costsOf(stored);
        history = stored ? historyOf(stored) : { view: [], messages: [], messagesBeforeView: 0 };
        const checkpoints = sessionLog ? conversationCheckpoints(checkpointStore, id) : undefined;
        // A later conversation of this chat (/new, /resume, /fork, /rewind) sees memory saved since start.
        if (sessionsBuilt++ > 0) {
            context = {
                ...context,
                memory: loadMemory(memoryDirs(dataDir(), repoRoot)).text ?? undefined,
            };
        }
        const built = new AgentSession({
            sessionId: id,
            repoRoot,
            // Paths in these directories pass the same checks as the project's.
            addedRoots: prepared.script.addDirs,
            model: sessionModel,
            providerFor,
            tools,
            context,
            hookSettings: extensions.hookSettings,
            hiddenEnv,
            childEnv: options.childEnv,
            systemPrompt: prepared.script.systemPrompt,
            appendSystemPrompt: appendSystemPrompt || undefined,
            maxBudgetUsd: prepared.script.maxBudgetUsd,
            usageSink: (update) => {
                record(update);
                usageLog?.(update);
            },
            outputCache: toolset.outputs,
            approver: options.approver,
            approvalSettings,
            logger,
            messages: restored?.messages,
            rollingSummary: restored?.rollingSummary,
            restoredState: restored?.state,
            checkpoints: checkpoints?.checkpointer,
            subagents,
            sink: sessionLog
                ? createConversationSink(sessionLog, warn, {
                      knownIds: restored?.ids,
                      promptIds: restored?.promptIds,
                      onPrompt: checkpoints?.onPrompt,
                  })
                : undefined,
        });
        if (view) built.subscribe(view.onEvent);
        return built;
    };

    let session = buildSession(sessionId, model, log, resumed?.conversation);
    samplingDeps = { model: () => session.state().model, providerFor, record };
    if (log && resumed && resumed.conversation.model !== model.id) {
        log.append({ type: "model_changed", model: model.id });
    }

    const endLog = (): void => {
        view?.flush();
        log?.append({ type: "conversation_ended" });
        log?.close();
    };

    /** A stored conversation's model when it can still be used, else the current one. */
    const modelFor = (stored: string, warnings: string[]): ModelInfo => {
        const current = session.state().model;
        if (stored === current.id) return current;
        const found = resolveModel(catalogue, stored);
        if (found.ok && resolveEndpoint(found.provider, process.env).ok) return found.model;
        warnings.push(`its model ${stored} is not available here; continuing with ${current.id}`);
        return current;
    };

    /** Ends the current log and continues in `opened` (a resumed or forked conversation). */
    const switchTo = (opened: Extract<OpenResult, { ok: true }>): SwitchResult => {
        const warnings = [...opened.warnings];
        const resumedModel = modelFor(opened.conversation.model, warnings);
        endLog();
        log = opened.log;
        sessionId = opened.log.id;
        session = buildSession(sessionId, resumedModel, log, opened.conversation);
        if (resumedModel.id !== opened.conversation.model) {
            log.append({ type: "model_changed", model: resumedModel.id });
        }
        return { ok: true, warnings };
    };

    let closed = false;
    const close = (): void => {
        if (closed) return;
        closed = true;
        toolset.dispose();
        endLog();
        extensions.costs.flush();
        logger.flush();
    };
    return {
        get session() {
            return session;
        },
        get sessionId() {
            return sessionId;
        },
        get log() {
            return log;
        },
        repoRoot,
        model,
        catalogue,
        store,
        logger,
        tools,
        providerFor,
        extensions,
        permissions: () => permissionCatalog.list(),
        removePermission: (number) => permissionCatalog.remove(number),
        standingAutoApproval: () => ({
            commands: approvalSettings.isShellAutoApproved(),
            edits: approvalSettings.isEditsAutoAccepted(),
        }),
        readDenial: (absPath) => permissions.rules.readDenial(absPath),
        costs: {
            get session() {
                return sessionCosts;
            },
            allTime: () => allTime,
            record,
        },
        setProfile(profile) {
            context = { ...context, profile };
            session.setContext(context);
        },
        newConversation() {
            const warnings: string[] = [];
            const current = session.state().model;
            endLog();
            log = openLog(current.id, warnings);
            sessionId = log?.id ?? store.newId();
            session = buildSession(sessionId, current, log);
            logger.info("conversation_new", { sessionId });
            return { warnings };
        },
        resumeConversation(requested) {
            const resolved = store.resolveId(requested);
            if (!resolved.ok) return resolved;
            const id = resolved.id;
            if (id === sessionId) return { ok: false, error: `already in conversation ${id}` };
            const loaded = store.load(id);
            if (!loaded.ok) return loaded;
            if (loaded.conversation.repoRoot !== repoRoot) {
                return {
                    ok: false,
                    error: `conversation ${id} belongs to ${loaded.conversation.repoRoot}; continue it there with north --resume ${id}`,
                };
            }
            const opened = store.open(id);
            if (!opened.ok) return opened;
            const switched = switchTo(opened);
            logger.info("conversation_resumed", { sessionId, requested: id });
            return switched;
        },
        forkConversation(beforeEntryId) {
            if (!log)
                return {
                    ok: false,
                    error: "this conversation is not saved, so it cannot be forked",
                };
            view?.flush();
            const parent = sessionId;
            const opened = store.fork(parent, { beforeEntryId });
            if (!opened.ok) return opened;
            const switched = switchTo(opened);
            logger.info("conversation_forked", { sessionId, parent });
            return switched;
        },
        rewindConversation(entryId) {
            if (!log)
                return {
                    ok: false,
                    error: "this conversation is not saved, so it cannot be rewound",
                };
            if (session.state().running)
                return {
                    ok: false,
                    error: "wait for the answer to finish (or cancel it) before rewinding",
                };
            view?.flush();
            const appended = log.append({ type: "rewound", entryId });
            if (!appended.ok) return { ok: false, error: appended.error };
            const loaded = store.load(sessionId);
            if (!loaded.ok) return loaded;
            session = buildSession(sessionId, session.state().model, log, loaded.conversation);
            logger.info("conversation_rewound", { sessionId });
            return { ok: true, warnings: loaded.warnings };
        },
        prompts() {
            if (!log) return [];
            view?.flush();
            const loaded = store.load(sessionId);
            if (!loaded.ok) return [];
            const conversation = loaded.conversation;
            return conversation.entries.filter(isPromptEntry).map((entry) => ({
                entryId: entry.id,
                text: promptText(entry),
                fromHere: entryIdsFrom(conversation, entry.id),
            }));
        },
        history: () => history,
        recordView(action) {
            view?.record(action);
        },
        close,
        async closeAsync() {
            close();
            await extensions.close().catch(() => undefined);
        },
    };
}
