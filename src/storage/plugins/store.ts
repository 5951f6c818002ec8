/**
 * North's plugin state in its data folder (`~/.north/plugins/`):
 *
 *     marketplaces.json          name → where it came from and the commit it is pinned to
 *     marketplaces/<name>/       the marketplace's clone, pinned to a commit
 *     staging/                   copies waiting for the user's yes, fresh plugin clones
 *     installed.json             plugin id → the installed copy, its fingerprint, enabled or not
 *     cache/<market>/<plugin>/<version>/   the installed copy (a copy: nothing of it ran)
 *     data/<id with [^A-Za-z0-9_-] → ->/  `${CLAUDE_PLUGIN_DATA}`, kept across updates
 *
 * Both JSON files are edited under a lock and written atomically.
 */
import { join } from "node:path";
import { editJsonObject, isJsonObject, readJsonObject } from "../json-object-file";

/** `name@marketplace` (as in project/plugins/types.ts; storage does not import project/). */
export type PluginId = string;

/** Where a marketplace (or a plugin outside one) comes from, as the user gave it or a catalogue names it. */
export type PluginSource =
    | { kind: "git"; url: string; ref?: string }
    | { kind: "github"; repo: string; ref?: string }
    | { kind: "local"; path: string; ref?: string };

export interface MarketplaceRecord {
    name: string;
    source: PluginSource;
    /** The clone (`marketplaces/<name>/`), checked out at `commit`. */
    path: string;
    /** The commit the clone is pinned to (moved only by an update the user asks for). */
    commit?: string;
    addedAt: string;
    updatedAt: string;
}

export interface InstalledPluginRecord {
    id: PluginId;
    name: string;
    marketplace: string;
    version?: string;
    /** The marketplace commit (or the plugin source's own) the copy was made from. */
    commit?: string;
    /** The installed copy: `cache/<market>/<plugin>/<version>/`. */
    path: string;
    /**
     * Digest of every file of the copy (names, modes and contents), as the
     * user approved it at install or update; a copy that no longer matches
     * runs none of its hooks or servers until approved again.
     */
    fingerprint: string;
    /** The user's own switch (`north plugin enable|disable`, `/plugin`). */
    enabled: boolean;
    installedAt: string;
    updatedAt: string;
    /**
     * A `strict: false` marketplace entry defines the plugin itself (the
     * official LSP plugins); kept so loading needs no marketplace read.
     */
    entry?: Record<string, unknown>;
}

export function pluginsDir(dataDirectory: string): string {
    return join(dataDirectory, "plugins");
}

export function marketplacesFile(dataDirectory: string): string {
    return join(pluginsDir(dataDirectory), "marketplaces.json");
}

export function installedFile(dataDirectory: string): string {
    return join(pluginsDir(dataDirectory), "installed.json");
}

/** The clone of a marketplace, pinned to its recorded commit. */
export function marketplaceCloneDir(dataDirectory: string, name: string): string {
    return join(pluginsDir(dataDirectory), "marketplaces", name);
}

/** Every installed copy of one plugin: `cache/<market>/<plugin>/`. */
export function pluginCacheParent(
    dataDirectory: string,
    marketplace: string,
    name: string
): string {
    return join(pluginsDir(dataDirectory), "cache", marketplace, name);
}

/** Work folders (copies waiting for the user's yes, fresh clones) live here until they move or go. */
export function stagingDir(dataDirectory: string): string {
    return join(pluginsDir(dataDirectory), "staging");
}

/** `${CLAUDE_PLUGIN_DATA}` of a plugin, as Claude Code names it (every other character becomes `-`). */
export function pluginDataDir(dataDirectory: string, id: PluginId): string {
    return join(pluginsDir(dataDirectory), "data", id.replace(/[^A-Za-z0-9_-]/g, "-"));
}

/** The records of a store file; a missing file is empty, a broken one throws (it is never rewritten). */
function readRecords<T>(path: string): Record<string, T> {
    const object = readJsonObject(path);
    const out: Record<string, T> = {};
    for (const [key, value] of Object.entries(object)) {
        if (isJsonObject(value)) out[key] = value as T;
    }
    return out;
}

export function readMarketplaces(dataDirectory: string): Record<string, MarketplaceRecord> {
    return readRecords<MarketplaceRecord>(marketplacesFile(dataDirectory));
}

export function readInstalledPlugins(
    dataDirectory: string
): Record<PluginId, InstalledPluginRecord> {
    return readRecords<InstalledPluginRecord>(installedFile(dataDirectory));
}

/** Sets (or, with undefined, removes) one marketplace record under the file's lock. */
export function writeMarketplace(
    dataDirectory: string,
    name: string,
    record: MarketplaceRecord | undefined
): void {
    editJsonObject(marketplacesFile(dataDirectory), (object) => {
        if (record === undefined) {
            if (!(name in object)) return false;
            delete object[name];
        } else object[name] = record;
        return true;
    });
}

/** Sets (or, with undefined, removes) one installed plugin's record under the file's lock. */
export function writeInstalledPlugin(
    dataDirectory: string,
    id: PluginId,
    record: InstalledPluginRecord | undefined
): void {
    editJsonObject(installedFile(dataDirectory), (object) => {
        if (record === undefined) {
            if (!(id in object)) return false;
            delete object[id];
        } else object[id] = record;
        return true;
    });
}

/**
 * Changes one installed plugin's record under the file's lock (read, change,
 * write); undefined when the plugin is not installed.
 */
export function updateInstalledPlugin(
    dataDirectory: string,
    id: PluginId,
    change: (record: InstalledPluginRecord) => InstalledPluginRecord
): InstalledPluginRecord | undefined {
    let updated: InstalledPluginRecord | undefined;
    editJsonObject(installedFile(dataDirectory), (object) => {
        const current = object[id];
        if (!isJsonObject(current)) return false;
        updated = change(current as unknown as InstalledPluginRecord);
        object[id] = updated;
        return true;
    });
    return updated;
}
