/**
 * `north mcp add|add-json|list|get|remove`, with Claude Code's argument
 * shapes: servers are kept in the user config (`mcpServers` in config.json)
 * or the project's `.mcp.json`, which counts only once the project is trusted.
 */
import { parseArgs } from "node:util";
import { detectRepoRoot } from "../project/repo-root";
import { buildCatalogue } from "../providers/models";
import { loadUserConfig } from "../storage/config";
import { dataDir } from "../storage/paths";
import { createTrustStore, readProjectConfig } from "../storage/trust";
import { type McpServerScope, type McpServerSpec, parseMcpServers } from "../tools/mcp/config";
import type { McpServerStatus } from "../tools/mcp/manager";
import { secretEnvNames } from "../util/child-env";
import { printError, writeStdout } from "../util/terminal-text";
import { readMcpScope, updateMcpScope } from "./mcp-config-file";

type Env = Record<string, string | undefined>;

/** Per server, for `list` and `get`; a stalled server must not hold the command long. */
const HEALTH_TIMEOUT_MS = 10_000;
const SCOPES: readonly McpServerScope[] = ["project", "user"];
const TRANSPORTS = ["stdio", "http", "sse"] as const;
const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const MCP_HELP_TEXT = `Usage:
  north mcp add [options] NAME -- COMMAND [ARGS...]   add a stdio server
  north mcp add --transport http|sse [options] NAME URL   add a remote server
  north mcp add-json [--scope SCOPE] NAME JSON        add a server from its JSON entry
  north mcp list                                      every server, where it is set, and whether it connects
  north mcp get NAME                                  one server's settings and status
  north mcp remove [--scope SCOPE] NAME               remove a server

Options:
  -s, --scope SCOPE          user (default: config.json, for every project) or project
                             (.mcp.json, shared; used once the project is trusted)
  -t, --transport TYPE       stdio (default), http or sse
  -e, --env KEY=VALUE        environment of a stdio server; repeatable
  -H, --header "Name: value" header sent to an http or sse server; repeatable

\${VAR} and \${VAR:-default} in the entry expand from the environment when North starts.
`;

class UsageError extends Error {}

interface Context {
    repoRoot: string;
    env: Env;
    version: string;
}

/** Entry point of `north mcp ...`; `argv` is what follows `mcp`. */
export async function runMcpCommand(
    argv: string[],
    version: string,
    env: Env = process.env
): Promise<number> {
    const [action, ...rest] = argv;
    if (action === undefined) {
        return usage(
            "north mcp needs a command: add, add-json, list, get or remove (see north mcp --help)"
        );
    }
    if (action === "--help" || action === "-h" || action === "help") {
        writeStdout(MCP_HELP_TEXT);
        return 0;
    }
    const repo = detectRepoRoot(process.cwd());
    if (!repo.ok) return usage(repo.error);
    const ctx: Context = { repoRoot: repo.root, env, version };
    try {
        switch (action) {
            case "add":
                return addCommand(rest, ctx);
            case "add-json":
                return addJsonCommand(rest, ctx);
            case "list":
                return await listCommand(rest, ctx);
            case "get":
                return await getCommand(rest, ctx);
            case "remove":
            case "rm":
                return removeCommand(rest, ctx);
            default:
                return usage(
                    `unknown mcp command ${action} (expected add, add-json, list, get or remove)`
                );
        }
    } catch (error) {
        if (error instanceof UsageError) return usage(error.message);
        throw error;
    }
}

function usage(message: string): number {
    printError(message);
    return 2;
}

const out = writeStdout;

const MCP_OPTIONS = {
    scope: { type: "string", short: "s" },
    transport: { type: "string", short: "t" },
    env: { type: "string", short: "e", multiple: true },
    header: { type: "string", short: "H", multiple: true },
} as const;

type McpOptionName = keyof typeof MCP_OPTIONS;

function parse(
    argv: string[],
    command: string,
    allowed: readonly McpOptionName[]
): { values: Partial<Record<McpOptionName, string | string[]>>; positionals: string[] } {
    const options = Object.fromEntries(allowed.map((name) => [name, MCP_OPTIONS[name]]));
    try {
        const { values, positionals } = parseArgs({
            args: argv,
            options,
            allowPositionals: true,
            strict: true,
        });
        return { values: values as Partial<Record<McpOptionName, string | string[]>>, positionals };
    } catch (error) {
        const unknown = /Unknown option '([^']+)'/.exec((error as Error).message);
        if (unknown && command === "add") {
            throw new UsageError(
                `unknown option ${unknown[1]} for north mcp add; a server's own options go after --: ` +
                    "north mcp add NAME -- COMMAND [ARGS...]"
            );
        }
        if (unknown) throw new UsageError(`unknown option ${unknown[1]} for north mcp ${command}`);
        throw new UsageError(`north mcp ${command}: ${(error as Error).message}`);
    }
}

