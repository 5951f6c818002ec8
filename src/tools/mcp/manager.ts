/**
 * Connects to configured MCP servers in the background and exposes their
 * tools as North tools named `mcp__<server>__<tool>`. Nothing here blocks the
 * caller: servers start on creation, `status()` says where each one is, and a
 * server that fails, crashes or stalls turns into a status and clear tool
 * errors, never a hang or an exception.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
    CancelledNotificationSchema,
    CreateMessageRequestSchema,
    type CreateMessageResult,
    ErrorCode,
    ListRootsRequestSchema,
    McpError,
    type Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import { PROVIDER_SECRET_ENV, childEnv } from "../../util/child-env";
import {
    type DeadlineTimers,
    type PausableDeadline,
    pausableDeadline,
} from "../../util/pausable-deadline";
import { type ToolDefinition, type ToolResult, toolError, toolOk } from "../types";
import { toolInput } from "../tool-input";
import type { McpServerScope, McpServerSpec } from "./config";
import { MAX_MCP_RESULT_BYTES } from "../limits";
import { mcpResultToText } from "./content";
import { describeMcpCall, mcpToolName } from "./names";
import { NAME_ONLY_DISPLAY } from "../display-text";
import { ProcessStdioTransport } from "./stdio-transport";
import {
    type McpElicitation,
    type McpElicitationAnswer,
    type McpSamplingAnswer,
    type McpSamplingRequest,
    formFields,
    samplingRequestOf,
} from "./client-requests";

export type { McpElicitation } from "./client-requests";

export type McpServerState = "starting" | "ready" | "failed" | "stopped";

export interface McpServerStatus {
    name: string;
    transport: McpServerSpec["transport"];
    scope: McpServerScope;
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

/** JSON-RPC code of a request the user turned down (the MCP spec's sampling example). */
const USER_REJECTED = -1;

/**
 * An error answer to a server's request. Not an McpError: its message
 * already starts "MCP error N:", and the server adds that again.
 */
