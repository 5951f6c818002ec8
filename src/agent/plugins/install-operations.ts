/**
 * Installing a plugin is two steps around the user's yes: `prepareInstall`
 * copies the plugin out of its (pinned) marketplace into a staging folder,
 * reads it, lists what it may run and fingerprints it — no plugin code runs;
 * `commitPrepared` moves the copy into `cache/<market>/<plugin>/<version>/`
 * and records it. Updates go the same way and ask again only when any file
 * changed.
 */
import {
    existsSync,
    mkdirSync,
    mkdtempSync,
    readdirSync,
    realpathSync,
    renameSync,
    rmSync,
    statSync,
} from "node:fs";
import { join } from "node:path";
import { pluginFingerprint } from "../../project/plugins/fingerprint";
import { pluginInventory } from "../../project/plugins/inventory";
import {
    type MarketplaceEntry,
    resolveEntrySource,
} from "../../project/plugins/marketplace-manifest";
import { readPlugin } from "../../project/plugins/read";
import {
    type PluginId,
    type PluginInventory,
    parsePluginId,
    pluginId,
} from "../../project/plugins/types";
import { PluginCopyError, copyPluginTree } from "../../storage/plugins/copy-plugin";
import { GitFetchError, cloneAtCommit } from "../../storage/plugins/git-fetch";
import { makeStagingFolder } from "../../storage/plugins/staging";
import {
    type InstalledPluginRecord,
    type MarketplaceRecord,
    pluginCacheParent,
    pluginDataDir,
    readInstalledPlugins,
    updateInstalledPlugin,
    writeInstalledPlugin,
} from "../../storage/plugins/store";
import { isPathInside, readRegularTextSync } from "../../util/read-regular-file";
import {
    type PluginContext,
    getMarketplace,
    readCatalogue,
    updateMarketplaces,
} from "./marketplace-operations";
import { describeSource } from "./marketplace-source";
import { PluginError } from "./plugin-error";

export interface PreparedPlugin {
    id: PluginId;
    inventory: PluginInventory;
    fingerprint: string;
    version?: string;
    commit?: string;
    /** The staged copy (removed by `discardPrepared`, moved by `commitPrepared`). */
    staged: string;
    previous?: InstalledPluginRecord;
    /** What the approved copy could run (an update shows what changed); absent when it no longer reads. */
    previousInventory?: PluginInventory;
    /** The approved fingerprint differs (always true for a new install). */
    needsApproval: boolean;
    /** The marketplace entry as written (kept on the record: loading reads the plugin the same way). */
    entry: Record<string, unknown>;
    /** `defaultEnabled: false` in the entry or plugin.json: installed switched off. */
    defaultEnabled: boolean;
    /** Skipped symlinks and the like, from copying. */
    warnings: string[];
}

export type PreparedUpdate = PreparedPlugin | { upToDate: true; record: InstalledPluginRecord };

function entryOrThrow(
    market: MarketplaceRecord,
    name: string
): { entry: MarketplaceEntry; pluginRoot?: string } {
    const { manifest } = readCatalogue(market.path, market.name);
    const entry = manifest.plugins.find((candidate) => candidate.name === name);
    if (entry === undefined) {
        const names = manifest.plugins.map((candidate) => candidate.name);
        throw new PluginError(
            `marketplace ${market.name} has no plugin ${name}` +
                (names.length ? ` (it has: ${names.join(", ")})` : " (it lists none)")
        );
    }
    return { entry, pluginRoot: manifest.pluginRoot };
}

/** Where the plugin's files are, cloning its own repository when the entry points at one. */
async function pluginFolder(
    ctx: PluginContext,
    market: MarketplaceRecord,
    entry: MarketplaceEntry,
    pluginRoot: string | undefined,
    cloneDir: string
): Promise<{ folder: string; within: string; commit?: string; source: string }> {
    const source = resolveEntrySource(entry, market.path, pluginRoot);
    const pinned = market.commit ? `@${market.commit.slice(0, 12)}` : "";
    switch (source.kind) {
        case "unsupported":
            throw new PluginError(source.reason);
        case "relative":
            return {
                folder: source.path,
                within: market.path,
                commit: market.commit,
                source: `${market.name} (${describeSource(market.source)}${pinned})`,
            };
        case "github":
        case "git": {
            const url =
                source.kind === "github" ? `https://github.com/${source.repo}.git` : source.url;
            let commit: string;
            try {
                commit = await cloneAtCommit(cloneDir, {
                    url,
                    ref: source.ref,
                    sha: source.sha,
                    signal: ctx.signal,
                });
            } catch (error) {
                if (error instanceof GitFetchError)
                    throw new PluginError(`plugin ${entry.name}: ${error.message}`);
                throw error;
            }
            const sub =
                source.kind === "git" && source.path ? join(cloneDir, source.path) : cloneDir;
            const shown = source.kind === "github" ? `github:${source.repo}` : url;
            return {
                folder: sub,
                within: cloneDir,
                commit,
                source: `${shown}@${commit.slice(0, 12)}`,
            };
        }
    }
}