function scopeOption(value: unknown): McpServerScope | undefined {
    if (value === undefined) return undefined;
    if (value === "user" || value === "project") return value;
    if (value === "local") {
        throw new UsageError(
            "--scope local is not supported: North keeps MCP servers in user scope (config.json) " +
                "or project scope (.mcp.json)"
        );
    }
    throw new UsageError(`unknown scope ${JSON.stringify(value)} (expected user or project)`);
}

function checkName(name: string | undefined, command: string): string {
    if (name === undefined || name === "") {
        throw new UsageError(`north mcp ${command} needs a server NAME (see north mcp --help)`);
    }
    if (!NAME_PATTERN.test(name)) {
        throw new UsageError(
            `invalid server name ${JSON.stringify(name)}: use letters, digits, - and _`
        );
    }
    return name;
}

function envPairs(list: string[]): Record<string, string> {
    const env: Record<string, string> = {};
    for (const item of list) {
        const at = item.indexOf("=");
        const key = at > 0 ? item.slice(0, at) : "";
        if (!ENV_NAME_PATTERN.test(key)) {
            throw new UsageError(`-e needs KEY=VALUE with a variable name as KEY (got "${item}")`);
        }
        env[key] = item.slice(at + 1);
    }
    return env;
}

function headerPairs(list: string[]): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const item of list) {
        const at = item.indexOf(":");
        const name = at > 0 ? item.slice(0, at).trim() : "";
        if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
            throw new UsageError(`-H needs "Name: value" (got "${item}")`);
        }
        headers[name] = item.slice(at + 1).trim();
    }
    return headers;
}

/** A reason the entry cannot be used, as starting North would report it, or null. */
function entryProblem(
    name: string,
    entry: unknown,
    scope: McpServerScope,
    env: Env
): string | null {
    const parsed = parseMcpServers({ [name]: entry }, { scope, source: "entry", env });
    if (parsed.servers.length > 0) return null;
    const reason = parsed.warnings.join("; ").replace(/^entry: MCP server "[^"]*" skipped: /, "");
    return reason || "the entry is disabled";
}

function writeEntry(name: string, entry: unknown, scope: McpServerScope, ctx: Context): number {
    const problem = entryProblem(name, entry, scope, ctx.env);
    if (problem) return usage(`MCP server "${name}" not added: ${problem}`);
    const result = updateMcpScope(scope, ctx.repoRoot, ctx.env, (servers) => {
        if (Object.hasOwn(servers, name)) {
            return `an MCP server named "${name}" is already in ${scope} scope; remove it first: north mcp remove ${name} --scope ${scope}`;
        }
        servers[name] = entry;
        return null;
    });
    if (!result.ok) return usage(result.error);
    out(`Added MCP server "${name}" in ${scope} scope (${result.path}).\n`);
    if (scope === "project") {
        out(
            "North starts a project's servers only once you trust the project (the chat asks; print mode: --trust).\n"
        );
    }
    return 0;
}