function requestError(code: number, message: string): Error & { code: number } {
    return Object.assign(new Error(message), { code });
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
    /** Stops every server (stdio children and their process groups are killed). */
    close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 120_000;
/** The SDK's own per-request limit, set past any real call: North keeps the time (setTimeout's maximum). */
const NO_SDK_TIMEOUT_MS = 2 ** 31 - 1;
const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
const MAX_DESCRIPTION_CHARS = 2048;
const MAX_TOOL_PAGES = 20;
const CLOSE_TIMEOUT_MS = 5000;

interface Entry {
    spec: McpServerSpec;
    state: McpServerState;
    error?: string;
    instructions?: string;
    tools: McpTool[];
    client?: Client;
    transport?: Transport;
    started: Promise<void>;
    /** A tool-list refresh after list_changed, awaited before a call returns. */
    refreshing?: Promise<void>;
    /** The server's questions the user is answering (elicitation, sampling). */
    questionsOpen: number;
    /** The time limits of the calls in flight, paused while a question is open. */
    callDeadlines: Set<PausableDeadline>;
}

const anyInput = toolInput((z) => z.record(z.string(), z.unknown()));

function errorText(error: unknown): string {
    if (!(error instanceof Error)) return String(error);
    const cause = (error as { cause?: unknown }).cause;
    const causeText =
        cause instanceof Error
            ? ((cause as NodeJS.ErrnoException).code ?? cause.message)
            : undefined;
    return causeText && !error.message.includes(causeText)
        ? `${error.message} (${causeText})`
        : error.message;
}

function seconds(ms: number): string {
    return `${Math.round(ms / 100) / 10} s`;
}

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

/** Reads the state afresh (it changes across awaits, which narrowing does not see). */
function stateOf(entry: Entry): McpServerState {
    return entry.state;
}

export function createMcpManager(servers: McpServerSpec[], options: McpManagerOptions): McpManager {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const startupTimeoutMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    const maxResultBytes = options.maxResultBytes ?? MAX_MCP_RESULT_BYTES;
    const roots = options.roots ?? (options.cwd ? [options.cwd] : []);
    const listeners = new Set<() => void>();
    let closed = false;

    const notify = (): void => {
        for (const listener of [...listeners]) {
            try {
                listener();
            } catch {
                // A listener's failure must not stop the others.
            }
        }
    };

    const makeTransport = (spec: McpServerSpec): Transport => {
        if (spec.transport === "stdio") {
            return new ProcessStdioTransport({
                command: spec.command,
                args: spec.args,
                env: childEnv(
                    options.env ?? process.env,
                    options.hiddenEnv ?? PROVIDER_SECRET_ENV,
                    spec.env
                ),
                cwd: options.cwd,
            });
        }
        const remote = { requestInit: { headers: spec.headers }, fetch: options.fetch };
        return spec.transport === "sse"
            ? new SSEClientTransport(new URL(spec.url), remote)
            : new StreamableHTTPClientTransport(new URL(spec.url), remote);
    };

    /** Why `transport` went away, when it can tell (stdio exit code, stderr). */
    const exitInfo = (transport: Transport | undefined): string =>
        transport instanceof ProcessStdioTransport ? transport.describeExit() : "";

    const withExit = (message: string, transport: Transport | undefined): string => {
        const info = exitInfo(transport);
        return info ? `${message}: ${info}` : message;
    };

    const listAllTools = async (client: Client): Promise<McpTool[]> => {
        const tools: McpTool[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < MAX_TOOL_PAGES; page++) {
            const result = await client.listTools(cursor ? { cursor } : undefined, {
                timeout: startupTimeoutMs,
            });
            tools.push(...result.tools);
            cursor = result.nextCursor;
            if (!cursor) break;
        }
        return tools;
    };

    const fail = (entry: Entry, message: string): void => {
        entry.state = "failed";
        entry.error = message;
        notify();
    };

    const startupError = (error: unknown, entry: Entry, transport: Transport): string => {
        const info = exitInfo(transport);
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
            const base = `did not complete the MCP handshake within ${seconds(startupTimeoutMs)}`;
            return info ? `${base} (${info})` : base;
        }
        if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed && info) {
            return `exited during startup: ${info}`;
        }
        if (info && transport instanceof ProcessStdioTransport && transport.pid === undefined) {
            return info;
        }
        const base = errorText(error);
        const missing = entry.spec.missingVars;
        const hint = missing.length > 0 ? ` (unset variables: ${missing.join(", ")})` : "";
        return info ? `${base}${hint}; ${info}` : `${base}${hint}`;
    };

    const elicit = async (
        server: string,
        params: Record<string, unknown>,
        signal: AbortSignal
    ): Promise<McpElicitationAnswer> => {
        if (params.mode !== undefined && params.mode !== "form") {
            throw requestError(
                ErrorCode.InvalidParams,
                `North declined the elicitation: only form mode is supported, not ${String(params.mode)}`
            );
        }
        const schema = params.requestedSchema;
        if (typeof params.message !== "string" || typeof schema !== "object" || schema === null) {
            throw requestError(
                ErrorCode.InvalidParams,
                "North declined the elicitation: it needs a message and a requestedSchema object"
            );
        }
        const requestedSchema = schema as Record<string, unknown>;
        const form = formFields(requestedSchema);
        if (!form.ok) {
            throw requestError(
                ErrorCode.InvalidParams,
                `North declined the elicitation: ${form.error}`
            );
        }
        if (!options.onElicitation) return { action: "decline" };
        return options.onElicitation({ server, message: params.message, requestedSchema }, signal);
    };

    const start = async (entry: Entry): Promise<void> => {
        const transport = makeTransport(entry.spec);
        const client = new Client(
            { name: options.clientName, version: options.version },
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
                            entry.refreshing = refreshTools(entry, client);
                        },
                    },
                },
            }
        );
        client.setRequestHandler(ListRootsRequestSchema, () => ({
            roots: roots.map((dir) => ({ uri: pathToFileURL(dir).href, name: basename(dir) })),
        }));
        // Not through setRequestHandler: the SDK would answer a schema it cannot
        // parse (a nested object) with a raw validation dump instead of a reason.
        // The SDK ignores a cancellation of request id 0 (falsy), often the
        // first question a server asks: the user's open review must still close.
        const asking = new Map<string | number, AbortController>();
        // While the user answers, the server's calls wait on the user, not on the server.
        const askSignal = (extra: { requestId: string | number; signal: AbortSignal }) => {
            const controller = new AbortController();
            asking.set(extra.requestId, controller);
            const forward = (): void => controller.abort(extra.signal.reason);
            extra.signal.addEventListener("abort", forward, { once: true });
            if (entry.questionsOpen++ === 0) {
                for (const deadline of entry.callDeadlines) deadline.pause();
            }
            return {
                signal: controller.signal,
                done: () => {
                    asking.delete(extra.requestId);
                    extra.signal.removeEventListener("abort", forward);
                    if (--entry.questionsOpen === 0) {
                        for (const deadline of entry.callDeadlines) deadline.resume();
                    }
                },
            };
        };
        client.setNotificationHandler(CancelledNotificationSchema, (notification) => {
            const id = notification.params.requestId;
            if (id !== undefined) asking.get(id)?.abort(notification.params.reason);
        });
        client.fallbackRequestHandler = async (request, extra) => {
            if (request.method !== "elicitation/create") {
                throw requestError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
            }
            const question = askSignal(extra);
            try {
                return await elicit(entry.spec.name, request.params ?? {}, question.signal);
            } finally {
                question.done();
            }
        };
        client.setRequestHandler(
            CreateMessageRequestSchema,
            async (request, extra): Promise<CreateMessageResult> => {
                if (!options.onSampling) {
                    throw requestError(
                        USER_REJECTED,
                        "North declined the sampling request: only the chat can ask the user to approve one (not print mode or the Node API)"
                    );
                }
                const params = request.params;
                if (params.tools || params.toolChoice) {
                    throw requestError(
                        ErrorCode.InvalidParams,
                        "North declined the sampling request: tools in sampling are not supported"
                    );
                }
                const parsed = samplingRequestOf(entry.spec.name, params);
                if (!parsed.ok) {
                    throw requestError(
                        ErrorCode.InvalidParams,
                        `North declined the sampling request: ${parsed.error}`
                    );
                }
                let answer: McpSamplingAnswer;
                const question = askSignal(extra);
                try {
                    answer = await options.onSampling(parsed.request, question.signal);
                } catch (error) {
                    throw requestError(USER_REJECTED, errorText(error));
                } finally {
                    question.done();
                }
                return {
                    role: "assistant",
                    content: { type: "text", text: answer.text },
                    model: answer.model,
                    stopReason: answer.stopReason,
                };
            }
        );
        entry.client = client;
        entry.transport = transport;
        entry.state = "starting";
        entry.error = undefined;
        const current = (): boolean => entry.client === client && !closed;
        client.onerror = () => undefined;
        client.onclose = () => {
            // Only news while it was up or coming up; a failure already has its reason.
            if (!current() || (entry.state !== "ready" && entry.state !== "starting")) return;
            const what = entry.state === "ready" ? "the server stopped" : "exited during startup";
            fail(entry, withExit(what, transport));
        };
        try {
            await client.connect(transport, { timeout: startupTimeoutMs });
            const tools = await listAllTools(client);
            if (!current()) return;
            entry.tools = tools;
            entry.instructions = client.getInstructions();
            entry.state = "ready";
            notify();
        } catch (error) {
            if (!current() || stateOf(entry) === "stopped") return;
            fail(entry, startupError(error, entry, transport));
            await closeClient(client, transport);
        }
    };

    const refreshTools = async (entry: Entry, client: Client): Promise<void> => {
        if (entry.client !== client || entry.state !== "ready") return;
        try {
            const tools = await listAllTools(client);
            if (entry.client !== client || entry.state !== "ready") return;
            entry.tools = tools;
            notify();
        } catch {
            // Keep the previous list; calls to vanished tools will say so.
        }
    };

    const entries: Entry[] = servers.map((spec) => ({
        spec,
        state: "starting",
        tools: [],
        started: Promise.resolve(),
        questionsOpen: 0,
        callDeadlines: new Set(),
    }));
    for (const entry of entries) entry.started = start(entry);

    const waitStarted = async (entry: Entry, signal: AbortSignal): Promise<void> => {
        if (entry.state !== "starting") return;
        await new Promise<void>((resolve) => {
            const onAbort = (): void => resolve();
            signal.addEventListener("abort", onAbort, { once: true });
            void entry.started.then(() => {
                signal.removeEventListener("abort", onAbort);
                resolve();
            });
        });
    };

    const callTool = async (
        entry: Entry,
        tool: string,
        input: Record<string, unknown>,
        signal: AbortSignal
    ): Promise<ToolResult<McpCallDetails>> => {
        const server = entry.spec.name;
        await waitStarted(entry, signal);
        if (signal.aborted) return toolError("cancelled", `${tool} was cancelled.`);
        const client = entry.client;
        if (entry.state !== "ready" || !client) {
            const why =
                entry.state === "stopped" ? "it was shut down" : (entry.error ?? entry.state);
            return toolError(
                "io_error",
                `The MCP server "${server}" is not available (${why}). Its tools cannot be used ` +
                    "now; carry on without them or ask the user to restart it with /mcp."
            );
        }
        let result: Record<string, unknown>;
        // The SDK never removes its abort listener, and the session's signal
        // lives for many calls: give each call a signal of its own.
        const callAbort = new AbortController();
        const forwardAbort = (): void => callAbort.abort(signal.reason);
        signal.addEventListener("abort", forwardAbort, { once: true });
        // North's own limit, not the SDK's: the SDK's cannot pause while the user answers.
        let timedOut = false;
        const deadline = pausableDeadline(
            timeoutMs,
            () => {
                timedOut = true;
                callAbort.abort(new Error("timed out"));
            },
            { paused: entry.questionsOpen > 0, timers: options.timers }
        );
        entry.callDeadlines.add(deadline);
        try {
            result = await client.callTool({ name: tool, arguments: input }, undefined, {
                signal: callAbort.signal,
                timeout: NO_SDK_TIMEOUT_MS,
                // Asks the server for progress (the SDK sends a token only with a handler).
                onprogress: () => deadline.restart(),
            });
        } catch (error) {
            if (signal.aborted) return toolError("cancelled", `${tool} was cancelled.`);
            if (timedOut) {
                return toolError(
                    "io_error",
                    `${tool} on the MCP server "${server}" did not answer within ${seconds(timeoutMs)}; ` +
                        "the call was cancelled. Try a smaller request or carry on without it."
                );
            }
            if (entry.client === client && stateOf(entry) === "failed") {
                return toolError(
                    "io_error",
                    `The MCP server "${server}" stopped during the call to ${tool} (${entry.error}). ` +
                        "Its tools are unavailable until it is restarted."
                );
            }
            return toolError(
                "io_error",
                `${tool} on the MCP server "${server}" failed: ${errorText(error)}`
            );
        } finally {
            deadline.cancel();
            entry.callDeadlines.delete(deadline);
            signal.removeEventListener("abort", forwardAbort);
        }
        // A list_changed sent during the call lands before the model's next request.
        await entry.refreshing;
        const { text, truncated } = mcpResultToText(result, maxResultBytes);
        if (result.isError === true) {
            return toolError(
                "io_error",
                `${tool} on the MCP server "${server}" reported an error: ${text || "(no message)"}`
            );
        }
        return toolOk({ server, tool, text, truncated });
    };

    const statusOf = (entry: Entry, names: Map<McpTool, string>): McpServerStatus => ({
        name: entry.spec.name,
        transport: entry.spec.transport,
        scope: entry.spec.scope,
        state: entry.state,
        ...(entry.error !== undefined ? { error: entry.error } : {}),
        tools: entry.tools.map((tool) => tool.name),
        toolNames: entry.tools.map((tool) => names.get(tool) ?? ""),
        ...(entry.instructions ? { instructions: entry.instructions } : {}),
    });

    /** Exposed names, assigned in server then tool order so clashes resolve stably. */
    const assignNames = (): Map<McpTool, string> => {
        const names = new Map<McpTool, string>();
        const taken = new Set<string>();
        for (const entry of entries) {
            for (const tool of entry.tools) {
                const name = mcpToolName(entry.spec.name, tool.name, taken);
                taken.add(name);
                names.set(tool, name);
            }
        }
        return names;
    };

    return {
        status() {
            const names = assignNames();
            return entries.map((entry) => statusOf(entry, names));
        },
        tools() {
            const names = assignNames();
            return entries.flatMap((entry) =>
                entry.state === "stopped"
                    ? []
                    : entry.tools.map((tool): McpToolDefinition => {
                          const name = names.get(tool) ?? tool.name;
                          return {
                              name,
                              description: toolDescription(entry.spec.name, tool),
                              input: anyInput,
                              inputJsonSchema: inputJsonSchema(tool),
                              approvalPolicy: "shell",
                              readOnly: false,
                              display: NAME_ONLY_DISPLAY,
                              // The shell review asks; "always" allowlists the tool by its name.
                              approval: (input) => ({
                                  summary: describeMcpCall(name, input),
                                  rememberKey: name,
                              }),
                              execute: (input, ctx) =>
                                  callTool(entry, tool.name, input, ctx.signal),
                          };
                      })
            );
        },
        async settled() {
            await Promise.all(entries.map((entry) => entry.started));
        },
        subscribe(listener) {
            listeners.add(listener);
            return () => listeners.delete(listener);
        },
        async restart(name) {
            const entry = entries.find((e) => e.spec.name === name);
            if (!entry || closed) return;
            const { client, transport } = entry;
            if (entry.spec.scope === "project" && options.projectStillTrusted?.() === false) {
                entry.client = undefined;
                if (client) await closeClient(client, transport);
                fail(
                    entry,
                    "not restarted: the project's configuration or a script it runs changed since you trusted it (North asks again at the next start)"
                );
                return;
            }
            entry.client = undefined;
            entry.state = "starting";
            entry.error = undefined;
            notify();
            if (client) await closeClient(client, transport);
            entry.started = start(entry);
        },
        async close() {
            if (closed) return;
            closed = true;
            await Promise.all(
                entries.map(async (entry) => {
                    const { client, transport } = entry;
                    entry.state = "stopped";
                    entry.client = undefined;
                    if (client) await closeClient(client, transport);
                })
            );
            notify();
            listeners.clear();
        },
    };
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