function manifestDefaultEnabled(root: string): boolean | undefined {
    const file = join(root, ".claude-plugin", "plugin.json");
    try {
        const json = JSON.parse(readRegularTextSync(file, { insideRoot: root })) as unknown;
        const value = (json as { defaultEnabled?: unknown } | null)?.defaultEnabled;
        return typeof value === "boolean" ? value : undefined;
    } catch {
        return undefined;
    }
}

/** Replaces the staging path in what the user reads with `${CLAUDE_PLUGIN_ROOT}` (the copy moves on yes). */
function showRootVariable(inventory: PluginInventory, staged: string): PluginInventory {
    const swap = (text: string): string => text.split(staged).join("${CLAUDE_PLUGIN_ROOT}");
    return {
        ...inventory,
        hooks: inventory.hooks.map((hook) => ({ ...hook, command: swap(hook.command) })),
        mcpServers: inventory.mcpServers.map((server) => ({
            ...server,
            launch: swap(server.launch),
        })),
        lspServers: inventory.lspServers.map((server) => ({
            ...server,
            launch: swap(server.launch),
        })),
    };
}

/** The installed copy's inventory, read as loading reads it; undefined when it no longer reads. */
async function inventoryOf(
    ctx: PluginContext,
    record: InstalledPluginRecord
): Promise<PluginInventory | undefined> {
    const read = await readPlugin({
        root: record.path,
        marketplace: record.marketplace,
        dataDir: pluginDataDir(ctx.dataDir, record.id),
        projectDir: ctx.projectDir,
        ...(record.entry ? { entry: record.entry } : {}),
    }).catch(() => undefined);
    if (!read?.ok) return undefined;
    return showRootVariable(pluginInventory(read.plugin, record.path), record.path);
}

/** Copies, reads, inventories and fingerprints a plugin of an added marketplace; nothing of it runs. */
export async function prepareInstall(ctx: PluginContext, id: PluginId): Promise<PreparedPlugin> {
    const parts = parsePluginId(id);
    if (parts === undefined) throw new PluginError(`${id} is not a plugin id (name@marketplace)`);
    const market = getMarketplace(ctx, parts.marketplace);
    const { entry, pluginRoot } = entryOrThrow(market, parts.name);
    const cloneDir = makeStagingFolder(ctx.dataDir, "source");
    const staged = makeStagingFolder(ctx.dataDir, parts.name);
    try {
        const found = await pluginFolder(ctx, market, entry, pluginRoot, cloneDir);
        let real: string;
        try {
            real = realpathSync(found.folder);
        } catch {
            throw new PluginError(
                `plugin ${parts.name}: its folder ${found.folder} does not exist`
            );
        }
        if (!isPathInside(realpathSync(found.within), real) || !statSync(real).isDirectory()) {
            throw new PluginError(
                `plugin ${parts.name}: its source is not a folder inside its repository`
            );
        }
        let copied: { warnings: string[] };
        try {
            copied = copyPluginTree(real, staged);
        } catch (error) {
            if (error instanceof PluginCopyError)
                throw new PluginError(`plugin ${parts.name}: ${error.message}`);
            throw error;
        }
        const read = await readPlugin({
            root: staged,
            marketplace: market.name,
            dataDir: pluginDataDir(ctx.dataDir, id),
            projectDir: ctx.projectDir,
            entry: entry.raw,
        });
        if (!read.ok) throw new PluginError(read.error);
        const fingerprint = await pluginFingerprint(staged).catch((error: unknown) => {
            throw new PluginError(`plugin ${parts.name}: ${(error as Error).message}`);
        });
        const inventory = showRootVariable(pluginInventory(read.plugin, found.source), staged);
        inventory.warnings = [...copied.warnings, ...inventory.warnings];
        const previous = readInstalledPlugins(ctx.dataDir)[id];
        const previousInventory = previous ? await inventoryOf(ctx, previous) : undefined;
        const entryDefault = entry.raw.defaultEnabled;
        return {
            id: pluginId(parts.name, market.name),
            inventory,
            fingerprint,
            version: read.plugin.version ?? entry.version,
            commit: found.commit,
            staged,
            ...(previous ? { previous } : {}),
            ...(previousInventory ? { previousInventory } : {}),
            needsApproval: previous?.fingerprint !== fingerprint,
            entry: entry.raw,
            defaultEnabled:
                typeof entryDefault === "boolean"
                    ? entryDefault
                    : (manifestDefaultEnabled(staged) ?? true),
            warnings: copied.warnings,
        };
    } catch (error) {
        rmSync(staged, { recursive: true, force: true });
        throw error;
    } finally {
        rmSync(cloneDir, { recursive: true, force: true });
    }
}

/**
 * Updates the plugin's marketplace (moving its pin; `marketplaceFetched`: the
 * caller just did) and prepares the new copy; unchanged files → up to date.
 */
