/**
 * Builds the engine host around a prepared (checked) start: trust, settings,
 * the project's extensions, the toolset, providers and permissions are
 * gathered here; the conversation, its switches, costs and approvals live in
 * the host (agent/engine-host.ts). Each front-end then adapts it.
 */
import { join } from "node:path";
import type { ClientWorkspace } from "../tools/client-workspace";
import { type ToolDisplays, toolDisplaysOf } from "../agent/tool-displays";
import type { ApprovalSettings } from "../agent/approvals";
import { EngineHost } from "../agent/engine-host";
import { openConversationLog } from "../agent/host/conversation-keeper";
import type { ReadyModel } from "../agent/host/op-handlers";
import type { Mode } from "../agent/events";
import { AgentSession } from "../agent/session";
import type { ModelInfo } from "../providers/catalogue";
import type { ProviderApi } from "../providers/types";
import type { PermissionRules } from "../tools/permissions/rules";
import { WebSearchPolicy, type WebSearchSetting } from "../agent/web-search-policy";
import { createProvider } from "../providers/index";
import { type ModelCatalogue, resolveEndpoint } from "../providers/models";
import type { Provider, ProviderEndpoint } from "../providers/types";
import { createCheckpointStore } from "../storage/checkpoints";
import { createConversationStore } from "../storage/conversations";
import { type LogLevel, type Logger, createFileLogger } from "../storage/logger";
import { dataDir, logFilePath } from "../storage/paths";
import type { ProfileStore } from "../storage/profile";
import { createProjectApprovalSettings } from "../storage/project-settings";
import { parseProjectLayers, resolveSettings } from "../storage/settings/load";
import { createPersonalApprovalStore } from "../storage/standing-approvals";
import { createTrustStore } from "../storage/trust";
import { worktreeTrustStore } from "./worktree-trust";
import { childEnv, secretEnvNames } from "../util/child-env";
import { resolveSmallFastModel } from "./model-selection";
import { statusLineSetting } from "./status-line-setting";
import { type McpUserPrompts, type SamplingDeps, mcpClientHandlers } from "./mcp-sampling";
import {
    createPermissionCatalog,
    loadSessionPermissions,
    withPermissionRules,
} from "./permission-wiring";
import { type ProjectExtensions, loadProjectExtensions, withMcpTools } from "./project-extensions";
import { type ProjectTrustDecision, type TrustDecider, settleProjectTrust } from "./project-trust";
import { reapLeftovers } from "../tools/processes/leftovers";
import { createSessionSandbox } from "./sandbox-setting";
import { addedDirsNote, withoutTools } from "./script-flags";
import type { PreparedSession } from "./session-setup";
import { loadSubagents } from "./subagent-wiring";
import { startTelemetry } from "./telemetry/telemetry";
import { createConversationToolset } from "./toolset";

/** The host with what its front-end needs beside it. */
export interface EngineSession {
    host: EngineHost;
    /** How the session's tools (its registry's, MCP ones included) read in the transcript. */
    toolDisplays: ToolDisplays;
    repoRoot: string;
    logger: Logger;
    /** Context files, hooks, skills, custom commands, costs and MCP servers of the project. */
    extensions: ProjectExtensions;
    /**
     * The `statusLine` command (a project's only when trusted), with the
     * environment hooks get: no provider keys.
     */
    statusLine?: { command: string; padding?: number; env: Record<string, string> };
    /** Disposes the tools (running commands are killed), ends and closes the log. */
    close(): void;
    /** `close()`, then SessionEnd hooks and a clean stop of MCP servers. */
    closeAsync(): Promise<void>;
}

