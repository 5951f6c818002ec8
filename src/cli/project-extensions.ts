import { existsSync } from "node:fs";
import { join } from "node:path";
import type { PluginRuntime } from "../agent/plugins/runtime";
import { lazyPluginRuntime } from "../agent/plugins/runtime-lazy";
import type { SessionPlugins } from "../agent/plugins/runtime-session";
import type { ContextBlocks } from "../agent/prompt-blocks";
import { type HookSettings, runHooks } from "../agent/hooks/index";
import { mergeHookSettings } from "../agent/hooks/settings";
import type { ToolRunner } from "../agent/session";
import { type ContextFile, loadProjectContext } from "../project/instruction-files";
import { type CustomCommand, discoverCustomCommands } from "../project/custom-commands";
import { loadMemory, memoryDirs } from "../project/memory";
import { type Skill, createSkillTool, discoverSkills } from "../project/skills";
import { type CostStore, createCostStore } from "../storage/costs";
import { dataDir } from "../storage/paths";
import type { LoadedSettings } from "../storage/settings/load";
import { createProfileStore } from "../storage/profile";
import {
    type McpConfigResult,
    type McpServerSpec,
    mergeMcpServers,
    parseMcpServers,
    parseProjectMcpConfig,
} from "../tools/mcp/config";
import type { McpManager, McpManagerOptions } from "../tools/mcp/manager";
import { lazyMcpManager } from "../tools/mcp/lazy-manager";
import { createLanguageService } from "../tools/lsp/manager";
import type { LanguageService } from "../tools/lsp/types";
import { createToolRegistry } from "../tools/registry";
import type { AnyToolDefinition } from "../tools/types";
import { nodeFetch } from "../providers/node-fetch";
import { PROJECT_HOOK_FILES, type ProjectTrustDecision } from "./project-trust";

/** How long after a model response the all-time costs are saved (also at close). */
const COST_BATCH_MS = 1000;

/** What a project and the user's setup bring beyond the built-in tools. */
export interface ProjectExtensions {
    context: ContextBlocks;
    contextFiles: ContextFile[];
    hookSettings?: HookSettings;
    /** The `skill` tool, when there are skills. */
    extraTools: AnyToolDefinition[];
    customCommands: CustomCommand[];
    /** Whole records: a user-only skill's body is read when the user runs it (the model's tool cannot load it). */
    skills: Skill[];
    costs: CostStore;
    /** Started in the background; its tools join as servers become ready. */
    mcp?: McpManager;
    /**
     * Language servers, each started on the first file of its language; in an
     * untrusted project one that starts nothing and says so in its status.
     */
    languages: LanguageService;
    /**
     * Installed plugins in this session: what each brought and its servers'
     * states (`list()`), and `reload()` after an install, update, enable,
     * disable or removal.
     */
    plugins: PluginRuntime;
    close(): Promise<void>;
}

/**
 * Loads rules and context files, the learned profile, hooks (running
 * SessionStart), skills, custom commands, and starts MCP servers without
 * waiting for them. The project's own hooks and MCP servers come only from a
 * trusted project, parsed from the files exactly as they were when trust was
 * decided (`settings`, loaded once by the caller). Problems are warnings:
 * none of it may stop North.
 */
