/**
 * Connects to configured MCP servers in the background and exposes their
 * tools as North tools named `mcp__<server>__<tool>`. Nothing here blocks the
 * caller: servers start on creation, `status()` says where each one is, and a
 * server that fails, crashes or stalls turns into a status and clear tool
 * errors, never a hang or an exception (each server: `server-connection.ts`).
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { PROVIDER_SECRET_ENV } from "../../util/child-env";
import type { DeadlineTimers } from "../../util/pausable-deadline";
import type { ToolDefinition } from "../types";
import { toolInput } from "../tool-input";
import type { McpServerSpec } from "./config";
import { MAX_MCP_RESULT_BYTES } from "../limits";
import { describeMcpCall, mcpToolName } from "./names";
import { NAME_ONLY_DISPLAY } from "../display-text";
import type {
    McpElicitation,
    McpElicitationAnswer,
    McpSamplingAnswer,
    McpSamplingRequest,
} from "./client-requests";
import {
    type ConnectionSettings,
    type McpCallDetails,
    McpServerConnection,
    type McpServerStatus,
} from "./server-connection";

export type { McpElicitation } from "./client-requests";
export type { McpCallDetails, McpServerState, McpServerStatus } from "./server-connection";

export type McpToolDefinition = ToolDefinition<Record<string, unknown>, McpCallDetails>;

export interface McpManagerOptions {
    clientName: string;
    version: string;
    /**
     * Per tool call; a progress notification from the server starts it over,
     * and it stops counting while the user answers the server's question.
     * Default 120 s.
     */
    timeoutMs?: number;
    /** The timers of that limit (tests pass a manual clock). */
    timers?: DeadlineTimers;
    /** Connect, handshake and tool listing. Default 30 s. */
    startupTimeoutMs?: number;
    /** Working directory of stdio servers (the repository root). */
    cwd?: string;
    /**
     * Whether the project's configuration, and the scripts its servers run,
     * are still as the user trusted them: a project server is restarted only then.
     */
    projectStillTrusted?: () => boolean;
    /** Whether a plugin may still run its server (installed, enabled, files as approved): checked before a restart. */
    pluginStillApproved?: (plugin: string) => boolean;
    /** Base environment of stdio servers; the entry's `env` is added. Default `process.env`. */
    env?: Record<string, string | undefined>;
    /**
     * Variables removed from the base environment (provider keys); default the
     * built-in ones. A server's own `env` entry may still pass one explicitly.
     */
    hiddenEnv?: readonly string[];
    /** The fetch of HTTP servers (North's, which honours HTTPS_PROXY and NO_PROXY); default the global one. */
    fetch?: FetchLike;
    /** Cap on one result's text. Default 100 KB. */
    maxResultBytes?: number;
    /** Directories answered to a server's roots/list; default `[cwd]` (none without a cwd). */
    roots?: readonly string[];
    /**
     * Answers a server's request for input from the user (elicitation). Without
     * it (print mode) every request is declined.
     */
    onElicitation?: (request: McpElicitation, signal: AbortSignal) => Promise<McpElicitationAnswer>;
    /**
     * Runs a server's sampling request through the session's model once the
     * user approved it; throws (with the reason) when denied or failed.
     * Without it (print mode, the Node API) every request is refused.
     */
    onSampling?: (request: McpSamplingRequest, signal: AbortSignal) => Promise<McpSamplingAnswer>;
}

export interface McpManager {
    status(): McpServerStatus[];
    /** Tools of every server that has listed them (also after it failed: calls then explain). */
    tools(): McpToolDefinition[];
    /** Resolves once every server is ready or failed. Never rejects. */
    settled(): Promise<void>;
    /** Called after any state or tool-list change; returns an unsubscribe. */
    subscribe(listener: () => void): () => void;
    /** Stops the server (if running) and starts it again in the background. */
    restart(name: string): Promise<void>;
    /** Starts more servers (a plugin enabled mid-session); a name already present is kept as is. */
    add(servers: McpServerSpec[]): void;
    /** Stops these servers (their processes end) and drops them and their tools. */
    remove(names: readonly string[]): Promise<void>;
    /** Stops every server (stdio children and their process groups are killed). */
    close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
const MAX_DESCRIPTION_CHARS = 2048;

const anyInput = toolInput((z) => z.record(z.string(), z.unknown()));

/** The server's JSON schema, minus `$schema`, always an object with properties. */
function inputJsonSchema(tool: McpTool): Record<string, unknown> {
    const { $schema: _ignored, ...rest } = tool.inputSchema as Record<string, unknown>;
    return { ...rest, type: "object", properties: rest.properties ?? {} };
}

function toolDescription(server: string, tool: McpTool): string {
    const text = (tool.description ?? tool.title ?? "").trim();
    if (!text) return `Tool "${tool.name}" of the MCP server "${server}".`;
    return text.length <= MAX_DESCRIPTION_CHARS
        ? text
        : `${text.slice(0, MAX_DESCRIPTION_CHARS - 1)}…`;
}

function toolOf(server: McpServerConnection, tool: McpTool, name: string): McpToolDefinition {
    return {
        name,
        description: toolDescription(server.name, tool),
        input: anyInput,
        inputJsonSchema: inputJsonSchema(tool),
        approvalPolicy: "shell",
        readOnly: false,
        display: NAME_ONLY_DISPLAY,
        // The shell review asks; "always" allowlists the tool by its name.
        approval: (input) => ({ summary: describeMcpCall(name, input), rememberKey: name }),
        execute: (input, ctx) => server.callTool(tool.name, input, ctx.signal),
    };
}

/** The configured servers, each a connection, and who listens to their changes. */
class McpServers implements McpManager {
    private servers: McpServerConnection[];
    private readonly listeners = new Set<() => void>();
    private closed = false;
    private readonly shared: ConnectionSettings;