export interface StartSessionOptions {
    version: string;
    /** Written to the log's `app_start` line; usage monitoring's `terminal.type`. */
    frontEnd: "print" | "interactive" | "acp" | "api";
    logLevel: LogLevel;
    mode: Mode;
    /** The front-end shows the context figure before any request (the chat). */
    contextFigure?: boolean;
    /**
     * The permissions in force, given the project's standing ones (its
     * settings under live trust): the chat uses them as they are, print mode
     * adds its flags.
     */
    approvalSettings: (project: ApprovalSettings) => ApprovalSettings;
    /** Settles an untrusted project's configuration: the chat asks, print mode skips. */
    decideTrust: TrustDecider;
    warn: (message: string) => void;
    /** Saves a switched model as the default (the chat); without it a switch is for this run only. */
    saveModel?(alias: string): { ok: true } | { ok: false; error: string };
    resolveModel(name: string): ReadyModel;
    profiles: ProfileStore;
    /** Asks the user for MCP servers' forms and sampling requests (the chat); without: declined. */
    mcpPrompts?: McpUserPrompts;
    /**
     * Base environment of commands, hooks and MCP servers (the Node API's
     * `env` merged over `process.env`); default `process.env`.
     */
    childEnv?: NodeJS.ProcessEnv;
    /** An editor's files and terminals (`north acp` with the client's fs / terminal capabilities). */
    workspace?: ClientWorkspace;
    /** The id a new conversation's log takes (`north acp` answers it before the log exists). */
    conversationId?: string;
    /**
     * MCP servers the front-end brings (an editor's, over ACP), in the
     * `mcpServers` settings shape: the user's own, beside their settings'.
     */
    clientMcpServers?: Record<string, unknown>;
}

/** `terminal.type` in usage monitoring. */
const TERMINAL_TYPES = { print: "print", interactive: "chat", acp: "acp", api: "api" } as const;

/** One provider per provider id, so a model switch can change provider mid-conversation. */
function providerSource(catalogue: ModelCatalogue, first: ModelInfo, endpoint: ProviderEndpoint) {
    // Start loading the provider's SDK now: it compiles while the project's files are read.
    const providers = new Map<string, Promise<Provider>>([
        [first.provider, createProvider(endpoint)],
    ]);
    return (wanted: ModelInfo): Promise<Provider> => {
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
}

/** The session's permission rules, standing approvals and the listing of both. */
function sessionPermissions(
    prepared: PreparedSession,
    trust: ProjectTrustDecision,
    settings: ReturnType<typeof resolveSettings>,
    tools: ReturnType<typeof withoutTools>,
    options: StartSessionOptions
) {
    const { repoRoot } = prepared;
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
        warn: options.warn,
    });
    const approvalSettings = options.approvalSettings(
        withPermissionRules(projectApprovals, permissions)
    );
    permissions.warnings.forEach((w) => options.warn(w));
    const catalog = createPermissionCatalog(
        permissions,
        projectApprovals,
        () => approvalSettings.flagGrants?.() ?? []
    );
    return {
        approvalSettings,
        listing: {
            list: () => catalog.list(),
            remove: (number: number) => catalog.remove(number),
            readDenial: (absPath: string) => permissions.rules.readDenial(absPath),
        },
    };
}

/** The toolset, subagents and added directories of a session, over the project's extensions. */
async function conversationTools(
    prepared: PreparedSession,
    options: StartSessionOptions,
    project: {
        trusted: boolean;
        layers: ReturnType<typeof resolveSettings>["layers"];
        extensions: ProjectExtensions;
        hiddenEnv: readonly string[];
    }
) {
    const { repoRoot, catalogue } = prepared;
    const { warn } = options;
    const { extensions, hiddenEnv } = project;
    const { addDirs } = prepared.script;
    const sandbox = createSessionSandbox(project.layers, prepared.sandbox, warn, {}, addDirs);
    const subagents = await loadSubagents(
        repoRoot,
        project.trusted,
        catalogue,
        warn,
        prepared.userMerged.subagents?.tools,
        extensions.plugins.agents()
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
            // Decided once here: the lsp tools are in the tool list from the first request or never.
            languages: extensions.languages,
            workspace: options.workspace,
            maxProcesses: prepared.userMerged.processes?.max,
        }
    );
    const appendSystemPrompt = [addedDirsNote(addDirs), prepared.script.appendSystemPrompt]
        .filter(Boolean)
        .join("\n\n");
    const tools = withoutTools(
        withMcpTools(toolset.registry, extensions.mcp),
        prepared.script.disallowedTools,
        warn
    );
    return {
        toolset,
        tools,
        subagents,
        appendSystemPrompt: appendSystemPrompt || undefined,
    };
}

