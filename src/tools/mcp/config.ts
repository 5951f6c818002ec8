/**
 * MCP server configuration in Claude Code's format, shared by the project's
 * `.mcp.json` and the user config's `mcpServers`:
 *
 *     {"mcpServers": {"name": {"command": "npx", "args": ["-y", "pkg"], "env": {"K": "${K}"}},
 *                     "remote": {"type": "http", "url": "https://…", "headers": {…}}}}
 *
 * `${VAR}` and `${VAR:-default}` expand from the environment in command, args,
 * env, url and headers. Parsing never throws: bad entries become warnings.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { readRegularTextSync } from "../../util/read-regular-file";

type Env = Record<string, string | undefined>;

/** Where a server was configured; project servers come from a file in the repository. */
export type McpServerScope = "project" | "user";

interface McpServerSpecBase {
    name: string;
    scope: McpServerScope;
    /** The file (or "user config") the entry came from, for messages. */
    source: string;
    /** Variables referenced without a value or default; they expanded to "". */
    missingVars: string[];
    /** The plugin (`name@marketplace`) that brought it; its name is then `plugin:<plugin>:<server>`. */
    plugin?: string;
}

export interface McpStdioServerSpec extends McpServerSpecBase {
    transport: "stdio";
    command: string;
    args: string[];
    /** Added to North's own environment when spawning the server. */
    env: Record<string, string>;
}

export interface McpHttpServerSpec extends McpServerSpecBase {
    /** "sse" is the older HTTP+SSE transport, still offered by some servers. */
    transport: "http" | "sse";
    url: string;
    headers: Record<string, string>;
}

export type McpServerSpec = McpStdioServerSpec | McpHttpServerSpec;

export interface McpConfigResult {
    servers: McpServerSpec[];
    warnings: string[];
}

export const MCP_PROJECT_CONFIG_FILE = ".mcp.json";

