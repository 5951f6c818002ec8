/**
 * One configured MCP server: its client and transport, its state and tools,
 * and the calls made to it. A failure, crash or stall becomes a state and a
 * clear tool error, never a hang or an exception.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { childEnv } from "../../util/child-env";
import type { DeadlineTimers } from "../../util/pausable-deadline";
import { type ToolResult, toolError, toolOk } from "../types";
import type { McpServerScope, McpServerSpec } from "./config";
import { mcpResultToText } from "./content";
import {
    CallClock,
    type ServerRequestOptions,
    answerServerRequests,
    errorText,
} from "./server-requests";
import { ProcessStdioTransport } from "./stdio-transport";

export type McpServerState = "starting" | "ready" | "failed" | "stopped";

export interface McpServerStatus {
    name: string;
    transport: McpServerSpec["transport"];
    scope: McpServerScope;
    /** The plugin (`name@marketplace`) that brought the server. */
    plugin?: string;
    state: McpServerState;
    /** Why the server failed (state "failed"). */
    error?: string;
    /** The server's own tool names. */
    tools: string[];
    /** The same tools as North names them (`mcp__server__tool`), in the same order. */
    toolNames: string[];
    /** Usage notes the server sent at initialization, for the system prompt. */
    instructions?: string;
}

/** What a successful MCP tool call returns; `text` is what the model reads. */
export interface McpCallDetails {
    server: string;
    tool: string;
    text: string;
    truncated: boolean;
}

/** What every server of one manager shares. */
export interface ConnectionSettings extends Omit<ServerRequestOptions, "server" | "clock"> {
    clientName: string;
    version: string;
    /** Per tool call (see `McpManagerOptions.timeoutMs`). */
    timeoutMs: number;
    timers?: DeadlineTimers;
    /** Connect, handshake and tool listing. */
    startupTimeoutMs: number;
    cwd?: string;
    env: Record<string, string | undefined>;
    hiddenEnv: readonly string[];
    fetch?: FetchLike;
    maxResultBytes: number;
    /** Told of every state or tool-list change. */
    notify: () => void;
    /** True once the manager is closed: nothing reports news after that. */
    closed: () => boolean;
}

/** The SDK's own per-request limit, set past any real call: North keeps the time (setTimeout's maximum). */
const NO_SDK_TIMEOUT_MS = 2 ** 31 - 1;
const MAX_TOOL_PAGES = 20;
const CLOSE_TIMEOUT_MS = 5000;

function seconds(ms: number): string {
    return `${Math.round(ms / 100) / 10} s`;
}

/** Why `transport` went away, when it can tell (stdio exit code, stderr). */
function exitInfo(transport: Transport | undefined): string {
    return transport instanceof ProcessStdioTransport ? transport.describeExit() : "";
}

function withExit(message: string, transport: Transport | undefined): string {
    const info = exitInfo(transport);
    return info ? `${message}: ${info}` : message;
}

function makeTransport(spec: McpServerSpec, settings: ConnectionSettings): Transport {
    if (spec.transport === "stdio") {
        return new ProcessStdioTransport({
            command: spec.command,
            args: spec.args,
            env: childEnv(settings.env, settings.hiddenEnv, spec.env),
            cwd: settings.cwd,
        });
    }
    const remote = { requestInit: { headers: spec.headers }, fetch: settings.fetch };
    return spec.transport === "sse"
        ? new SSEClientTransport(new URL(spec.url), remote)
        : new StreamableHTTPClientTransport(new URL(spec.url), remote);
}

async function listAllTools(client: Client, timeoutMs: number): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
        const result = await client.listTools(cursor ? { cursor } : undefined, {
            timeout: timeoutMs,
        });
        tools.push(...result.tools);
        cursor = result.nextCursor;
        if (!cursor) break;
    }
    return tools;
}

/** Ends a session politely where the transport allows it, then closes; bounded in time. */
async function closeClient(client: Client, transport: Transport | undefined): Promise<void> {
    const work = (async () => {
        if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
            await transport.terminateSession().catch(() => undefined);
        }
        await client.close().catch(() => undefined);
    })();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
        work,
        new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
}

export class McpServerConnection {
    state: McpServerState = "starting";
    error: string | undefined;
    instructions: string | undefined;
    tools: McpTool[] = [];
    /** The current start (or restart); resolves once it is ready or failed. */
    started: Promise<void> = Promise.resolve();
    private client: Client | undefined;
    private transport: Transport | undefined;
    /** A tool-list refresh after list_changed, awaited before a call returns. */
    private refreshing: Promise<void> | undefined;
    private readonly clock: CallClock;