function addCommand(argv: string[], ctx: Context): number {
    const { values, positionals } = parse(argv, "add", ["scope", "transport", "env", "header"]);
    const scope = scopeOption(values.scope) ?? "user";
    const name = checkName(positionals[0], "add");
    const [target, ...args] = positionals.slice(1);
    if (target === undefined || target === "") {
        throw new UsageError(
            `north mcp add ${name} needs a command (north mcp add ${name} -- COMMAND [ARGS...]) or, with --transport http, a URL`
        );
    }
    const given = values.transport as string | undefined;
    if (given !== undefined && !(TRANSPORTS as readonly string[]).includes(given)) {
        throw new UsageError(
            `unknown transport ${JSON.stringify(given)} (expected stdio, http or sse)`
        );
    }
    // A lone URL is a remote server even without --transport.
    const transport =
        given ?? (args.length === 0 && /^https?:\/\//i.test(target) ? "http" : "stdio");
    const env = envPairs((values.env as string[] | undefined) ?? []);
    const headers = headerPairs((values.header as string[] | undefined) ?? []);
    if (transport === "stdio") {
        if (Object.keys(headers).length > 0)
            throw new UsageError("-H/--header is for http and sse servers, not stdio ones");
        const entry = {
            type: "stdio",
            command: target,
            args,
            ...(Object.keys(env).length > 0 ? { env } : {}),
        };
        return writeEntry(name, entry, scope, ctx);
    }
    if (args.length > 0) {
        throw new UsageError(
            `an ${transport} server takes one URL (got extra arguments: ${args.join(" ")})`
        );
    }
    if (Object.keys(env).length > 0)
        throw new UsageError(
            "-e/--env is for stdio servers; send values to a remote server with -H"
        );
    const entry = {
        type: transport,
        url: target,
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
    };
    return writeEntry(name, entry, scope, ctx);
}

function addJsonCommand(argv: string[], ctx: Context): number {
    const { values, positionals } = parse(argv, "add-json", ["scope"]);
    const scope = scopeOption(values.scope) ?? "user";
    const name = checkName(positionals[0], "add-json");
    const text = positionals[1];
    if (text === undefined || positionals.length > 2) {
        throw new UsageError(`north mcp add-json takes NAME and one JSON argument (quote it)`);
    }
    let entry: unknown;
    try {
        entry = JSON.parse(text);
    } catch (error) {
        throw new UsageError(`the JSON for "${name}" is not valid: ${(error as Error).message}`);
    }
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
        throw new UsageError(
            `the JSON for "${name}" must be an object such as {"command":"npx","args":["-y","pkg"]}`
        );
    }
    return writeEntry(name, entry, scope, ctx);
}

function removeCommand(argv: string[], ctx: Context): number {
    const { values, positionals } = parse(argv, "remove", ["scope"]);
    const wanted = scopeOption(values.scope);
    const name = checkName(positionals[0], "remove");
    if (positionals.length > 1) throw new UsageError("north mcp remove takes one NAME");
    const found = listedEntries(ctx).filter(
        (e) => e.name === name && (wanted === undefined || e.scope === wanted)
    );
    if (found.length === 0) {
        const where = wanted ? ` in ${wanted} scope` : "";
        return usage(`no MCP server named "${name}"${where} (see north mcp list)`);
    }
    if (found.length > 1) {
        return usage(
            `"${name}" is set in both project and user scope; say which: north mcp remove ${name} --scope user`
        );
    }
    const scope = found[0]!.scope;
    const result = updateMcpScope(scope, ctx.repoRoot, ctx.env, (servers) => {
        if (!Object.hasOwn(servers, name)) return `no MCP server named "${name}" in ${scope} scope`;
        delete servers[name];
        return null;
    });
    if (!result.ok) return usage(result.error);
    out(`Removed MCP server "${name}" from ${scope} scope (${result.path}).\n`);
    return 0;
}

/** One entry as a file holds it, parsed as North would start it. */
interface ListedEntry {
    name: string;
    scope: McpServerScope;
    path: string;
    raw: unknown;
    spec?: McpServerSpec;
    /** Why it is not started: invalid, disabled, shadowed, or the project is not trusted. */
    skipped?: string;
}

function listedEntries(ctx: Context): ListedEntry[] {
    const entries: ListedEntry[] = [];
    for (const scope of SCOPES) {
        const read = readMcpScope(scope, ctx.repoRoot, ctx.env);
        if (!read.ok) throw new UsageError(read.error);
        for (const [name, raw] of Object.entries(read.servers)) {
            const parsed = parseMcpServers(
                { [name]: raw },
                { scope, source: read.path, env: ctx.env }
            );
            const spec = parsed.servers[0];
            entries.push(
                spec
                    ? { name, scope, path: read.path, raw, spec }
                    : {
                          name,
                          scope,
                          path: read.path,
                          raw,
                          skipped: entryProblem(name, raw, scope, ctx.env) ?? "",
                      }
            );
        }
    }
    return entries;
}

function isProjectTrusted(ctx: Context): boolean {
    const snapshot = readProjectConfig(ctx.repoRoot);
    if (snapshot.fingerprint === null) return false;
    return createTrustStore(dataDir(ctx.env)).isTrusted(ctx.repoRoot, snapshot.fingerprint);
}

