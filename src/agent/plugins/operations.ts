/**
 * Plugin and marketplace operations shared by `north plugin`, the engine's
 * `/plugin` ops and the trust prompt's install offer. No terminal I/O here:
 * a failure is a PluginError whose message a user reads; the user's yes
 * comes between `prepareInstall`/`prepareUpdate` and `commitPrepared`.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { type PluginId, parsePluginId, pluginId } from "../../project/plugins/types";
import {
    type MarketplaceRecord,
    pluginsDir,
    readInstalledPlugins,
    writeMarketplace,
} from "../../storage/plugins/store";
import { closestMatches } from "../../util/levenshtein";
import { removePlugin } from "./install-operations";
import {
    type PluginContext,
    getMarketplace,
    listMarketplaces,
    readCatalogue,
} from "./marketplace-operations";
import { PluginError } from "./plugin-error";

export { PluginError } from "./plugin-error";
export { parsePluginSourceText, describeSource } from "./marketplace-source";
export {
    type PluginContext,
    addMarketplace,
    updateMarketplaces,
    listMarketplaces,
} from "./marketplace-operations";
export {
    type PreparedPlugin,
    type PreparedUpdate,
    prepareInstall,
    prepareUpdate,
    commitPrepared,
    discardPrepared,
    setPluginEnabled,
    removePlugin,
} from "./install-operations";

export interface AvailablePlugin {
    id: PluginId;
    name: string;
    marketplace: string;
    description?: string;
    version?: string;
    category?: string;
    installed: boolean;
    enabled?: boolean;
}

/** Removes a marketplace, its clone and every plugin installed from it. */
export async function removeMarketplace(
    ctx: PluginContext,
    name: string
): Promise<{ removedPlugins: PluginId[] }> {
    const market = getMarketplace(ctx, name);
    const removedPlugins: PluginId[] = [];
    for (const record of Object.values(readInstalledPlugins(ctx.dataDir))) {
        if (record.marketplace !== name) continue;
        await removePlugin(ctx, record.id);
        removedPlugins.push(record.id);
    }
    writeMarketplace(ctx.dataDir, name, undefined);
    rmSync(market.path, { recursive: true, force: true });
    rmSync(join(pluginsDir(ctx.dataDir), "cache", name), { recursive: true, force: true });
    return { removedPlugins };
}

/**
 * The plugins the added marketplaces list (one marketplace when named). A
 * marketplace whose catalogue no longer reads is skipped when listing all.
 */
export async function listAvailablePlugins(
    ctx: PluginContext,
    marketplace?: string
): Promise<AvailablePlugin[]> {
    const markets: MarketplaceRecord[] =
        marketplace === undefined ? listMarketplaces(ctx) : [getMarketplace(ctx, marketplace)];
    const installed = readInstalledPlugins(ctx.dataDir);
    const out: AvailablePlugin[] = [];
    for (const market of markets) {
        let catalogue: ReturnType<typeof readCatalogue>;
        try {
            catalogue = readCatalogue(market.path, market.name);
        } catch (error) {
            if (marketplace !== undefined) throw error;
            continue;
        }
        for (const entry of catalogue.manifest.plugins) {
            const id = pluginId(entry.name, market.name);
            const record = installed[id];
            out.push({
                id,
                name: entry.name,
                marketplace: market.name,
                ...(entry.description ? { description: entry.description } : {}),
                ...(entry.version ? { version: entry.version } : {}),
                ...(entry.category ? { category: entry.category } : {}),
                installed: record !== undefined,
                ...(record ? { enabled: record.enabled } : {}),
            });
        }
    }
    return out;
}

/** `name@market` as given, or a bare name that exactly one added marketplace lists. */
export async function resolveAvailableId(ctx: PluginContext, text: string): Promise<PluginId> {
    if (parsePluginId(text) !== undefined) return text;
    const available = await listAvailablePlugins(ctx);
    const matches = available.filter((plugin) => plugin.name === text);
    if (matches.length === 1) return matches[0]!.id;
    if (matches.length > 1) {
        throw new PluginError(
            `${text} is in several marketplaces: ${matches.map((plugin) => plugin.id).join(", ")}; name one`
        );
    }
    throw new PluginError(
        notFound(
            text,
            available.map((plugin) => plugin.id),
            "no added marketplace lists"
        )
    );
}

/** An installed plugin's id, from `name@market` or its bare name when only one installed plugin has it. */
export function resolveInstalledId(ctx: PluginContext, text: string): PluginId {
    const installed = Object.keys(readInstalledPlugins(ctx.dataDir));
    if (installed.includes(text)) return text;
    const matches = installed.filter((id) => parsePluginId(id)?.name === text);
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1)
        throw new PluginError(
            `${text} is installed from several marketplaces: ${matches.join(", ")}; name one`
        );
    throw new PluginError(notFound(text, installed, "no installed plugin is"));
}

function notFound(text: string, candidates: string[], phrase: string): string {
    const close = closestMatches(text, candidates, 1);
    return `${phrase} ${text}` + (close.length ? ` (did you mean ${close[0]}?)` : "");
}
