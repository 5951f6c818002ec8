/**
 * The marketplaces and plugins a project says it expects (Claude Code's
 * `extraKnownMarketplaces` and `enabledPlugins`, in the project's trust-gated
 * settings files), read from the trust snapshot and set against what the user
 * installed. The trust prompt lists them; nothing here adds, clones or
 * enables anything: installing takes the user's own yes, plugin by plugin.
 */
import { PROJECT_PLUGIN_FILES, projectEnabledPlugins } from "../agent/plugins/enabled-setting";
import { isJsonObject } from "../storage/json-object-file";
import {
    type InstalledPluginRecord,
    type MarketplaceRecord,
    readInstalledPlugins,
    readMarketplaces,
} from "../storage/plugins/store";
import type { ProjectConfigSnapshot, TrustGatedFile } from "../storage/trust";

export interface DeclaredMarketplace {
    name: string;
    /** Claude Code's source object (`{source: "github", repo}`, `{source: "git", url}`, …). */
    source: Record<string, unknown>;
    /** The settings file that declares it. */
    file: TrustGatedFile;
}

export type DeclaredPluginState =
    | "not installed"
    | "installed"
    /**
     * Installed and switched off by the user: a trusted project's `true`
     * switches it on here (as Claude Code's project scope beats the user's).
     */
    | "disabled by you";

export interface DeclaredPlugin {
    id: string;
    name: string;
    marketplace: string;
    file: TrustGatedFile;
    state: DeclaredPluginState;
    /** The project's marketplace entry for it, when it declares one. */
    declaredMarketplace?: DeclaredMarketplace;
    /** The user already has that marketplace. */
    marketplaceKnown: boolean;
}

export interface DeclaredPlugins {
    marketplaces: DeclaredMarketplace[];
    /** The plugins the project turns on (`true`); its `false` entries only turn things off. */
    plugins: DeclaredPlugin[];
}

function parseObject(text: string | undefined): Record<string, unknown> | undefined {
    if (text === undefined) return undefined;
    try {
        const json = JSON.parse(text) as unknown;
        return isJsonObject(json) ? json : undefined;
    } catch {
        return undefined;
    }
}

/** The project's `enabledPlugins`, its files merged by precedence (its `false`s included). */
export function declaredEnabledPlugins(snapshot: ProjectConfigSnapshot): Record<string, boolean> {
    return projectEnabledPlugins(snapshot.files);
}

/** `{source:"github", repo:"acme/tools"}` → "github acme/tools", as a person reads it. */
export function describeMarketplaceSource(source: Record<string, unknown>): string {
    const kind = typeof source.source === "string" ? source.source : "?";
    const where = [source.repo, source.url, source.path, source.package].find(
        (v): v is string => typeof v === "string"
    );
    const ref = typeof source.ref === "string" ? `@${source.ref}` : "";
    return `${kind} ${where ?? "(no location)"}${ref}`;
}

/** The `north plugin marketplace add` argument for a declared source; undefined when North cannot add it. */
export function marketplaceAddArgument(source: Record<string, unknown>): string | undefined {
    const ref = typeof source.ref === "string" ? source.ref : undefined;
    if (source.source === "github" && typeof source.repo === "string")
        return ref ? `${source.repo}@${ref}` : source.repo;
    if (source.source === "git" && typeof source.url === "string")
        return ref ? `${source.url}#${ref}` : source.url;
    if (
        (source.source === "directory" || source.source === "file") &&
        typeof source.path === "string"
    )
        return source.path;
    return undefined;
}

function stateOf(record: InstalledPluginRecord | undefined): DeclaredPluginState {
    if (!record) return "not installed";
    return record.enabled ? "installed" : "disabled by you";
}

function safely<T>(read: () => Record<string, T>): Record<string, T> {
    try {
        return read();
    } catch {
        // A broken store is reported by `north plugin list` and doctor; here: nothing installed.
        return {};
    }
}

/**
 * What the snapshot's settings declare, each plugin with its state in the
 * user's store under `dataDirectory` (undefined: states read "not installed").
 */