/** Marks what will not start, then starts the rest together and stops them again. */
async function checkHealth(
    entries: ListedEntry[],
    ctx: Context
): Promise<Map<ListedEntry, McpServerStatus>> {
    const trusted = isProjectTrusted(ctx);
    for (const entry of entries) {
        if (!entry.spec || entry.skipped) continue;
        if (entry.scope === "project" && !trusted) {
            entry.skipped =
                "not started: the project is not trusted (open the chat here to trust it)";
        } else if (
            entry.scope === "user" &&
            entries.some((e) => e.scope === "project" && e.name === entry.name)
        ) {
            entry.skipped = "not started: the project's server of the same name replaces it";
        }
    }
    const toStart = entries.filter((e) => e.spec && !e.skipped);
    const statuses = new Map<ListedEntry, McpServerStatus>();
    if (toStart.length === 0) return statuses;
    const loaded = loadUserConfig(ctx.env);
    const config = loaded.ok ? loaded.config : {};
    const catalogue = buildCatalogue(config.providers, config.models, { env: process.env });
    // The SDK is large: load it only when some server is configured.
    const [{ createMcpManager }, { nodeFetch }] = await Promise.all([
        import("../tools/mcp/manager"),
        import("../providers/node-fetch"),
    ]);
    const manager = createMcpManager(
        toStart.map((e) => e.spec!),
        {
            clientName: "north",
            version: ctx.version,
            cwd: ctx.repoRoot,
            env: ctx.env,
            startupTimeoutMs: HEALTH_TIMEOUT_MS,
            hiddenEnv: secretEnvNames([...catalogue.providers.values()].map((p) => p.apiKeyEnv)),
            fetch: nodeFetch,
        }
    );
    try {
        await manager.settled();
        const byName = new Map(manager.status().map((s) => [s.name, s]));
        for (const entry of toStart) {
            const status = byName.get(entry.name);
            if (status) statuses.set(entry, status);
        }
    } finally {
        await manager.close();
    }
    return statuses;
}

function target(entry: ListedEntry): string {
    const spec = entry.spec;
    if (spec) return spec.transport === "stdio" ? [spec.command, ...spec.args].join(" ") : spec.url;
    return JSON.stringify(entry.raw);
}

function health(entry: ListedEntry, status: McpServerStatus | undefined): string {
    if (entry.skipped !== undefined)
        return entry.spec ? entry.skipped : `✗ invalid: ${entry.skipped}`;
    if (status?.state === "ready") return `✓ connected, ${status.tools.length} tool(s)`;
    return `✗ failed: ${status?.error ?? status?.state ?? "not started"}`;
}

async function listCommand(argv: string[], ctx: Context): Promise<number> {
    const { positionals } = parse(argv, "list", []);
    if (positionals.length > 0) throw new UsageError("north mcp list takes no arguments");
    const entries = listedEntries(ctx);
    if (entries.length === 0) {
        out("No MCP servers configured. Add one: north mcp add NAME -- COMMAND [ARGS...]\n");
        return 0;
    }
    const statuses = await checkHealth(entries, ctx);
    for (const entry of entries) {
        out(
            `${entry.name} (${entry.scope}, ${entry.path}): ${target(entry)} - ${health(entry, statuses.get(entry))}\n`
        );
    }
    return 0;
}

async function getCommand(argv: string[], ctx: Context): Promise<number> {
    const { positionals } = parse(argv, "get", []);
    const name = checkName(positionals[0], "get");
    if (positionals.length > 1) throw new UsageError("north mcp get takes one NAME");
    const all = listedEntries(ctx);
    const found = all.filter((e) => e.name === name);
    if (found.length === 0) return usage(`no MCP server named "${name}" (see north mcp list)`);
    const statuses = await checkHealth(all, ctx);
    for (const entry of found) {
        const lines = [`${name}:`, `  Scope: ${entry.scope} (${entry.path})`];
        const spec = entry.spec;
        if (spec?.transport === "stdio") {
            lines.push(`  Type: stdio`, `  Command: ${spec.command}`);
            if (spec.args.length > 0) lines.push(`  Args: ${spec.args.join(" ")}`);
            const keys = Object.keys(spec.env);
            if (keys.length > 0) lines.push(`  Environment: ${keys.join(", ")}`);
        } else if (spec) {
            lines.push(`  Type: ${spec.transport}`, `  URL: ${spec.url}`);
            const keys = Object.keys(spec.headers);
            if (keys.length > 0) lines.push(`  Headers: ${keys.join(", ")}`);
        } else {
            lines.push(`  Entry: ${JSON.stringify(entry.raw)}`);
        }
        const status = statuses.get(entry);
        lines.push(`  Status: ${health(entry, status)}`);
        if (status?.state === "ready" && status.tools.length > 0)
            lines.push(`  Tools: ${status.tools.join(", ")}`);
        lines.push(`  Remove it: north mcp remove ${name} --scope ${entry.scope}`);
        out(`${lines.join("\n")}\n`);
    }
    return 0;
}