    constructor(
        specs: McpServerSpec[],
        private readonly stillTrusted: Pick<
            McpManagerOptions,
            "projectStillTrusted" | "pluginStillApproved"
        >,
        settings: Omit<ConnectionSettings, "notify" | "closed">
    ) {
        this.shared = {
            ...settings,
            notify: () => this.notify(),
            closed: () => this.closed,
        };
        this.servers = specs.map((spec) => new McpServerConnection(spec, this.shared));
        for (const server of this.servers) server.start();
    }

    add(specs: McpServerSpec[]): void {
        if (this.closed) return;
        const names = new Set(this.servers.map((server) => server.name));
        for (const spec of specs) {
            if (names.has(spec.name)) continue;
            const server = new McpServerConnection(spec, this.shared);
            this.servers.push(server);
            server.start();
        }
        this.notify();
    }

    async remove(names: readonly string[]): Promise<void> {
        const leaving = this.servers.filter((server) => names.includes(server.name));
        if (leaving.length === 0) return;
        this.servers = this.servers.filter((server) => !leaving.includes(server));
        await Promise.all(leaving.map((server) => server.stop()));
        this.notify();
    }

    status(): McpServerStatus[] {
        const names = this.assignNames();
        return this.servers.map((server) => server.status((tool) => names.get(tool) ?? ""));
    }

    tools(): McpToolDefinition[] {
        const names = this.assignNames();
        return this.servers.flatMap((server) =>
            server.state === "stopped"
                ? []
                : server.tools.map((tool) => toolOf(server, tool, names.get(tool) ?? tool.name))
        );
    }

    async settled(): Promise<void> {
        await Promise.all(this.servers.map((server) => server.started));
    }

    subscribe(listener: () => void): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }

    async restart(name: string): Promise<void> {
        const server = this.servers.find((s) => s.name === name);
        if (!server || this.closed) return;
        const plugin = server.spec.plugin;
        if (plugin !== undefined && this.stillTrusted.pluginStillApproved?.(plugin) === false) {
            await server.stopFailed(
                `not restarted: plugin ${plugin} is disabled, removed or changed since you approved it`
            );
            return;
        }
        if (server.spec.scope === "project" && this.stillTrusted.projectStillTrusted?.() === false) {
            await server.stopFailed(
                "not restarted: the project's configuration or a script it runs changed since you trusted it (North asks again at the next start)"
            );
            return;
        }
        await server.restart();
    }

    async close(): Promise<void> {
        if (this.closed) return;
        this.closed = true;
        await Promise.all(this.servers.map((server) => server.stop()));
        this.notify();
        this.listeners.clear();
    }

    private notify(): void {
        for (const listener of [...this.listeners]) {
            try {
                listener();
            } catch {
                // A listener's failure must not stop the others.
            }
        }
    }

    /** Exposed names, assigned in server then tool order so clashes resolve stably. */
    private assignNames(): Map<McpTool, string> {
        const names = new Map<McpTool, string>();
        const taken = new Set<string>();
        for (const server of this.servers) {
            for (const tool of server.tools) {
                const name = mcpToolName(server.name, tool.name, taken);
                taken.add(name);
                names.set(tool, name);
            }
        }
        return names;
    }
}

export function createMcpManager(servers: McpServerSpec[], options: McpManagerOptions): McpManager {
    return new McpServers(servers, options, {
        clientName: options.clientName,
        version: options.version,
        timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        timers: options.timers,
        startupTimeoutMs: options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
        cwd: options.cwd,
        env: options.env ?? process.env,
        hiddenEnv: options.hiddenEnv ?? PROVIDER_SECRET_ENV,
        fetch: options.fetch,
        maxResultBytes: options.maxResultBytes ?? MAX_MCP_RESULT_BYTES,
        roots: options.roots ?? (options.cwd ? [options.cwd] : []),
        onElicitation: options.onElicitation,
        onSampling: options.onSampling,
    });
}