export function readDeclaredPlugins(
    snapshot: ProjectConfigSnapshot,
    dataDirectory?: string
): DeclaredPlugins {
    const marketplaces = new Map<string, DeclaredMarketplace>();
    const enabled = new Map<string, { on: boolean; file: TrustGatedFile }>();
    for (const file of PROJECT_PLUGIN_FILES) {
        const json = parseObject(snapshot.files[file]);
        if (!json) continue;
        const markets = json.extraKnownMarketplaces ?? json.additionalMarketplaces;
        if (isJsonObject(markets)) {
            for (const [name, entry] of Object.entries(markets)) {
                // The highest-precedence entry is taken whole, as Claude Code does.
                if (isJsonObject(entry) && isJsonObject(entry.source))
                    marketplaces.set(name, { name, source: entry.source, file });
            }
        }
        if (isJsonObject(json.enabledPlugins)) {
            for (const [id, on] of Object.entries(json.enabledPlugins)) {
                if (typeof on === "boolean") enabled.set(id, { on, file });
            }
        }
    }
    const installed: Record<string, InstalledPluginRecord> = dataDirectory
        ? safely(() => readInstalledPlugins(dataDirectory))
        : {};
    const known: Record<string, MarketplaceRecord> = dataDirectory
        ? safely(() => readMarketplaces(dataDirectory))
        : {};
    const plugins: DeclaredPlugin[] = [];
    for (const [id, { on, file }] of enabled) {
        const at = id.lastIndexOf("@");
        if (!on || at <= 0 || at === id.length - 1) continue;
        const marketplace = id.slice(at + 1);
        plugins.push({
            id,
            name: id.slice(0, at),
            marketplace,
            file,
            state: stateOf(installed[id]),
            declaredMarketplace: marketplaces.get(marketplace),
            marketplaceKnown: marketplace in known,
        });
    }
    return { marketplaces: [...marketplaces.values()], plugins };
}

/** "alpha@tools (marketplace tools: github acme/tools) — not installed", for the trust prompt. */
export function declaredPluginText(plugin: DeclaredPlugin): string {
    const market = plugin.declaredMarketplace
        ? ` (marketplace ${plugin.marketplace}: ${describeMarketplaceSource(plugin.declaredMarketplace.source)})`
        : plugin.marketplaceKnown
          ? ""
          : ` (marketplace ${plugin.marketplace}: not known here, and the project does not say where it is)`;
    const state =
        plugin.state === "disabled by you"
            ? `installed but disabled by you: trusting this project turns it on here (to keep it off: "enabledPlugins": {"${plugin.id}": false} in .claude/settings.local.json)"`
            : plugin.state === "installed"
              ? "installed"
              : "not installed: North offers to install it after you trust the project, and asks again for each";
    return `${plugin.id}${market} — ${state}`;
}

/**
 * The commands that install a declared plugin, for print mode and notes:
 * adding its marketplace first when the user does not have it.
 */
export function installCommandLines(plugin: DeclaredPlugin): string[] {
    const lines: string[] = [];
    if (!plugin.marketplaceKnown && plugin.declaredMarketplace) {
        const argument = marketplaceAddArgument(plugin.declaredMarketplace.source);
        lines.push(
            argument
                ? `north plugin marketplace add ${argument}`
                : `(marketplace ${plugin.marketplace}: a ${describeMarketplaceSource(plugin.declaredMarketplace.source)} source North cannot add)`
        );
    }
    lines.push(`north plugin install ${plugin.id}`);
    return lines;
}

/** One warning per declared plugin that will not run, for print mode (which installs nothing). */
export function declaredPluginNotes(plugins: DeclaredPlugins): string[] {
    return plugins.plugins.flatMap((plugin) => {
        if (plugin.state === "installed") return [];
        if (plugin.state === "disabled by you")
            return [
                `this project turns on plugin ${plugin.id}, which you disabled (to keep it off here: "enabledPlugins": {"${plugin.id}": false} in .claude/settings.local.json)`,
            ];
        return [
            `this project expects plugin ${plugin.id}, not installed (print mode installs nothing): ${installCommandLines(plugin).join(" && ")}`,
        ];
    });
}