export async function prepareUpdate(
    ctx: PluginContext,
    id: PluginId,
    o: { marketplaceFetched?: boolean } = {}
): Promise<PreparedUpdate> {
    const record = installedOrThrow(ctx, id);
    if (!o.marketplaceFetched) await updateMarketplaces(ctx, record.marketplace);
    const prepared = await prepareInstall(ctx, id);
    if (prepared.needsApproval) return prepared;
    // The files are the ones approved; a copy changed behind North's back (held) is replaced by them.
    if (!(await copyIntact(record))) {
        return { upToDate: true, record: await commitPrepared(ctx, prepared) };
    }
    await discardPrepared(prepared);
    const moved =
        updateInstalledPlugin(ctx.dataDir, id, (current) => ({
            ...current,
            ...(prepared.commit ? { commit: prepared.commit } : {}),
            updatedAt: new Date().toISOString(),
        })) ?? record;
    return { upToDate: true, record: moved };
}

/** Whether an installed copy's files are still the ones its record approved. */
async function copyIntact(record: InstalledPluginRecord): Promise<boolean> {
    if (!existsSync(record.path)) return false;
    return pluginFingerprint(record.path).then(
        (fingerprint) => fingerprint === record.fingerprint,
        () => false
    );
}

/** A folder name for a version: the version text made path-safe, else the commit's first 12 characters. */
function versionFolder(prepared: PreparedPlugin): string {
    const raw = prepared.version ?? prepared.commit?.slice(0, 12) ?? "unknown";
    const safe = raw.replace(/[^A-Za-z0-9._+-]/g, "-");
    return /^[A-Za-z0-9]/.test(safe) ? safe : `v${safe}`;
}

/** The user said yes: the staged copy becomes the installed one and its record is written. */
export async function commitPrepared(
    ctx: PluginContext,
    prepared: PreparedPlugin
): Promise<InstalledPluginRecord> {
    if (!existsSync(prepared.staged)) {
        throw new PluginError(
            `${prepared.id}: this install was already done or discarded; prepare it again`
        );
    }
    const parts = parsePluginId(prepared.id)!;
    const parent = pluginCacheParent(ctx.dataDir, parts.marketplace, parts.name);
    mkdirSync(parent, { recursive: true });
    const current = readInstalledPlugins(ctx.dataDir)[prepared.id];
    let folder: string;
    if (current?.fingerprint === prepared.fingerprint && (await copyIntact(current))) {
        // The same files again (an install repeated): the copy in place stays.
        folder = current.path;
        rmSync(prepared.staged, { recursive: true, force: true });
    } else {
        const base = versionFolder(prepared);
        // A copy in use keeps its folder: a changed plugin with the same version gets its own.
        folder = join(parent, base);
        if (existsSync(folder))
            folder = join(parent, `${base}-${prepared.fingerprint.slice(0, 8)}`);
        if (existsSync(folder)) folder = mkdtempSync(join(parent, `${base}-`));
        rmSync(folder, { recursive: true, force: true });
        renameSync(prepared.staged, folder);
    }
    const now = new Date().toISOString();
    const record: InstalledPluginRecord = {
        id: prepared.id,
        name: parts.name,
        marketplace: parts.marketplace,
        ...(prepared.version ? { version: prepared.version } : {}),
        ...(prepared.commit ? { commit: prepared.commit } : {}),
        path: folder,
        fingerprint: prepared.fingerprint,
        enabled: current?.enabled ?? prepared.defaultEnabled,
        installedAt: current?.installedAt ?? now,
        updatedAt: now,
        entry: prepared.entry,
    };
    writeInstalledPlugin(ctx.dataDir, prepared.id, record);
    // The copy just replaced may still be read by a running session: it goes at the next update.
    const keep = new Set([folder, current?.path]);
    for (const name of readdirSync(parent)) {
        const path = join(parent, name);
        if (!keep.has(path)) rmSync(path, { recursive: true, force: true });
    }
    return record;
}

export async function discardPrepared(prepared: PreparedPlugin): Promise<void> {
    rmSync(prepared.staged, { recursive: true, force: true });
}

function installedOrThrow(ctx: PluginContext, id: PluginId): InstalledPluginRecord {
    const record = readInstalledPlugins(ctx.dataDir)[id];
    if (record === undefined) throw new PluginError(`${id} is not installed`);
    return record;
}

export function setPluginEnabled(
    ctx: PluginContext,
    id: PluginId,
    enabled: boolean
): InstalledPluginRecord {
    const record = updateInstalledPlugin(ctx.dataDir, id, (current) => ({
        ...current,
        enabled,
        updatedAt: new Date().toISOString(),
    }));
    if (record === undefined) throw new PluginError(`${id} is not installed`);
    return record;
}

/** Removes the record, every installed copy and (unless keepData) `${CLAUDE_PLUGIN_DATA}`. */
export async function removePlugin(
    ctx: PluginContext,
    id: PluginId,
    o: { keepData?: boolean } = {}
): Promise<void> {
    const record = installedOrThrow(ctx, id);
    writeInstalledPlugin(ctx.dataDir, id, undefined);
    rmSync(pluginCacheParent(ctx.dataDir, record.marketplace, record.name), {
        recursive: true,
        force: true,
    });
    if (!o.keepData) rmSync(pluginDataDir(ctx.dataDir, id), { recursive: true, force: true });
}