const VAR_PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}` and `${VAR:-default}` (the default also applies when VAR is
 * empty, as in the shell). Unset variables without a default expand to "" and
 * are reported in `missing`.
 */
export function expandEnvVars(
    text: string,
    env: Env = process.env
): { value: string; missing: string[] } {
    const missing: string[] = [];
    const value = text.replace(VAR_PATTERN, (_match, name: string, fallback?: string) => {
        const current = env[name];
        if (current !== undefined && current !== "") return current;
        if (fallback !== undefined) return fallback;
        if (current === undefined) missing.push(name);
        return "";
    });
    return { value, missing };
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringRecord(
    value: unknown,
    field: string,
    problems: string[]
): Record<string, string> | undefined {
    if (value === undefined) return {};
    if (!isRecord(value)) {
        problems.push(`"${field}" must be an object of strings`);
        return undefined;
    }
    const out: Record<string, string> = {};
    for (const [key, item] of Object.entries(value)) {
        if (typeof item === "string") out[key] = item;
        else if (typeof item === "number" || typeof item === "boolean") out[key] = String(item);
        else {
            problems.push(`"${field}.${key}" must be a string`);
            return undefined;
        }
    }
    return out;
}

/** Parses one entry; returns the spec or a reason it was skipped. */
function parseEntry(
    name: string,
    raw: unknown,
    scope: McpServerScope,
    source: string,
    env: Env
): McpServerSpec | string {
    if (!isRecord(raw)) return "its entry must be an object";
    if (raw.disabled === true) return "disabled";
    const missing = new Set<string>();
    const expand = (text: string): string => {
        const result = expandEnvVars(text, env);
        for (const name of result.missing) missing.add(name);
        return result.value;
    };
    const expandRecord = (record: Record<string, string>): Record<string, string> =>
        Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expand(v)]));
    const problems: string[] = [];
    const type = raw.type ?? (typeof raw.url === "string" ? "http" : "stdio");
    const base = { name, scope, source };

    if (type === "stdio") {
        if (typeof raw.command !== "string" || raw.command.trim() === "") {
            return 'a stdio server needs a "command" string';
        }
        if (raw.args !== undefined && !(Array.isArray(raw.args) && raw.args.every(isScalar))) {
            return '"args" must be an array of strings';
        }
        const envRecord = stringRecord(raw.env, "env", problems);
        if (!envRecord) return problems.join("; ");
        const args = ((raw.args ?? []) as Array<string | number | boolean>).map(String);
        return {
            ...base,
            transport: "stdio",
            command: expand(raw.command),
            args: args.map(expand),
            env: expandRecord(envRecord),
            missingVars: [...missing],
        };
    }
    const remote = type === "sse" ? "sse" : "http";
    if (
        type === "http" ||
        type === "streamable-http" ||
        type === "streamableHttp" ||
        type === "sse"
    ) {
        if (typeof raw.url !== "string" || raw.url.trim() === "") {
            return `an ${remote} server needs a "url" string`;
        }
        const headers = stringRecord(raw.headers, "headers", problems);
        if (!headers) return problems.join("; ");
        const url = expand(raw.url);
        try {
            new URL(url);
        } catch {
            return `"url" is not a valid URL: ${url}`;
        }
        return {
            ...base,
            transport: remote,
            url,
            headers: expandRecord(headers),
            missingVars: [...missing],
        };
    }
    return `unknown type ${JSON.stringify(type)} (expected "stdio", "http" or "sse")`;
}

function isScalar(value: unknown): boolean {
    return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

/**
 * Parses an `mcpServers` object (the value, not the file). Entries that cannot
 * be used are skipped with a warning naming the server and the source.
 */
export function parseMcpServers(
    mcpServers: unknown,
    options: { scope: McpServerScope; source: string; env?: Env }
): McpConfigResult {
    const { scope, source } = options;
    const env = options.env ?? process.env;
    if (mcpServers === undefined || mcpServers === null) return { servers: [], warnings: [] };
    if (!isRecord(mcpServers)) {
        return { servers: [], warnings: [`${source}: "mcpServers" must be an object`] };
    }
    const servers: McpServerSpec[] = [];
    const warnings: string[] = [];
    for (const [name, raw] of Object.entries(mcpServers)) {
        const parsed = parseEntry(name, raw, scope, source, env);
        if (typeof parsed === "string") {
            if (parsed !== "disabled") {
                warnings.push(`${source}: MCP server "${name}" skipped: ${parsed}`);
            }
            continue;
        }
        if (parsed.missingVars.length > 0) {
            warnings.push(
                `${source}: MCP server "${name}" references unset environment variable(s) ` +
                    `${parsed.missingVars.join(", ")}; they expand to ""`
            );
        }
        servers.push(parsed);
    }
    return { servers, warnings };
}

/**
 * Reads `<repoRoot>/.mcp.json`. A missing file is no servers; unreadable or
 * invalid JSON is a warning and no servers.
 */
export async function loadProjectMcpConfig(
    repoRoot: string,
    env: Env = process.env
): Promise<McpConfigResult> {
    const path = join(repoRoot, MCP_PROJECT_CONFIG_FILE);
    let text: string;
    try {
        text = readRegularTextSync(path, { insideRoot: repoRoot, label: MCP_PROJECT_CONFIG_FILE });
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT")
            return { servers: [], warnings: [] };
        return { servers: [], warnings: [`${path}: cannot read: ${(error as Error).message}`] };
    }
    return parseProjectMcpConfig(text, path, env);
}

/** Parses the text of a project's `.mcp.json` (read by the caller from `path`). */
export function parseProjectMcpConfig(
    text: string,
    path: string,
    env: Env = process.env
): McpConfigResult {
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch (error) {
        return {
            servers: [],
            warnings: [
                `${path}: invalid JSON (${(error as Error).message}); no MCP servers loaded from it`,
            ],
        };
    }
    if (!isRecord(json)) {
        return { servers: [], warnings: [`${path}: expected an object with "mcpServers"`] };
    }
    return parseMcpServers(json.mcpServers, { scope: "project", source: path, env });
}

/**
 * Merges server lists; on a name clash the earlier list wins (pass the project
 * first, as Claude Code lets project servers override user ones) and the other
 * entry is reported.
 */
export function mergeMcpServers(...lists: McpConfigResult[]): McpConfigResult {
    const servers: McpServerSpec[] = [];
    const warnings: string[] = [];
    const seen = new Map<string, McpServerSpec>();
    for (const list of lists) {
        warnings.push(...list.warnings);
        for (const spec of list.servers) {
            const winner = seen.get(spec.name);
            if (winner) {
                warnings.push(
                    `MCP server "${spec.name}" from ${spec.source} is shadowed by the one in ${winner.source}`
                );
                continue;
            }
            seen.set(spec.name, spec);
            servers.push(spec);
        }
    }
    return { servers, warnings };
}

/**
 * A stable digest of what a server runs or contacts (not its secrets' values
 * in clear), so a front-end can remember that the user trusted a project's
 * server and ask again when the command or URL changes.
 */
export function mcpServerFingerprint(spec: McpServerSpec): string {
    const what =
        spec.transport === "stdio"
            ? ["stdio", spec.command, ...spec.args, ...Object.keys(spec.env).sort()]
            : [spec.transport, spec.url, ...Object.keys(spec.headers).sort()];
    return createHash("sha256")
        .update(JSON.stringify([spec.name, ...what]))
        .digest("hex")
        .slice(0, 16);
}

/** What a plugin's MCP servers need from it (tools/ does not import the plugin types). */
export interface PluginMcpSource {
    id: string;
    name: string;
    /** Its `.mcp.json`/`mcpServers` entries, the plugin variables already expanded. */
    mcpServers: Record<string, unknown>;
    root: string;
    dataDir: string;
}

/**
 * A plugin's servers, as Claude Code names them: `plugin:<plugin>:<server>`
 * (tools `mcp__plugin_<plugin>_<server>__<tool>`). They count as the user's
 * (the user installed the plugin); a stdio server's environment also gets
 * `CLAUDE_PLUGIN_ROOT`, `CLAUDE_PLUGIN_DATA` and `CLAUDE_PROJECT_DIR`.
 */
export function parsePluginMcpServers(
    plugin: PluginMcpSource,
    projectDir: string,
    env: Env = process.env
): McpConfigResult {
    const named = Object.fromEntries(
        Object.entries(plugin.mcpServers).map(([name, entry]) => [
            `plugin:${plugin.name}:${name}`,
            entry,
        ])
    );
    const parsed = parseMcpServers(named, {
        scope: "user",
        source: `plugin ${plugin.id}`,
        env,
    });
    const variables = {
        CLAUDE_PLUGIN_ROOT: plugin.root,
        CLAUDE_PLUGIN_DATA: plugin.dataDir,
        CLAUDE_PROJECT_DIR: projectDir,
    };
    return {
        servers: parsed.servers.map((spec) =>
            spec.transport === "stdio"
                ? { ...spec, plugin: plugin.id, env: { ...variables, ...spec.env } }
                : { ...spec, plugin: plugin.id }
        ),
        warnings: parsed.warnings,
    };
}
