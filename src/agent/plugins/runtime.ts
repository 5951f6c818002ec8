/**
 * The plugins of a running session: their parts joined to the session's own
 * (commands, skills, agents, hooks, MCP and language servers), what each
 * plugin brought (`list()`), and `reload()` after an install, update,
 * enable, disable or removal: a plugin that left stops its servers and its
 * commands, skills and hooks go; one that joined adds its parts.
 */
import { mkdirSync } from "node:fs";
import type { AgentDefinition } from "../../project/agent-definitions";
import type { CustomCommand } from "../../project/custom-commands";
import type { LoadedPlugin, PluginId } from "../../project/plugins/types";
import type { Skill } from "../../project/skills";
import type { McpManager } from "../../tools/mcp/manager";
import type { HookSettings } from "../hooks/types";
import { type HeldPlugin, type PluginLoad, loadEnabledPlugins } from "./enabled";
import {
    addHookGroups,
    pluginAgents,
    pluginCommands,
    pluginHooks,
    pluginMcpServers,
    pluginSkills,
    removeHookGroups,
} from "./runtime-parts";

export interface PluginPartCounts {
    commands: number;
    agents: number;
    skills: number;
    hooks: number;
    mcpServers: number;
    lspServers: number;
    outputStyles: number;
}

export interface PluginServerState {
    kind: "mcp" | "lsp";
    /** As listed by `/mcp` (`plugin:<plugin>:<server>`) or `/lsp`. */
    name: string;
    state: string;
    error?: string;
}

export interface PluginStatus {
    id: PluginId;
    /** Loaded in this session (enabled, and its files as approved). */
    enabled: boolean;
    /** Why an enabled plugin did not load (changed since approved, unreadable, invalid). */
    held?: string;
    version?: string;
    parts: PluginPartCounts;
    servers: PluginServerState[];
    /** Fields North does not support, and problems that did not stop it. */
    unsupported: string[];
    warnings: string[];
}

export interface PluginRuntime {
    list(): PluginStatus[];
    /** The plugins whose parts are in the session now (output styles read theirs). */
    loaded(): LoadedPlugin[];
    /** The plugins' commands now (`plugin:command`), for front-ends' registries. */
    commands(): CustomCommand[];
    /** The plugins' agents (`plugin:agent`), lowest priority after the user's and project's. */
    agents(): AgentDefinition[];
    /** Called after `reload()` changed what the session has. */
    subscribe(listener: () => void): () => void;
    reload(): Promise<{ notes: string[] }>;
}

/** What the session holds, changed in place as plugins join and leave. */
export interface PluginSessionTargets {
    dataDir: string;
    projectDir: string;
    enabledPlugins: Record<string, boolean>;
    /** The session's hooks: plugin groups are added to and removed from it. */
    hooks: HookSettings;
    /** The session's skills (the skill tool reads it at each use). */
    skills: Skill[];
    /** The session's Markdown commands (front-ends register them). */
    commands: CustomCommand[];
    mcp?: McpManager;
    /** Language servers' states, by name (`/lsp`'s listing). */
    lspStates?: () => Array<{ name: string; state: string; error?: string }>;
    /** Stops a plugin's language servers (it left the session). */
    stopLanguageServers?: (plugin: PluginId) => Promise<void>;
    /** Plugins whose language servers the session's language service already knows. */
    languageServersLoaded?: ReadonlySet<PluginId>;
    /** Whether a plugin may still run code (installed, enabled, files as approved). */
    stillApproved: (id: PluginId, fingerprint: string) => boolean;
    /** Told when a plugin joins, with the fingerprint it was approved at. */
    joined?: (id: PluginId, fingerprint: string) => void;
    /** Base environment of MCP servers (for `${VAR}` in a plugin's config). */
    env?: NodeJS.ProcessEnv;
    warn(message: string): void;
}

interface Joined {
    plugin: LoadedPlugin;
    fingerprint: string;
    agents: AgentDefinition[];
    mcpNames: string[];
}