export async function loadProjectExtensions(
    repoRoot: string,
    options: {
        sessionId: string;
        version: string;
        resumed: boolean;
        trust: ProjectTrustDecision;
        /** Every settings layer (the project's only when trusted). */
        settings: LoadedSettings;
        warn: (message: string) => void;
        /** Kept from hooks and MCP servers (provider keys); see `secretEnvNames`. */
        hiddenEnv?: readonly string[];
        /** What MCP servers are told on roots/list: the project root and `--add-dir` directories. */
        mcpRoots?: readonly string[];
        /** Answers servers' elicitation and sampling requests (the chat); without: declined. */
        mcpClient?: Pick<McpManagerOptions, "onElicitation" | "onSampling">;
        /** Base environment of hooks, MCP and language servers; default `process.env`. */
        childEnv?: NodeJS.ProcessEnv;
        /** The front-end's MCP servers (an editor's over ACP): the user's, as their settings' are. */
        clientMcpServers?: Record<string, unknown>;
        /** Where language servers' starts, failures and idle stops are logged. */
        log?: (event: string, data: Record<string, unknown>) => void;
    }
): Promise<ProjectExtensions> {
    const { warn } = options;
    const projectContext = loadProjectContext(repoRoot);
    for (const warning of projectContext.warnings) warn(warning);
    const profile = createProfileStore(dataDir(), repoRoot).loadProfile();
    // Like AGENTS.md, project memory is repository text the user can read: loaded whether or
    // not the project is trusted, after North's own instructions, which it cannot replace.
    const memory = loadMemory(memoryDirs(dataDir(), repoRoot));
    for (const warning of memory.warnings) warn(warning);

    const { trust, settings } = options;
    // Nothing of the plugin code is loaded (print mode's first request) unless some plugin is installed.
    const plugins = existsSync(installedPluginsFile())
        ? await sessionPlugins(repoRoot, trust, settings, warn)
        : undefined;
    // North's own project settings first, then the user's, then Claude Code's.
    const hooks = mergeHookSettings(settings.hookSources);
    for (const warning of hooks.warnings) warn(warning);
    // Plugins' hooks join after these (and never when a settings file says disableAllHooks).
    const hooksOff = settings.hookSources.some(
        (source) =>
            typeof source.json === "object" &&
            source.json !== null &&
            (source.json as { disableAllHooks?: unknown }).disableAllHooks === true
    );
    // A project's hooks run only while its files and the scripts they run are as trusted.
    const projectHookFiles = new Set<string>(PROJECT_HOOK_FILES.map((f) => join(repoRoot, f)));
    for (const groups of Object.values(hooks.settings)) {
        for (const group of groups ?? []) {
            if (projectHookFiles.has(group.source)) group.stillTrusted = trust.live.isTrustedNow;
        }
    }
    const { skills, commands } = await discoverSkillsAndCommands(repoRoot);
    for (const warning of [...skills.warnings, ...commands.warnings]) warn(warning);
    const pluginHooks: HookSettings = hooksOff ? {} : hooks.settings;

    const projectMcp = trust.trusted ? trust.snapshot.files[".mcp.json"] : undefined;
    const projectServers: McpConfigResult =
        projectMcp === undefined
            ? { servers: [], warnings: [] }
            : parseProjectMcpConfig(projectMcp, join(repoRoot, ".mcp.json"));
    const servers = mergeMcpServers(
        projectServers,
        parseMcpServers(settings.merged.mcpServers ?? {}, {
            scope: "user",
            source: userMcpSource(settings),
        }),
        parseMcpServers(options.clientMcpServers ?? {}, {
            scope: "user",
            source: "the editor's MCP servers (ACP session)",
        })
    );
    for (const warning of servers.warnings) warn(warning);
    let mcp: McpManager | undefined;
    // The SDK is large: loaded only when some server is configured now, or when a
    // plugin brings one (installed plugins may add servers, at start or mid-session).
    const createManager = async (initial: McpServerSpec[]): Promise<McpManager> => {
        const { createMcpManager } = await import("../tools/mcp/manager");
        return createMcpManager(initial, {
            clientName: "north",
            version: options.version,
            cwd: repoRoot,
            projectStillTrusted: trust.live.isTrustedNow,
            ...(plugins ? { pluginStillApproved: plugins.stillApproved } : {}),
            roots: options.mcpRoots,
            hiddenEnv: options.hiddenEnv,
            env: options.childEnv,
            fetch: nodeFetch,
            ...options.mcpClient,
        });
    };
    if (servers.servers.length > 0) mcp = await createManager(servers.servers);
    else if (plugins !== undefined) mcp = lazyMcpManager(() => createManager([]));

    // A language server runs the project's code (tsconfig plugins, build scripts): trusted only.
    const languages = createLanguageService({
        repoRoot,
        trusted: trust.trusted,
        settings: settings.merged.lsp,
        claudeLspJson: trust.trusted ? trust.snapshot.files[".lsp.json"] : undefined,
        env: options.childEnv,
        hiddenEnv: options.hiddenEnv,
        warn,
        log: options.log,
        clientVersion: options.version,
        pluginServers: plugins?.lspServers,
    });

    const pluginTargets = {
        hooks: pluginHooks,
        skills: skills.skills,
        commands: commands.commands,
        mcp,
        languages,
        env: options.childEnv,
        warn,
    };
    const pluginRuntime = plugins
        ? await plugins.start(pluginTargets)
        : lazyPluginRuntime(async () =>
              (await sessionPlugins(repoRoot, trust, settings, warn, true)).start(pluginTargets)
          );
    // After the plugins joined: their SessionStart hooks run with the others.
    let rules = projectContext.text ?? undefined;
    const started = await runHooks(
        hooks.settings,
        "SessionStart",
        { session_id: options.sessionId, source: options.resumed ? "resume" : "startup" },
        { cwd: repoRoot, hiddenEnv: options.hiddenEnv, env: options.childEnv }
    );
    for (const message of [...started.warnings, ...started.systemMessages])
        warn(`SessionStart hook: ${message}`);
    if (started.additionalContext.length > 0) {
        rules = [rules, ...started.additionalContext].filter(Boolean).join("\n\n");
    }

    return {
        context: { rules, profile: profile ?? undefined, memory: memory.text ?? undefined },
        contextFiles: projectContext.files,
        // Always the object: plugins enabled mid-session add their groups to it in place.
        hookSettings: hooks.settings,
        extraTools:
            skills.skills.length > 0
                ? [createSkillTool(skills.skills) as unknown as AnyToolDefinition]
                : [],
        customCommands: commands.commands,
        skills: skills.skills,
        // Saved a moment after a model response (or at close), not one locked,
        // fsynced rewrite per response of a tool loop.
        costs: createCostStore(dataDir(), { warn, batchMs: COST_BATCH_MS }),
        mcp,
        languages,
        plugins: pluginRuntime,
        async close() {
            if (hooks.settings.SessionEnd) {
                await runHooks(
                    hooks.settings,
                    "SessionEnd",
                    { session_id: options.sessionId, reason: "other" },
                    { cwd: repoRoot, hiddenEnv: options.hiddenEnv, env: options.childEnv }
                );
            }
            await Promise.all([mcp?.close(), languages.dispose()]);
        },
    };
}

