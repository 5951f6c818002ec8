/**
 * `north doctor`'s plugins section: each marketplace with the commit it is
 * pinned to, each installed plugin (enabled, disabled, or held and why) with
 * its parts, and whether the programs its servers launch are on PATH. Reading
 * a plugin runs none of it; no server is started here.
 */
import { isAbsolute } from "node:path";
import { accessSync, constants } from "node:fs";
import { loadEnabledPlugins } from "../agent/plugins/enabled";
import type { LoadedPlugin } from "../project/plugins/types";
import {
    type MarketplaceRecord,
    type PluginSource,
    readInstalledPlugins,
    readMarketplaces,
} from "../storage/plugins/store";
import type { ProjectConfigSnapshot } from "../storage/trust";
import { findOnPath } from "../util/find-on-path";
import type { DoctorCheck } from "./doctor-checks";
import {
    declaredEnabledPlugins,
    installCommandLines,
    readDeclaredPlugins,
} from "./project-declared-plugins";

type Env = Record<string, string | undefined>;

function sourceText(source: PluginSource): string {
    switch (source.kind) {
        case "github":
            return `github ${source.repo}${source.ref ? `@${source.ref}` : ""}`;
        case "git":
            return `${source.url}${source.ref ? `#${source.ref}` : ""}`;
        case "local":
            return source.path;
    }
}

function marketplaceCheck(record: MarketplaceRecord): DoctorCheck {
    const pinned = record.commit
        ? `pinned to ${record.commit.slice(0, 12)}`
        : "a local folder (not pinned)";
    return {
        status: "ok",
        label: `marketplace ${record.name}`,
        detail: `${sourceText(record.source)}, ${pinned}, updated ${record.updatedAt}`,
    };
}

function count(n: number, one: string, many: string): string | undefined {
    return n === 0 ? undefined : `${n} ${n === 1 ? one : many}`;
}

/** "2 commands, 1 agent, …" of a loaded plugin. */
export function partsText(plugin: LoadedPlugin): string {
    const hooks = plugin.hooks.reduce(
        (n, config) =>
            n +
            Object.values(config.hooks).reduce<number>(
                (m, groups) => m + (Array.isArray(groups) ? groups.length : 0),
                0
            ),
        0
    );
    const parts = [
        count(plugin.commands.length, "command", "commands"),
        count(plugin.agents.length, "agent", "agents"),
        count(plugin.skillDirs.length, "skill", "skills"),
        count(hooks, "hook", "hooks"),
        count(Object.keys(plugin.mcpServers).length, "MCP server", "MCP servers"),
        count(Object.keys(plugin.lspServers).length, "language server", "language servers"),
        count(plugin.outputStyles.length, "output style", "output styles"),
    ].filter((p): p is string => p !== undefined);
    return parts.length > 0 ? parts.join(", ") : "no parts";
}

function isExecutable(path: string): boolean {
    try {
        accessSync(path, constants.X_OK);
        return true;
    } catch {
        return false;
    }
}

/** Each stdio server's program: found (where) or not; a URL server is only named. */
function serverChecks(plugin: LoadedPlugin, env: Env): DoctorCheck[] {
    const label = `plugin ${plugin.id}`;
    const servers: Array<[string, unknown]> = [
        ...Object.entries(plugin.mcpServers).map(([n, s]): [string, unknown] => [
            `MCP server ${n}`,
            s,
        ]),
        ...Object.entries(plugin.lspServers).map(([n, s]): [string, unknown] => [
            `language server ${n}`,
            s,
        ]),
    ];
    return servers.map(([what, raw]) => {
        const server = (typeof raw === "object" && raw !== null ? raw : {}) as Record<
            string,
            unknown
        >;
        if (typeof server.url === "string")
            return { status: "ok", label, detail: `${what}: connects to ${server.url}` };
        const command = typeof server.command === "string" ? server.command : undefined;
        if (!command) return { status: "warn", label, detail: `${what}: no command` };
        const found = isAbsolute(command)
            ? isExecutable(command)
                ? command
                : null
            : findOnPath(command, env.PATH);
        return found
            ? { status: "ok", label, detail: `${what}: ${command} found: ${found}` }
            : { status: "warn", label, detail: `${what}: ${command} not found on PATH` };
    });
}

/**
 * The plugins section. `snapshot` is the project's trust-gated files, counted
 * only when `trusted` (its `enabledPlugins` and what it expects).
 */
export async function checkPlugins(o: {
    dataDir: string;
    repoRoot: string;
    userEnabled?: Record<string, boolean>;
    snapshot: ProjectConfigSnapshot;
    trusted: boolean;
    env: Env;
}): Promise<DoctorCheck[]> {
    const checks: DoctorCheck[] = [];
    let installed: ReturnType<typeof readInstalledPlugins>;
    try {
        for (const record of Object.values(readMarketplaces(o.dataDir)))
            checks.push(marketplaceCheck(record));
        installed = readInstalledPlugins(o.dataDir);
    } catch (error) {
        return [
            {
                status: "fail",
                label: "plugins",
                detail: error instanceof Error ? error.message : String(error),
            },
        ];
    }
    const ids = Object.keys(installed);
    if (ids.length > 0) {
        const enabledPlugins = {
            ...o.userEnabled,
            ...(o.trusted ? declaredEnabledPlugins(o.snapshot) : {}),
        };
        const load = await loadEnabledPlugins({
            dataDir: o.dataDir,
            projectDir: o.repoRoot,
            enabledPlugins,
        });
        for (const w of load.warnings) checks.push({ status: "warn", label: "plugins", detail: w });
        for (const plugin of load.plugins) {
            const record = installed[plugin.id];
            const at = record?.commit ? ` (${record.commit.slice(0, 12)})` : "";
            checks.push({
                status: "ok",
                label: `plugin ${plugin.id}`,
                detail: `enabled, ${plugin.version ?? "no version"}${at}: ${partsText(plugin)}`,
            });
            for (const w of plugin.warnings)
                checks.push({ status: "warn", label: `plugin ${plugin.id}`, detail: w });
            if (plugin.unsupported.length > 0)
                checks.push({
                    status: "info",
                    label: `plugin ${plugin.id}`,
                    detail: `not supported by North, ignored: ${plugin.unsupported.join(", ")}`,
                });
            checks.push(...serverChecks(plugin, o.env));
        }
        for (const held of load.held)
            checks.push({
                status: "warn",
                label: `plugin ${held.id}`,
                detail: `held, none of it runs: ${held.reason}`,
            });
        for (const id of load.disabled)
            checks.push({ status: "info", label: `plugin ${id}`, detail: "disabled" });
    }
    if (o.trusted) {
        for (const plugin of readDeclaredPlugins(o.snapshot, o.dataDir).plugins) {
            // Installed ones are listed above (its `true` beats the user's own switch).
            if (plugin.state !== "not installed") continue;
            checks.push({
                status: "info",
                label: `plugin ${plugin.id}`,
                detail: `the project expects it, not installed: ${installCommandLines(plugin).join(" && ")}`,
            });
        }
    }
    if (checks.length === 0)
        checks.push({ status: "ok", label: "plugins", detail: "none installed" });
    return checks;
}
