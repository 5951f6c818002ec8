/**
 * Which installed plugins a session loads: installed ∩ enabled, each read
 * from its installed copy and checked against the fingerprint the user
 * approved. A plugin whose files changed since then is HELD: none of its
 * parts (commands, skills, agents, hooks, MCP or LSP servers) joins the
 * session until the user reviews it again. Reading runs none of its code.
 */
import { statSync } from "node:fs";
import { pluginFingerprint } from "../../project/plugins/fingerprint";
import { readPlugin } from "../../project/plugins/read";
import type { LoadedPlugin, PluginId } from "../../project/plugins/types";
import type { LoadedSettings } from "../../storage/settings/load";
import {
    type InstalledPluginRecord,
    installedFile,
    pluginDataDir,
    pluginsDir,
    readInstalledPlugins,
} from "../../storage/plugins/store";
import { join } from "node:path";
import { type VerifiedCopies, openVerifiedCopies } from "./verified-copies";
import { type ProjectPluginFile, projectEnabledPlugins } from "./enabled-setting";

/** An enabled plugin that does not load, and why (a person reads it). */
export interface HeldPlugin {
    id: PluginId;
    reason: string;
}

export interface PluginLoad {
    /** In install order: on a name clash the first installed wins. */
    plugins: LoadedPlugin[];
    held: HeldPlugin[];
    disabled: PluginId[];
    warnings: string[];
    /** The record each loaded plugin was read from (its approved fingerprint). */
    records: Record<PluginId, InstalledPluginRecord>;
    /** What reading and fingerprinting took, in ms (for the start-up budget). */
    elapsedMs: number;
}

export const CHANGED_SINCE_APPROVED =
    "changed since you approved it: north plugin update restores the approved copy (or asks about a newer one)";

/**
 * The `enabledPlugins` in force: the user's settings, then a trusted
 * project's files (`projectFiles`, the trust snapshot's; absent when the
 * project is not trusted: its opinion about plugins does not count).
 */
export function enabledPluginsSetting(
    settings: Pick<LoadedSettings, "layers">,
    projectFiles: Partial<Record<ProjectPluginFile, string>> | undefined
): { enabledPlugins: Record<string, boolean>; warnings: string[] } {
    const warnings: string[] = [];
    const enabledPlugins: Record<string, boolean> = {};
    for (const layer of settings.layers) {
        if (layer.kind === "user") Object.assign(enabledPlugins, layer.settings.enabledPlugins);
    }
    if (projectFiles) Object.assign(enabledPlugins, projectEnabledPlugins(projectFiles, warnings));
    return { enabledPlugins, warnings };
}

/** Whether a record is switched on: the settings' `enabledPlugins` entry, else its own switch. */
export function isPluginEnabled(
    record: Pick<InstalledPluginRecord, "id" | "enabled">,
    enabledPlugins?: Record<string, boolean>
): boolean {
    return enabledPlugins?.[record.id] ?? record.enabled;
}

/** Installed ∩ enabled (installed.json's switch, then `enabledPlugins` of the settings layers), each read and its fingerprint checked. */
export async function loadEnabledPlugins(o: {
    dataDir: string;
    projectDir: string;
    enabledPlugins?: Record<string, boolean>;
}): Promise<PluginLoad> {
    const started = performance.now();
    const load: PluginLoad = {
        plugins: [],
        held: [],
        disabled: [],
        warnings: [],
        records: {},
        elapsedMs: 0,
    };
    let records: InstalledPluginRecord[];
    try {
        records = Object.values(readInstalledPlugins(o.dataDir));
    } catch (error) {
        load.warnings.push(
            `${installedFile(o.dataDir)}: cannot read (${(error as Error).message}); no plugins loaded`
        );
        return load;
    }
    records.sort((a, b) => a.installedAt.localeCompare(b.installedAt) || a.id.localeCompare(b.id));
    const verified = openVerifiedCopies(join(pluginsDir(o.dataDir), "verified.json"));
    const read = await Promise.all(
        records.map(async (record) =>
            isPluginEnabled(record, o.enabledPlugins) ? readOne(record, o, verified) : undefined
        )
    );
    verified.save();
    records.forEach((record, index) => {
        const outcome = read[index];
        if (outcome === undefined) load.disabled.push(record.id);
        else if ("reason" in outcome) load.held.push({ id: record.id, reason: outcome.reason });
        else {
            load.plugins.push(outcome.plugin);
            load.records[record.id] = record;
            for (const warning of outcome.plugin.warnings)
                load.warnings.push(`${record.id}: ${warning}`);
        }
    });
    load.elapsedMs = performance.now() - started;
    return load;
}

async function readOne(
    record: InstalledPluginRecord,
    o: { dataDir: string; projectDir: string },
    verified: VerifiedCopies
): Promise<{ plugin: LoadedPlugin } | { reason: string }> {
    try {
        const known = await verified.unchanged(record.id, record.path, record.fingerprint);
        if (!known.unchanged) {
            if ((await pluginFingerprint(record.path)) !== record.fingerprint) {
                return { reason: CHANGED_SINCE_APPROVED };
            }
            await verified.remember(record.id, record.path, record.fingerprint, known.before);
        }
    } catch (error) {
        return { reason: `cannot check its files (${(error as Error).message})` };
    }
    const read = await readPlugin({
        root: record.path,
        marketplace: record.marketplace,
        dataDir: pluginDataDir(o.dataDir, record.id),
        projectDir: o.projectDir,
        ...(record.entry ? { entry: record.entry } : {}),
    });
    if (!read.ok) return { reason: read.error };
    return { plugin: read.plugin };
}

/**
 * Whether a loaded plugin may still run code (hooks, a server restart): its
 * record is still installed, enabled and at the approved fingerprint. Asked
 * before each hook run, so it compares records only (the file is re-read
 * when it changed, never rehashed).
 */
export function createPluginApprovalCheck(
    dataDir: string,
    enabledPlugins?: Record<string, boolean>
): (id: PluginId, fingerprint: string) => boolean {
    let seen: { mtimeMs: number; size: number } | undefined;
    let records: Record<PluginId, InstalledPluginRecord> = {};
    return (id, fingerprint) => {
        try {
            const stat = statSync(installedFile(dataDir));
            if (seen?.mtimeMs !== stat.mtimeMs || seen.size !== stat.size) {
                records = readInstalledPlugins(dataDir);
                seen = { mtimeMs: stat.mtimeMs, size: stat.size };
            }
        } catch {
            return false;
        }
        const record = records[id];
        return (
            record !== undefined &&
            record.fingerprint === fingerprint &&
            isPluginEnabled(record, enabledPlugins)
        );
    };
}

/** Lines a person reads about a load (`north doctor`): each plugin loaded, held or off. */
export function describePluginLoad(load: PluginLoad): string[] {
    return [
        ...load.plugins.map(
            (plugin) => `${plugin.id}${plugin.version ? ` ${plugin.version}` : ""}: loaded`
        ),
        ...load.held.map(({ id, reason }) => `${id}: held: ${reason}`),
        ...load.disabled.map((id) => `${id}: disabled`),
        ...load.warnings,
    ];
}
