/**
 * The ACP agent: the SDK's agent side with a handler per method. Sessions
 * are North conversations (session.ts); this file answers the protocol:
 * what North offers, which session a request names, and errors in words.
 */
import { isAbsolute } from "node:path";
import {
    type AgentContext,
    type ClientCapabilities,
    type InitializeResponse,
    type ListSessionsResponse,
    type McpServer,
    PROTOCOL_VERSION,
    RequestError,
    type Stream,
    agent,
    methods,
} from "@agentclientprotocol/sdk";
import { detectRepoRoot } from "../../project/repo-root";
import { createConversationStore } from "../../storage/conversations";
import type { LogLevel } from "../../storage/logger";
// Through the engine's one split point (not storage/settings/load), so the whole print path
// is shared with this one and its chunks stay as they are (test/build/print-path-modules).
import { loadUserSettings } from "../engine-entry";
import { mergeLayers, plainUserLayers } from "../../storage/settings/plain-load";
import type { CliArgs } from "../args";
import { catalogueFrom, resolveModelFromConfig } from "../model-selection";
import { prepareSession } from "../session-setup";
import { AcpSession, sessionTitle } from "./session";
import type { AcpSessionDeps } from "./session-engine";
import { MODEL_CONFIG_ID, isMode } from "./session-config";

export interface AcpServerOptions {
    version: string;
    /** The `north acp` flags every session starts from (model, --add-dir, --sandbox, ...). */
    args: CliArgs;
    logLevel: LogLevel;
    warn(message: string): void;
    /** Aborted to stop serving (a signal): the connection closes as if the client went. */
    stop?: AbortSignal;
}

const LIST_PAGE = 50;

/** The user's settings, merged (model selection, providers). */
function userSettings() {
    const user = plainUserLayers(process.env) ?? loadUserSettings(process.env);
    return user.ok ? { ok: true as const, merged: mergeLayers(user.layers) } : user;
}

/** Why the session's model cannot be used (its key missing, an unknown model), or null. */
function modelProblem(model: string | undefined): string | null {
    const settings = userSettings();
    if (!settings.ok) return settings.error;
    const selection = resolveModelFromConfig(model, process.env, settings.merged);
    return selection.ok ? null : selection.error;
}

/** The key variables of every provider North knows, for the auth method's words. */
function keyVariables(): string[] {
    const settings = userSettings();
    const { catalogue } = catalogueFrom(settings.ok ? settings.merged : {});
    const names = [...catalogue.providers.values()].flatMap((p) =>
        p.apiKeyEnv ? [p.apiKeyEnv] : []
    );
    return [...new Set(names)];
}

/** The editor's MCP servers in the `mcpServers` settings shape. */
export function clientMcpServers(servers: readonly McpServer[]): Record<string, unknown> {
    const entries: Record<string, unknown> = {};
    for (const server of servers) {
        if ("type" in server && (server.type === "http" || server.type === "sse")) {
            entries[server.name] = {
                type: server.type,
                url: server.url,
                headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])),
            };
        } else if ("command" in server) {
            entries[server.name] = {
                command: server.command,
                args: server.args,
                env: Object.fromEntries(server.env.map((v) => [v.name, v.value])),
            };
        }
    }
    return entries;
}

function cursorOffset(cursor: string | null | undefined): number {
    if (!cursor) return 0;
    const offset = Number(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Number.isInteger(offset) || offset < 0) {
        throw RequestError.invalidParams(undefined, "the cursor is not one North gave");
    }
    return offset;
}

/** ACP's paths are absolute: a relative one would be read against wherever North happened to start. */
function absolutePaths(paths: ReadonlyArray<string | null | undefined>): void {
    const relative = paths.find((p) => typeof p === "string" && !isAbsolute(p));
    if (relative !== undefined) {
        throw RequestError.invalidParams(undefined, `paths must be absolute (got "${relative}")`);
    }
}

/** After the answer that names the session is written: before it, the editor knows no such session. */
function advertiseAfterAnswer(session: AcpSession): void {
    setImmediate(() => void session.advertiseCommands().catch(() => undefined));
}

/** The sessions of one connection, and how a request's session is found. */
class AcpSessions {
    private readonly sessions = new Map<string, AcpSession>();
    readonly store = createConversationStore();
    clientCapabilities: ClientCapabilities | undefined;

