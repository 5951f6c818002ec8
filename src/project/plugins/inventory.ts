/**
 * What a plugin would be allowed to do, listed for the user's yes before it
 * is installed or updated: every program it can run (hook commands, MCP and
 * LSP servers) exactly as it would run, and its other parts by name.
 */
import { basename } from "node:path";
import type { LoadedPlugin, PluginInventory } from "./types";

function isObject(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): string[] {
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** A command line as a person reads it: arguments with spaces quoted. */
function commandLine(command: string, args: string[]): string {
    const quote = (arg: string): string =>
        /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
    return [command, ...args.map(quote)].join(" ");
}

function hookLaunch(hook: Record<string, unknown>): string {
    const type = typeof hook.type === "string" ? hook.type : "command";
    if (typeof hook.command === "string") {
        const args = stringList(hook.args);
        return args.length > 0 ? commandLine(hook.command, args) : hook.command;
    }
    if (typeof hook.url === "string") return `${type} ${hook.url}`;
    if (typeof hook.prompt === "string") return `${type}: ${hook.prompt.split("\n")[0] ?? ""}`;
    return `${type} (no command)`;
}

function hooksOf(plugin: LoadedPlugin): PluginInventory["hooks"] {
    const out: PluginInventory["hooks"] = [];
    for (const config of plugin.hooks) {
        for (const [event, groups] of Object.entries(config.hooks)) {
            if (!Array.isArray(groups)) continue;
            for (const group of groups) {
                if (!isObject(group)) continue;
                const matcher =
                    typeof group.matcher === "string" && group.matcher !== ""
                        ? group.matcher
                        : undefined;
                const hooks = Array.isArray(group.hooks) ? group.hooks : [];
                for (const hook of hooks) {
                    if (!isObject(hook)) continue;
                    out.push({ event, ...(matcher ? { matcher } : {}), command: hookLaunch(hook) });
                }
            }
        }
    }
    return out;
}

function serverLaunch(server: unknown): string {
    if (!isObject(server)) return "(not an object)";
    if (typeof server.command === "string")
        return commandLine(server.command, stringList(server.args));
    if (typeof server.url === "string") {
        const type = typeof server.type === "string" ? server.type : "http";
        return `${type} ${server.url}`;
    }
    return "(no command or URL)";
}

/** The inventory of `plugin`; `source` says where it comes from (`github:owner/repo@sha`, a path). */
export function pluginInventory(plugin: LoadedPlugin, source: string): PluginInventory {
    const inventory: PluginInventory = {
        id: plugin.id,
        source,
        commands: plugin.commands.map((c) => c.name),
        agents: plugin.agents.map((a) => a.name),
        skills: plugin.skillDirs.map((dir) =>
            dir === plugin.root ? plugin.name : `${plugin.name}:${basename(dir)}`
        ),
        hooks: hooksOf(plugin),
        mcpServers: Object.entries(plugin.mcpServers).map(([name, server]) => ({
            name,
            launch: serverLaunch(server),
        })),
        lspServers: Object.entries(plugin.lspServers).map(([name, server]) => ({
            name,
            launch: serverLaunch(server),
        })),
        outputStyles: plugin.outputStyles.map((s) => s.name),
        unsupported: [...plugin.unsupported],
        warnings: [...plugin.warnings],
    };
    if (plugin.version !== undefined) inventory.version = plugin.version;
    return inventory;
}

/** `npx`/`bunx`/`uvx`… fetch and run a package: said plainly. */
function fetchesPackage(launch: string): boolean {
    return /^(npx|bunx|pnpx|uvx|pipx)\b|^(npm|pnpm|yarn) (exec|dlx)\b/.test(launch);
}

/** The inventory as lines a person reads (the CLI, the chat and the trust prompt show these). */
export function formatInventory(inventory: PluginInventory): string[] {
    const lines: string[] = [
        `${inventory.id}${inventory.version ? ` ${inventory.version}` : ""} from ${inventory.source}`,
    ];
    const programs =
        inventory.hooks.length + inventory.mcpServers.length + inventory.lspServers.length;
    lines.push(
        programs === 0
            ? "  Runs no programs of its own."
            : `  Programs it can run (${programs}), as its author wrote them:`
    );
    for (const hook of inventory.hooks) {
        lines.push(
            `    hook ${hook.event}${hook.matcher ? ` [${hook.matcher}]` : ""}: ${hook.command}`
        );
    }
    for (const server of inventory.mcpServers) {
        const note = fetchesPackage(server.launch) ? " (downloads and runs a package)" : "";
        lines.push(`    MCP server ${server.name}: ${server.launch}${note}`);
    }
    for (const server of inventory.lspServers) {
        lines.push(`    LSP server ${server.name}: ${server.launch}`);
    }
    const named: Array<[string, string[], string]> = [
        ["Commands", inventory.commands, "/"],
        ["Agents", inventory.agents, ""],
        ["Skills", inventory.skills, ""],
        ["Output styles", inventory.outputStyles, ""],
    ];
    for (const [label, names, prefix] of named) {
        if (names.length > 0)
            lines.push(`  ${label}: ${names.map((n) => `${prefix}${n}`).join(", ")}`);
    }
    for (const item of inventory.unsupported) lines.push(`  Not supported: ${item}`);
    for (const warning of inventory.warnings) lines.push(`  Warning: ${warning}`);
    return lines;
}