    constructor(
        readonly spec: McpServerSpec,
        private readonly settings: ConnectionSettings
    ) {
        this.clock = new CallClock(settings.timers);
    }

    get name(): string {
        return this.spec.name;
    }

    /** Starts (again) in the background. */
    start(): void {
        this.started = this.connect();
    }

    status(toolNames: (tool: McpTool) => string): McpServerStatus {
        return {
            name: this.spec.name,
            transport: this.spec.transport,
            scope: this.spec.scope,
            ...(this.spec.plugin !== undefined ? { plugin: this.spec.plugin } : {}),
            state: this.state,
            ...(this.error !== undefined ? { error: this.error } : {}),
            tools: this.tools.map((tool) => tool.name),
            toolNames: this.tools.map(toolNames),
            ...(this.instructions ? { instructions: this.instructions } : {}),
        };
    }

    /** Closes the client (if any) and marks the server failed with `message`. */
    async stopFailed(message: string): Promise<void> {
        const stopping = this.detach();
        await stopping;
        this.fail(message);
    }

    /** Closes the client (if any) and starts again. */
    async restart(): Promise<void> {
        const stopping = this.detach();
        this.state = "starting";
        this.error = undefined;
        this.settings.notify();
        await stopping;
        this.start();
    }

    /** Closes the client for good (the manager closes). */
    async stop(): Promise<void> {
        this.state = "stopped";
        await this.detach();
    }

    async callTool(
        tool: string,
        input: Record<string, unknown>,
        signal: AbortSignal
    ): Promise<ToolResult<McpCallDetails>> {
        await this.waitStarted(signal);
        if (signal.aborted) return toolError("cancelled", `${tool} was cancelled.`);
        const client = this.client;
        if (this.state !== "ready" || !client) return this.unavailable();
        const outcome = await this.attempt(client, tool, input, signal);
        if (!outcome.ok) return this.callFailure(client, tool, outcome, signal);
        // A list_changed sent during the call lands before the model's next request.
        await this.refreshing;
        const { text, truncated } = mcpResultToText(outcome.result, this.settings.maxResultBytes);
        if (outcome.result.isError === true) {
            return toolError(
                "io_error",
                `${tool} on the MCP server "${this.name}" reported an error: ${text || "(no message)"}`
            );
        }
        return toolOk({ server: this.name, tool, text, truncated });
    }

    private unavailable(): ToolResult<never> {
        const why = this.state === "stopped" ? "it was shut down" : (this.error ?? this.state);
        return toolError(
            "io_error",
            `The MCP server "${this.name}" is not available (${why}). Its tools cannot be used ` +
                "now; carry on without them or ask the user to restart it with /mcp."
        );
    }

    /** One call under North's time limit, which pauses while the user answers the server. */
    private async attempt(
        client: Client,
        tool: string,
        input: Record<string, unknown>,
        signal: AbortSignal
    ): Promise<
        | { ok: true; result: Record<string, unknown> }
        | { ok: false; error: unknown; timedOut: boolean }
    > {
        // The SDK never removes its abort listener, and the session's signal
        // lives for many calls: give each call a signal of its own.
        const callAbort = new AbortController();
        const forwardAbort = (): void => callAbort.abort(signal.reason);
        signal.addEventListener("abort", forwardAbort, { once: true });
        // North's own limit, not the SDK's: the SDK's cannot pause while the user answers.
        let timedOut = false;
        const deadline = this.clock.startCall(this.settings.timeoutMs, () => {
            timedOut = true;
            callAbort.abort(new Error("timed out"));
        });
        try {
            const result = await client.callTool({ name: tool, arguments: input }, undefined, {
                signal: callAbort.signal,
                timeout: NO_SDK_TIMEOUT_MS,
                // Asks the server for progress (the SDK sends a token only with a handler).
                onprogress: () => deadline.restart(),
            });
            return { ok: true, result };
        } catch (error) {
            return { ok: false, error, timedOut };
        } finally {
            this.clock.endCall(deadline);
            signal.removeEventListener("abort", forwardAbort);
        }
    }