/**
 * The project's and user's skills and Markdown commands (read whether or not
 * the project is trusted: they are prompts the user can read, not programs).
 */
export async function discoverSkillsAndCommands(repoRoot: string) {
    const [skills, commands] = await Promise.all([
        discoverSkills(
            [
                join(repoRoot, ".north", "skills"),
                join(repoRoot, ".claude", "skills"),
                join(dataDir(), "skills"),
            ],
            repoRoot
        ),
        discoverCustomCommands(
            [
                { dir: join(repoRoot, ".north", "commands"), scope: "project" },
                { dir: join(repoRoot, ".claude", "commands"), scope: "project" },
                { dir: join(dataDir(), "commands"), scope: "user" },
            ],
            repoRoot
        ),
    ]);
    return { skills, commands };
}

/**
 * `~/.north/plugins/installed.json` (storage/plugins/store.ts's `installedFile`):
 * its absence keeps every plugin module off the launch path.
 */
function installedPluginsFile(): string {
    return join(dataDir(), "plugins", "installed.json");
}

/** The plugins enabled for this session (`empty`: none yet), read through the trust snapshot. */
async function sessionPlugins(
    repoRoot: string,
    trust: ProjectTrustDecision,
    settings: LoadedSettings,
    warn: (message: string) => void,
    empty = false
): Promise<SessionPlugins> {
    const { loadSessionPlugins } = await import("../agent/plugins/runtime-session");
    return loadSessionPlugins({
        dataDir: dataDir(),
        projectDir: repoRoot,
        settings,
        projectFiles: trust.trusted ? trust.snapshot.files : undefined,
        warn,
        empty,
    });
}

/** The user file that set `mcpServers`, for messages about its servers. */
function userMcpSource(settings: LoadedSettings): string {
    const layer = settings.layers.findLast(
        (l) => l.kind === "user" && l.settings.mcpServers !== undefined
    );
    return layer?.path ?? "config.json";
}

/** The built-in tools plus whatever MCP servers offer right now. */
export function withMcpTools(base: ToolRunner, mcp: McpManager | undefined): ToolRunner {
    if (!mcp) return base;
    // Rebuilt only when a server's tool list changes, not on every request and call.
    let registry: ReturnType<typeof createToolRegistry> | null = null;
    mcp.subscribe(() => {
        registry = null;
    });
    const mcpRegistry = (): ReturnType<typeof createToolRegistry> =>
        (registry ??= createToolRegistry(mcp.tools()));
    return {
        list: () => [...base.list(), ...mcp.tools()],
        schemas: (filter) => [...base.schemas(filter), ...mcpRegistry().schemas(filter)],
        execute: (name, input, ctx) =>
            base.list().some((t) => t.name === name)
                ? base.execute(name, input, ctx)
                : mcpRegistry().execute(name, input, ctx),
        executeDefinition: (tool, input, ctx) =>
            !base.list().includes(tool)
                ? mcpRegistry().executeDefinition(tool, input, ctx)
                : base.executeDefinition
                  ? base.executeDefinition(tool, input, ctx)
                  : base.execute(tool.name, input, ctx),
    };
}