    constructor(private readonly options: AcpServerOptions) {}

    find(sessionId: string): AcpSession | undefined {
        return this.sessions.get(sessionId);
    }

    get(sessionId: string): AcpSession {
        const session = this.sessions.get(sessionId);
        if (!session) throw RequestError.sessionNotFound(sessionId);
        return session;
    }

    deps(client: AgentContext): AcpSessionDeps {
        const { options } = this;
        return {
            client,
            version: options.version,
            logLevel: options.logLevel,
            trust: options.args.trust,
            clientCapabilities: this.clientCapabilities,
            warn: options.warn,
        };
    }

    /** A new conversation's session, or an existing one's (`resumeId`), prepared but not started. */
    async open(
        client: AgentContext,
        request: {
            cwd: string;
            additionalDirectories?: string[];
            mcpServers: McpServer[];
            resumeId?: string;
        }
    ): Promise<AcpSession> {
        const { args, warn } = this.options;
        absolutePaths([request.cwd, ...(request.additionalDirectories ?? [])]);
        const problem = modelProblem(args.model);
        if (problem !== null) throw RequestError.authRequired(undefined, problem);
        if (request.resumeId !== undefined) {
            // Loaded again on this connection: the old session lets go of the conversation first.
            const open = this.sessions.get(request.resumeId);
            this.sessions.delete(request.resumeId);
            await open?.close();
        }
        const prepared = await prepareSession(
            {
                ...args,
                path: request.cwd,
                addDirs: [...args.addDirs, ...(request.additionalDirectories ?? [])],
                resume: request.resumeId,
                continue: false,
                forkSession: false,
            },
            warn,
            async () => loadUserSettings
        );
        if (!prepared.ok) throw RequestError.invalidParams(undefined, prepared.error);
        const preparedWithStore = { ...prepared, store: prepared.store ?? this.store };
        // A new conversation's id is answered now; its log is created with the first prompt.
        const id = request.resumeId ?? this.store.newId();
        const session = new AcpSession({
            id,
            prepared: preparedWithStore,
            deps: this.deps(client),
            newConversationId: request.resumeId === undefined ? id : undefined,
            clientMcpServers: clientMcpServers(request.mcpServers),
        });
        this.sessions.set(session.id, session);
        return session;
    }

    /** The stored conversation `sessionId` of `cwd`'s project, or the error to answer. */
    checkStored(sessionId: string, cwd: string): void {
        absolutePaths([cwd]);
        const stored = this.store.list().find((c) => c.id === sessionId);
        if (!stored) throw RequestError.sessionNotFound(sessionId);
        const here = detectRepoRoot(cwd);
        if (!here.ok) throw RequestError.invalidParams(undefined, `cwd: ${here.error}`);
        if (stored.repoRoot !== here.root) {
            throw RequestError.invalidParams(
                undefined,
                `conversation ${sessionId} belongs to ${stored.repoRoot}, not ${here.root}`
            );
        }
    }

    list(cwd: string | null | undefined, cursor: string | null | undefined): ListSessionsResponse {
        let repoRoot: string | undefined;
        absolutePaths([cwd]);
        if (cwd) {
            const here = detectRepoRoot(cwd);
            if (!here.ok) throw RequestError.invalidParams(undefined, `cwd: ${here.error}`);
            repoRoot = here.root;
        }
        const all = this.store.list(repoRoot ? { repoRoot } : undefined);
        const offset = cursorOffset(cursor);
        const page = all.slice(offset, offset + LIST_PAGE);
        const next = offset + LIST_PAGE;
        return {
            sessions: page.map((c) => ({
                sessionId: c.id,
                cwd: c.repoRoot,
                title: c.firstPrompt === null ? null : sessionTitle(c.firstPrompt),
                updatedAt: c.updatedAt,
            })),
            ...(next < all.length
                ? { nextCursor: Buffer.from(String(next)).toString("base64url") }
                : {}),
        };
    }

    async close(sessionId: string): Promise<void> {
        const session = this.sessions.get(sessionId);
        if (!session) throw RequestError.sessionNotFound(sessionId);
        this.sessions.delete(sessionId);
        await session.close();
    }

    async closeAll(): Promise<void> {
        const all = [...this.sessions.values()];
        this.sessions.clear();
        await Promise.all(all.map((s) => s.close().catch(() => undefined)));
    }
}