    private callFailure(
        client: Client,
        tool: string,
        outcome: { error: unknown; timedOut: boolean },
        signal: AbortSignal
    ): ToolResult<never> {
        if (signal.aborted) return toolError("cancelled", `${tool} was cancelled.`);
        const server = this.name;
        if (outcome.timedOut) {
            return toolError(
                "io_error",
                `${tool} on the MCP server "${server}" did not answer within ${seconds(this.settings.timeoutMs)}; ` +
                    "the call was cancelled. Try a smaller request or carry on without it."
            );
        }
        if (this.client === client && this.state === "failed") {
            return toolError(
                "io_error",
                `The MCP server "${server}" stopped during the call to ${tool} (${this.error}). ` +
                    "Its tools are unavailable until it is restarted."
            );
        }
        return toolError(
            "io_error",
            `${tool} on the MCP server "${server}" failed: ${errorText(outcome.error)}`
        );
    }

    private async waitStarted(signal: AbortSignal): Promise<void> {
        if (this.state !== "starting") return;
        const started = this.started;
        await new Promise<void>((resolve) => {
            const onAbort = (): void => resolve();
            signal.addEventListener("abort", onAbort, { once: true });
            void started.then(() => {
                signal.removeEventListener("abort", onAbort);
                resolve();
            });
        });
    }

    /** Forgets the client; resolves once it is closed. */
    private detach(): Promise<void> {
        const { client, transport } = this;
        this.client = undefined;
        return client ? closeClient(client, transport) : Promise.resolve();
    }

    private fail(message: string): void {
        this.state = "failed";
        this.error = message;
        this.settings.notify();
    }

    private newClient(): Client {
        const client = new Client(
            { name: this.settings.clientName, version: this.settings.version },
            {
                capabilities: {
                    roots: { listChanged: false },
                    elicitation: { form: {} },
                    sampling: {},
                },
                listChanged: {
                    tools: {
                        autoRefresh: false,
                        // Refresh at once: the next model request must see the new list.
                        debounceMs: 0,
                        onChanged: () => {
                            this.refreshing = this.refreshTools(client);
                        },
                    },
                },
            }
        );
        answerServerRequests(client, { ...this.settings, server: this.name, clock: this.clock });
        return client;
    }

    private async connect(): Promise<void> {
        const transport = makeTransport(this.spec, this.settings);
        const client = this.newClient();
        this.client = client;
        this.transport = transport;
        this.state = "starting";
        this.error = undefined;
        const current = (): boolean => this.client === client && !this.settings.closed();
        client.onerror = () => undefined;
        client.onclose = () => {
            // Only news while it was up or coming up; a failure already has its reason.
            if (!current() || (this.state !== "ready" && this.state !== "starting")) return;
            const what = this.state === "ready" ? "the server stopped" : "exited during startup";
            this.fail(withExit(what, transport));
        };
        try {
            await client.connect(transport, { timeout: this.settings.startupTimeoutMs });
            const tools = await listAllTools(client, this.settings.startupTimeoutMs);
            if (!current()) return;
            this.tools = tools;
            this.instructions = client.getInstructions();
            this.state = "ready";
            this.settings.notify();
        } catch (error) {
            if (!current() || this.stateNow() === "stopped") return;
            this.fail(this.startupError(error, transport));
            await closeClient(client, transport);
        }
    }

    /** Reads the state afresh (it changes across awaits, which narrowing does not see). */
    private stateNow(): McpServerState {
        return this.state;
    }

    private async refreshTools(client: Client): Promise<void> {
        if (this.client !== client || this.state !== "ready") return;
        try {
            const tools = await listAllTools(client, this.settings.startupTimeoutMs);
            if (this.client !== client || this.stateNow() !== "ready") return;
            this.tools = tools;
            this.settings.notify();
        } catch {
            // Keep the previous list; calls to vanished tools will say so.
        }
    }

    private startupError(error: unknown, transport: Transport): string {
        const info = exitInfo(transport);
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
            const base = `did not complete the MCP handshake within ${seconds(this.settings.startupTimeoutMs)}`;
            return info ? `${base} (${info})` : base;
        }
        if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed && info) {
            return `exited during startup: ${info}`;
        }
        if (info && transport instanceof ProcessStdioTransport && transport.pid === undefined) {
            return info;
        }
        const base = errorText(error);
        const missing = this.spec.missingVars;
        const hint = missing.length > 0 ? ` (unset variables: ${missing.join(", ")})` : "";
        return info ? `${base}${hint}; ${info}` : `${base}${hint}`;
    }
}
