/**
 * A session's plugins from start to finish: which are enabled (the settings
 * layers as trusted), read and checked before the session's servers start
 * (their language servers go into the language service), then joined to
 * the session's hooks, skills, commands and MCP servers.
 */
import type { LoadedSettings } from "../../storage/settings/load";
import type { ProjectPluginFile } from "./enabled-setting";
import type { PluginId } from "../../project/plugins/types";
import {
    type PluginLoad,
    createPluginApprovalCheck,
    enabledPluginsSetting,
    loadEnabledPlugins,
} from "./enabled";
import { type PluginRuntime, type PluginSessionTargets, createPluginRuntime } from "./runtime";

export interface SessionPlugins {
    load: PluginLoad;
    /** For MCP restarts: the plugin is still installed, enabled and as approved. */
    stillApproved(plugin: PluginId): boolean;
    /** The loaded plugins' language servers, for the language service. */
    lspServers: Array<{
        plugin: PluginId;
        name: string;
        servers: Record<string, unknown>;
        env: Record<string, string>;
    }>;
    /** Joins the plugins' parts to the session's. */
    start(
        targets: Omit<
            PluginSessionTargets,
            "dataDir" | "projectDir" | "enabledPlugins" | "stillApproved" | "joined"
        > & { languages?: LanguageTargets }
    ): Promise<PluginRuntime>;
}

/** What the runtime needs of the language service. */
interface LanguageTargets {
    status(): Array<{ name: string; state: string; lastError?: string }>;
    stopPlugin?(plugin: string): Promise<void>;
}

export async function loadSessionPlugins(o: {
    dataDir: string;
    projectDir: string;
    settings: Pick<LoadedSettings, "layers">;
    /** The project's settings files as trusted (undefined when it is not). */
    projectFiles: Partial<Record<ProjectPluginFile, string>> | undefined;
    warn(message: string): void;
    /** Nothing loads (the first-run path of a session without plugins). */
    empty?: boolean;
}): Promise<SessionPlugins> {
    const { enabledPlugins, warnings } = enabledPluginsSetting(o.settings, o.projectFiles);
    for (const warning of warnings) o.warn(warning);
    const load: PluginLoad = o.empty
        ? { plugins: [], held: [], disabled: [], warnings: [], records: {}, elapsedMs: 0 }
        : await loadEnabledPlugins({
              dataDir: o.dataDir,
              projectDir: o.projectDir,
              enabledPlugins,
          });
    const check = createPluginApprovalCheck(o.dataDir, enabledPlugins);
    /** The fingerprint each plugin joined with (reloads update it). */
    const fingerprints = new Map<PluginId, string>(
        Object.values(load.records).map((record) => [record.id, record.fingerprint])
    );
    const stillApproved = (id: PluginId): boolean => {
        const fingerprint = fingerprints.get(id);
        return fingerprint !== undefined && check(id, fingerprint);
    };
    return {
        load,
        stillApproved,
        lspServers: load.plugins
            .filter((plugin) => Object.keys(plugin.lspServers).length > 0)
            .map((plugin) => ({
                plugin: plugin.id,
                name: plugin.name,
                servers: plugin.lspServers,
                env: {
                    CLAUDE_PLUGIN_ROOT: plugin.root,
                    CLAUDE_PLUGIN_DATA: plugin.dataDir,
                    CLAUDE_PROJECT_DIR: o.projectDir,
                },
            })),
        start({ languages, ...targets }) {
            const languageServersLoaded = new Set(
                load.plugins
                    .filter((plugin) => Object.keys(plugin.lspServers).length > 0)
                    .map((plugin) => plugin.id)
            );
            return createPluginRuntime(
                {
                    ...targets,
                    dataDir: o.dataDir,
                    projectDir: o.projectDir,
                    enabledPlugins,
                    stillApproved: check,
                    joined: (id, fingerprint) => void fingerprints.set(id, fingerprint),
                    ...(languages
                        ? {
                              lspStates: () =>
                                  languages.status().map((s) => ({
                                      name: s.name,
                                      state: s.state,
                                      ...(s.lastError !== undefined ? { error: s.lastError } : {}),
                                  })),
                              stopLanguageServers: (id: PluginId) =>
                                  languages.stopPlugin?.(id) ?? Promise.resolve(),
                          }
                        : {}),
                    languageServersLoaded,
                },
                load
            );
        },
    };
}