function initializeResponse(version: string): InitializeResponse {
    const variables = keyVariables();
    return {
        // North speaks v1 only: a client asking for another version gets v1 and decides.
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: { name: "north", title: "North", version },
        agentCapabilities: {
            loadSession: true,
            promptCapabilities: { image: true, audio: false, embeddedContext: true },
            mcpCapabilities: { http: true, sse: true },
            sessionCapabilities: { list: {}, resume: {}, close: {}, additionalDirectories: {} },
        },
        authMethods: [
            {
                id: "api-key",
                name: "API key",
                description: `Set ${variables.join(" or ")} in North's environment, or configure a provider in North's config.json (NORTH_CONFIG_DIR, ~/.config/north).`,
            },
        ],
    };
}

/** Serves ACP on `stream` until the client goes; every session is closed before it returns. */
export async function serveAcp(stream: Stream, options: AcpServerOptions): Promise<void> {
    const sessions = new AcpSessions(options);
    const app = agent({ name: "north" })
        .onRequest(methods.agent.initialize, ({ params }) => {
            sessions.clientCapabilities = params.clientCapabilities;
            return initializeResponse(options.version);
        })
        .onRequest(methods.agent.authenticate, ({ params }) => {
            if (params.methodId !== "api-key") {
                throw RequestError.invalidParams(
                    undefined,
                    `unknown auth method "${params.methodId}" (North offers "api-key")`
                );
            }
            const problem = modelProblem(options.args.model);
            if (problem !== null) throw RequestError.authRequired(undefined, problem);
            return {};
        })
        .onRequest(methods.agent.session.new, async ({ params, client }) => {
            const session = await sessions.open(client, params);
            advertiseAfterAnswer(session);
            return {
                sessionId: session.id,
                modes: session.modes(),
                configOptions: session.configOptions(),
            };
        })
        .onRequest(methods.agent.session.load, async ({ params, client }) => {
            sessions.checkStored(params.sessionId, params.cwd);
            const session = await sessions.open(client, { ...params, resumeId: params.sessionId });
            await session.replay();
            await session.tellFork();
            advertiseAfterAnswer(session);
            return { modes: session.modes(), configOptions: session.configOptions() };
        })
        .onRequest(methods.agent.session.resume, async ({ params, client }) => {
            sessions.checkStored(params.sessionId, params.cwd);
            const session = await sessions.open(client, {
                ...params,
                mcpServers: params.mcpServers ?? [],
                resumeId: params.sessionId,
            });
            await session.tellFork();
            advertiseAfterAnswer(session);
            return { modes: session.modes(), configOptions: session.configOptions() };
        })
        .onRequest(methods.agent.session.list, ({ params }) =>
            sessions.list(params.cwd, params.cursor)
        )
        .onRequest(methods.agent.session.close, async ({ params }) => {
            await sessions.close(params.sessionId);
            return {};
        })
        .onRequest(methods.agent.session.setMode, async ({ params }) => {
            const session = sessions.get(params.sessionId);
            if (!isMode(params.modeId)) {
                throw RequestError.invalidParams(undefined, `unknown mode "${params.modeId}"`);
            }
            await session.setMode(params.modeId);
            return {};
        })
        .onRequest(methods.agent.session.setConfigOption, async ({ params }) => {
            const session = sessions.get(params.sessionId);
            if (params.configId !== MODEL_CONFIG_ID || typeof params.value !== "string") {
                throw RequestError.invalidParams(
                    undefined,
                    `unknown config option "${params.configId}" (North has "${MODEL_CONFIG_ID}")`
                );
            }
            const error = await session.setModel(params.value);
            if (error !== null) throw RequestError.invalidParams(undefined, error);
            return { configOptions: session.configOptions() };
        })
        .onRequest(methods.agent.session.prompt, async ({ params }) =>
            sessions.get(params.sessionId).prompt(params.prompt)
        )
        // A notification has no answer: a cancel for a session not open here changes nothing.
        .onNotification(methods.agent.session.cancel, ({ params }) => {
            sessions.find(params.sessionId)?.cancel();
        });
    const connection = app.connect(stream);
    options.stop?.addEventListener("abort", () => connection.close(), { once: true });
    await connection.closed;
    await sessions.closeAll();
}