function counts(plugin: LoadedPlugin): PluginPartCounts {
    return {
        commands: plugin.commands.length,
        agents: plugin.agents.length,
        skills: plugin.skillDirs.length,
        hooks: plugin.hooks.reduce(
            (n, config) =>
                n +
                Object.values(config.hooks).reduce<number>(
                    (m, groups) => m + (Array.isArray(groups) ? groups.length : 0),
                    0
                ),
            0
        ),
        mcpServers: Object.keys(plugin.mcpServers).length,
        lspServers: Object.keys(plugin.lspServers).length,
        outputStyles: plugin.outputStyles.length,
    };
}

const NO_PARTS: PluginPartCounts = {
    commands: 0,
    agents: 0,
    skills: 0,
    hooks: 0,
    mcpServers: 0,
    lspServers: 0,
    outputStyles: 0,
};

export async function createPluginRuntime(
    targets: PluginSessionTargets,
    initial: PluginLoad
): Promise<PluginRuntime> {
    const joined = new Map<PluginId, Joined>();
    let held: HeldPlugin[] = [];
    let disabled: PluginId[] = [];
    const listeners = new Set<() => void>();
    const { projectDir } = targets;

    const join = async (plugin: LoadedPlugin, fingerprint: string): Promise<void> => {
        const runsCode =
            plugin.hooks.length > 0 ||
            Object.keys(plugin.mcpServers).length > 0 ||
            Object.keys(plugin.lspServers).length > 0;
        if (runsCode) {
            try {
                // `${CLAUDE_PLUGIN_DATA}`: made when something that may use it runs.
                mkdirSync(plugin.dataDir, { recursive: true });
            } catch (error) {
                targets.warn(
                    `${plugin.id}: cannot create ${plugin.dataDir}: ${(error as Error).message}`
                );
            }
        }
        const commands = pluginCommands(plugin, projectDir);
        const skills = await pluginSkills(plugin, projectDir);
        const agents = await pluginAgents(plugin, projectDir);
        const hooks = pluginHooks(plugin, projectDir, () =>
            targets.stillApproved(plugin.id, fingerprint)
        );
        const mcp = pluginMcpServers(plugin, projectDir, targets.env);
        for (const warning of [
            ...commands.warnings,
            ...skills.warnings,
            ...agents.warnings,
            ...hooks.warnings,
            ...mcp.warnings,
        ]) {
            targets.warn(warning);
        }
        targets.commands.push(...commands.commands);
        targets.skills.push(...skills.skills);
        targets.skills.sort((a, b) => a.name.localeCompare(b.name));
        addHookGroups(targets.hooks, hooks.settings);
        if (mcp.servers.length > 0) {
            if (targets.mcp) targets.mcp.add(mcp.servers);
            else targets.warn(`plugin ${plugin.id}: its MCP servers start with the next session`);
        }
        targets.joined?.(plugin.id, fingerprint);
        joined.set(plugin.id, {
            plugin,
            fingerprint,
            agents: agents.agents,
            mcpNames: mcp.servers.map((server) => server.name),
        });
    };

    const leave = async (id: PluginId): Promise<void> => {
        const entry = joined.get(id);
        if (!entry) return;
        joined.delete(id);
        removeInPlace(targets.commands, (command) => command.plugin === id);
        removeInPlace(targets.skills, (skill) => skill.plugin === id);
        removeHookGroups(targets.hooks, id);
        await Promise.all([targets.mcp?.remove(entry.mcpNames), targets.stopLanguageServers?.(id)]);
    };

    const adopt = async (load: PluginLoad): Promise<void> => {
        held = load.held;
        disabled = load.disabled;
        for (const plugin of load.plugins) {
            await join(plugin, load.records[plugin.id]?.fingerprint ?? "");
        }
    };

    for (const warning of initial.warnings) targets.warn(warning);
    for (const { id, reason } of initial.held) targets.warn(`plugin ${id} not loaded: ${reason}`);
    await adopt(initial);

    const runtime: PluginRuntime = {
        list() {
            const mcpStates = new Map(
                (targets.mcp?.status() ?? []).map((status) => [status.name, status])
            );
            const lspStates = new Map((targets.lspStates?.() ?? []).map((s) => [s.name, s]));
            const lspLoaded = targets.languageServersLoaded;
            const loaded = [...joined.values()].map(({ plugin, mcpNames }): PluginStatus => ({
                id: plugin.id,
                enabled: true,
                ...(plugin.version !== undefined ? { version: plugin.version } : {}),
                parts: counts(plugin),
                servers: [
                    ...mcpNames.map((name): PluginServerState => {
                        const status = mcpStates.get(name);
                        return {
                            kind: "mcp",
                            name,
                            state: status?.state ?? "stopped",
                            ...(status?.error !== undefined ? { error: status.error } : {}),
                        };
                    }),
                    ...Object.keys(plugin.lspServers).map((server): PluginServerState => {
                        const name = `plugin:${plugin.name}:${server}`;
                        const status = lspStates.get(name);
                        return {
                            kind: "lsp",
                            name,
                            state:
                                status?.state ??
                                (lspLoaded?.has(plugin.id) ? "not started" : "next session"),
                            ...(status?.error !== undefined ? { error: status.error } : {}),
                        };
                    }),
                ],
                unsupported: plugin.unsupported,
                warnings: plugin.warnings,
            }));
            const blank = { parts: NO_PARTS, servers: [], unsupported: [], warnings: [] };
            return [
                ...loaded,
                ...held.map(({ id, reason }) => ({ id, enabled: true, held: reason, ...blank })),
                ...disabled.map((id) => ({ id, enabled: false, ...blank })),
            ];
        },
        loaded: () => [...joined.values()].map((entry) => entry.plugin),
        commands: () => targets.commands.filter((command) => command.plugin !== undefined),
        agents: () => [...joined.values()].flatMap((entry) => entry.agents),
        subscribe(listener) {
            listeners.add(listener);
            return () => listeners.delete(listener);
        },
        async reload() {
            const load = await loadEnabledPlugins({
                dataDir: targets.dataDir,
                projectDir,
                enabledPlugins: targets.enabledPlugins,
            });
            const notes: string[] = [...load.warnings];
            const next = new Map(load.plugins.map((plugin) => [plugin.id, plugin]));
            const skillsBefore = targets.skills.map((skill) => skill.name).join("\n");
            for (const [id, entry] of [...joined]) {
                const fingerprint = load.records[id]?.fingerprint;
                if (next.has(id) && fingerprint === entry.fingerprint) {
                    next.delete(id);
                    continue;
                }
                await leave(id);
                if (!next.has(id)) {
                    notes.push(
                        entry.mcpNames.length > 0
                            ? `plugin ${id} left the session: its commands, skills and hooks are gone and its MCP servers stopped`
                            : `plugin ${id} left the session: its commands, skills and hooks are gone`
                    );
                }
            }
            held = load.held;
            disabled = load.disabled;
            for (const plugin of next.values()) {
                await join(plugin, load.records[plugin.id]?.fingerprint ?? "");
                notes.push(`plugin ${plugin.id} joined the session`);
                if (Object.keys(plugin.lspServers).length > 0) {
                    notes.push(
                        `plugin ${plugin.id}: its language servers start with the next session`
                    );
                }
                if (plugin.agents.length > 0) {
                    notes.push(
                        `plugin ${plugin.id}: its agents are available from the next session`
                    );
                }
            }
            for (const { id, reason } of load.held)
                notes.push(`plugin ${id} not loaded: ${reason}`);
            if (targets.skills.map((skill) => skill.name).join("\n") !== skillsBefore) {
                notes.push("skills changed: the prompt cache restarts on the next request");
            }
            if (notes.length > 0) {
                for (const listener of [...listeners]) {
                    try {
                        listener();
                    } catch {
                        // One listener's failure must not stop the others.
                    }
                }
            }
            return { notes };
        },
    };
    return runtime;
}

function removeInPlace<T>(items: T[], drop: (item: T) => boolean): void {
    for (let i = items.length - 1; i >= 0; i--) {
        if (drop(items[i] as T)) items.splice(i, 1);
    }
}
