/**
 * A plugin's JSON configurations: hooks (`hooks/hooks.json` and the
 * manifest's), MCP servers (`.mcp.json` and the manifest's) and LSP servers
 * (`.lsp.json` and the manifest's), with the plugin variables expanded where
 * Claude Code expands them. A configuration file that is not valid JSON
 * fails the plugin; a bad server is skipped with a warning.
 */
import { readRegularFileSync } from "../../util/read-regular-file";
import { guardPath, manifestPath, shown } from "./paths";
import type { PluginHooksConfig } from "./types";
import {
    expandEverywhere,
    expandFields,
    LSP_EXPANDED_FIELDS,
    MCP_EXPANDED_FIELDS,
    type PluginVariables,
} from "./variables";

const MAX_CONFIG_BYTES = 1024 * 1024;

export class PluginConfigError extends Error {}

export interface ConfigContext {
    root: string;
    vars: PluginVariables;
    warnings: string[];
    unsupported: string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A JSON file inside the plugin: undefined when missing or refused (warned). */
export function readPluginJson(ctx: ConfigContext, path: string, fromManifest: boolean): unknown {
    const label = shown(ctx.root, path);
    const guarded = guardPath(ctx.root, path, label);
    if (guarded.kind === "missing") {
        if (fromManifest) ctx.warnings.push(`${label} named in the manifest does not exist`);
        return undefined;
    }
    if (guarded.kind === "outside") {
        ctx.warnings.push(guarded.message);
        return undefined;
    }
    let text: string;
    try {
        const read = readRegularFileSync(path, {
            cap: MAX_CONFIG_BYTES,
            insideRoot: ctx.root,
            rootName: "the plugin folder",
            label,
        });
        if (read.truncated) throw new PluginConfigError(`${label} is larger than 1 MB`);
        text = read.bytes.toString("utf8").replace(/^\uFEFF/, "");
    } catch (error) {
        if (error instanceof PluginConfigError) throw error;
        throw new PluginConfigError(`${label}: cannot read (${(error as Error).message})`);
    }
    try {
        return JSON.parse(text) as unknown;
    } catch (error) {
        throw new PluginConfigError(`${label}: not valid JSON (${(error as Error).message})`);
    }
}

type Spec = Array<string | Record<string, unknown>>;

/** Each spec item as an object with the label it came from; paths are read. */
function specObjects(
    ctx: ConfigContext,
    spec: Spec,
    field: string,
    where: string
): Array<{ source: string; value: unknown }> {
    const out: Array<{ source: string; value: unknown }> = [];
    for (const item of spec) {
        if (typeof item === "string") {
            const path = manifestPath(ctx.root, item, `${where} "${field}"`);
            const value = readPluginJson(ctx, path, true);
            if (value !== undefined) out.push({ source: shown(ctx.root, path), value });
        } else out.push({ source: where, value: item });
    }
    return out;
}

function hooksMap(value: unknown, source: string): Record<string, unknown> {
    const map = isObject(value) && isObject(value.hooks) ? value.hooks : value;
    if (!isObject(map)) throw new PluginConfigError(`${source}: hooks must be an object of events`);
    for (const [event, groups] of Object.entries(map)) {
        if (!Array.isArray(groups))
            throw new PluginConfigError(`${source}: hooks.${event} must be a list`);
    }
    return map;
}

/** `hooks/hooks.json` plus the manifest's hook files and inline hooks, each once. */
export function readHooks(
    ctx: ConfigContext,
    spec: Spec | undefined,
    where: string
): PluginHooksConfig[] {
    const out: PluginHooksConfig[] = [];
    const defaultFile = `${ctx.root}/hooks/hooks.json`;
    const fromDefault = readPluginJson(ctx, defaultFile, false);
    if (fromDefault !== undefined)
        out.push({ source: "hooks/hooks.json", hooks: hooksMap(fromDefault, "hooks/hooks.json") });
    const extra: Spec = [];
    for (const item of spec ?? []) {
        if (
            typeof item === "string" &&
            manifestPath(ctx.root, item, `${where} "hooks"`) === defaultFile
        ) {
            ctx.warnings.push(
                `${where}: "hooks" names ./hooks/hooks.json, which is always loaded; loaded once`
            );
            continue;
        }
        extra.push(item);
    }
    for (const { source, value } of specObjects(ctx, extra, "hooks", where)) {
        out.push({ source, hooks: hooksMap(value, source) });
    }
    return out.map((config) => ({
        source: config.source,
        hooks: expandEverywhere(config.hooks, ctx.vars) as Record<string, unknown>,
    }));
}

function serverMap(
    value: unknown,
    source: string,
    wrapper: string | undefined
): Record<string, unknown> {
    const map = wrapper && isObject(value) && isObject(value[wrapper]) ? value[wrapper] : value;
    if (!isObject(map)) throw new PluginConfigError(`${source}: must be an object of servers`);
    return map;
}

/** `.mcp.json` (`{"mcpServers": {…}}` or the bare map) plus the manifest's; the first of a name wins. */
export function readMcpServers(
    ctx: ConfigContext,
    spec: Spec | undefined,
    where: string
): Record<string, unknown> {
    const sources: Array<{ source: string; value: unknown }> = [];
    const fromDefault = readPluginJson(ctx, `${ctx.root}/.mcp.json`, false);
    if (fromDefault !== undefined) sources.push({ source: ".mcp.json", value: fromDefault });
    const rest = (spec ?? []).filter(
        (item) => !(typeof item === "string" && item.toLowerCase().endsWith(".mcpb"))
    );
    sources.push(...specObjects(ctx, rest, "mcpServers", where));
    const out: Record<string, unknown> = {};
    for (const { source, value } of sources) {
        for (const [name, server] of Object.entries(serverMap(value, source, "mcpServers"))) {
            if (!isObject(server)) {
                ctx.warnings.push(`${source}: MCP server ${name} is not an object; skipped`);
                continue;
            }
            if (name in out) {
                ctx.warnings.push(`${source}: MCP server ${name} is already defined; skipped`);
                continue;
            }
            if (server.oauth !== undefined) {
                ctx.unsupported.push(
                    `MCP server ${name}: "oauth" (North does not sign in to MCP servers; it connects without it)`
                );
            }
            out[name] = expandFields(server, MCP_EXPANDED_FIELDS, ctx.vars);
        }
    }
    return out;
}

const LSP_FIELDS = new Set([
    "command",
    "args",
    "extensionToLanguage",
    "transport",
    "env",
    "initializationOptions",
    "settings",
    "workspaceFolder",
    "startupTimeout",
    "shutdownTimeout",
    "restartOnCrash",
    "maxRestarts",
    "diagnostics",
]);

function lspProblem(server: Record<string, unknown>): string | undefined {
    if (typeof server.command !== "string" || server.command === "") return `needs a "command"`;
    const map = server.extensionToLanguage;
    if (
        !isObject(map) ||
        Object.keys(map).length === 0 ||
        !Object.values(map).every((v) => typeof v === "string")
    ) {
        return `needs "extensionToLanguage" (".ext": "language")`;
    }
    if (
        server.args !== undefined &&
        !(Array.isArray(server.args) && server.args.every((a) => typeof a === "string"))
    ) {
        return `"args" must be a list of strings`;
    }
    const unknown = Object.keys(server).filter((key) => !LSP_FIELDS.has(key));
    if (unknown.length > 0)
        return `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => `"${k}"`).join(", ")}`;
    return undefined;
}

/** `.lsp.json` (a bare map) plus the manifest's; an invalid server is skipped with a warning. */
export function readLspServers(
    ctx: ConfigContext,
    spec: Spec | undefined,
    where: string
): Record<string, unknown> {
    const sources: Array<{ source: string; value: unknown }> = [];
    const fromDefault = readPluginJson(ctx, `${ctx.root}/.lsp.json`, false);
    if (fromDefault !== undefined) sources.push({ source: ".lsp.json", value: fromDefault });
    sources.push(...specObjects(ctx, spec ?? [], "lspServers", where));
    const out: Record<string, unknown> = {};
    for (const { source, value } of sources) {
        for (const [name, server] of Object.entries(serverMap(value, source, undefined))) {
            const problem = isObject(server) ? lspProblem(server) : "is not an object";
            if (problem || !isObject(server)) {
                ctx.warnings.push(`${source}: LSP server ${name} ${problem}; skipped`);
                continue;
            }
            if (name in out) {
                ctx.warnings.push(`${source}: LSP server ${name} is already defined; skipped`);
                continue;
            }
            out[name] = expandFields(server, LSP_EXPANDED_FIELDS, ctx.vars);
        }
    }
    return out;
}