/** Trust, settings, the project's extensions and the tools, in that order. */
async function loadProjectTools(
    prepared: PreparedSession,
    options: StartSessionOptions,
    start: {
        sessionId: string;
        logger: Logger;
        hiddenEnv: readonly string[];
        sampling: () => SamplingDeps | null;
    }
) {
    const { repoRoot, resumed } = prepared;
    const { warn } = options;
    const { sessionId, logger, hiddenEnv } = start;
    // Before anything of the project's runs: its hooks and servers need the user's trust.
    const store = createTrustStore(dataDir());
    const trust = await settleProjectTrust(
        repoRoot,
        prepared.worktree ? worktreeTrustStore(store, prepared.worktree.mainRoot, repoRoot) : store,
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
            ? mcpClientHandlers(options.mcpPrompts, start.sampling)
            : undefined,
        childEnv: options.childEnv,
        clientMcpServers: options.clientMcpServers,
        log: (event, data) => logger.info(event, data),
    });
    const { toolset, tools, subagents, appendSystemPrompt } = await conversationTools(
        prepared,
        options,
        { trusted: trust.trusted, layers: settings.layers, extensions, hiddenEnv }
    );
    return {
        trust,
        settings,
        extensions,
        toolset,
        tools,
        subagents,
        appendSystemPrompt,
    };
}

/** Opens (or continues) the conversation log and builds the engine host around it. */
export async function startSession(
    prepared: PreparedSession,
    options: StartSessionOptions
): Promise<EngineSession> {
    const { resumed, model, repoRoot, catalogue } = prepared;
    const store = prepared.store ?? createConversationStore();
    const { warn } = options;
    const providerFor = providerSource(catalogue, model, prepared.endpoint);
    const side = resolveSmallFastModel(catalogue, process.env);
    // Provider keys stay with North: kept from every child process, masked in the log.
    const hiddenEnv = secretEnvNames([...catalogue.providers.values()].map((p) => p.apiKeyEnv));
    const logger = createFileLogger(logFilePath(), options.logLevel, {
        secrets: hiddenEnv.map((name) => process.env[name]),
    });
    const startWarnings: string[] = [];
    const log =
        resumed?.log ??
        openConversationLog(store, repoRoot, model.id, startWarnings, options.conversationId);
    if (side.warning) startWarnings.push(side.warning);
    startWarnings.forEach((w) => warn(w));
    // Background processes a North of this project killed with `kill -9` left running.
    const leftovers = reapLeftovers(join(dataDir(), "processes"), repoRoot);
    if (leftovers !== undefined) warn(leftovers);
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

    // Set once the host exists; a server's sampling request before that is refused.
    let samplingDeps: SamplingDeps | null = null;
    const project = await loadProjectTools(prepared, options, {
        sessionId,
        logger,
        hiddenEnv,
        sampling: () => samplingDeps,
    });
    const { extensions, toolset, tools, ...loaded } = project;
    const permissions = sessionPermissions(prepared, loaded.trust, loaded.settings, tools, options);
    const webSearch = webSearchPolicy(
        prepared.script.webSearch,
        loaded.settings.merged.webSearch,
        permissions.approvalSettings.permissionRules,
        (m) => catalogue.providers.get(m.provider)?.api
    );

    const host = new EngineHost({
        repoRoot,
        addedRoots: prepared.script.addDirs,
        catalogue,
        store,
        logger,
        costs: extensions.costs,
        checkpoints: createCheckpointStore(),
        context: extensions.context,
        start: { model, sessionId, log, resumed: resumed?.conversation },
        mode: options.mode,
        contextFigure: options.contextFigure,
        processes: toolset.processes,
        // Only the chat stays idle between prompts: elsewhere the run's end ends the processes too.
        startTurnOnNotice:
            options.frontEnd === "interactive" &&
            prepared.userMerged.processes?.startTurnOnNotice === true,
        maxTurns: loaded.settings.merged.maxTurns,
        review: loaded.settings.merged.review,
        maxBudgetUsd: prepared.script.maxBudgetUsd,
        mcpFailureNotices: options.frontEnd === "interactive",
        warn,
        resolveModel: options.resolveModel,
        saveModel: options.saveModel,
        profiles: options.profiles,
        providerFor,
        sideModel: side.model,
        tools,
        mcp: extensions.mcp,
        languages: extensions.languages,
        // Read at each /skills: plugins enabled or disabled mid-session change the list.
        get skills() {
            return extensions.skills.map(({ name, description, plugin }) => ({
                name,
                description: plugin ? `${description} (plugin ${plugin})` : description,
            }));
        },
        permissions: permissions.listing,
        standing: () => ({
            commands: permissions.approvalSettings.isShellAutoApproved(),
            edits: permissions.approvalSettings.isEditsAutoAccepted(),
        }),
        newSession: (parts) =>
            new AgentSession({
                ...parts,
                repoRoot,
                // Paths in these directories pass the same checks as the project's.
                addedRoots: prepared.script.addDirs,
                providerFor,
                sideModel: side.model,
                tools,
                hookSettings: extensions.hookSettings,
                hiddenEnv,
                childEnv: options.childEnv,
                systemPrompt: prepared.script.systemPrompt,
                appendSystemPrompt: loaded.appendSystemPrompt,
                maxBudgetUsd: prepared.script.maxBudgetUsd,
                webSearch,
                outputCache: toolset.outputs,
                approvalSettings: permissions.approvalSettings,
                logger,
                subagents: loaded.subagents,
                languages: extensions.languages,
                diagnosticsBudgetMs: loaded.settings.merged.lsp?.diagnosticsBudgetMs,
                clientFiles: options.workspace?.files,
            }),
    });
    const telemetry = await startTelemetry(host, {
        env: process.env,
        setting: prepared.userMerged.telemetry,
        version: options.version,
        sessionId,
        terminal: TERMINAL_TYPES[options.frontEnd],
        logger,
        warn,
    });
    samplingDeps = {
        model: () => host.state().model,
        providerFor,
        record: host.spend.record,
    };

    let closed = false;
    const close = (): void => {
        if (closed) return;
        closed = true;
        toolset.dispose();
        host.close();
        void telemetry?.stop();
        extensions.costs.flush();
        logger.flush();
    };
    const statusLine = statusLineSetting(loaded.settings.merged, loaded.settings.hookSources);
    return {
        host,
        toolDisplays: toolDisplaysOf(tools),
        repoRoot,
        logger,
        extensions,
        ...(statusLine
            ? {
                  statusLine: {
                      command: statusLine.command,
                      padding: statusLine.padding,
                      env: childEnv(options.childEnv ?? process.env, hiddenEnv),
                  },
              }
            : {}),
        close,
        async closeAsync() {
            close();
            await Promise.all([extensions.close().catch(() => undefined), telemetry?.stop()]);
        },
    };
}

/**
 * The provider's web search for this session: the setting (user, or a
 * trusted project's), turned on for the run by `--web-search`; undefined
 * while neither asks for it.
 */
function webSearchPolicy(
    flag: boolean | undefined,
    setting: (Omit<WebSearchSetting, "enabled"> & { enabled?: boolean }) | undefined,
    rules: PermissionRules | undefined,
    apiOf: (model: ModelInfo) => ProviderApi | undefined
): WebSearchPolicy | undefined {
    const enabled = flag === true || setting?.enabled === true;
    if (!enabled) return undefined;
    return new WebSearchPolicy({ ...setting, enabled }, rules, apiOf);
}
