/**
 * One running language server, spoken to with vscode-jsonrpc (its framer and
 * connection; protocol types only from vscode-languageserver-protocol). It
 * initializes with the capabilities North really uses, answers what a server
 * asks of its client, keeps the open documents and their versions, and gets
 * diagnostics by pull where the server offers it, else from its publishes.
 * A flood of notifications is cut at a bound; a request that outlives its
 * time is cancelled and reported as the server not answering.
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import {
    CancellationTokenSource,
    type DataCallback,
    type Disposable,
    type Message,
    type MessageConnection,
    ResponseError,
    StreamMessageReader,
    StreamMessageWriter,
    createMessageConnection,
} from "vscode-jsonrpc/node";
import type {
    ClientCapabilities,
    ConfigurationParams,
    DocumentDiagnosticReport,
    InitializeParams,
    InitializeResult,
    PublishDiagnosticsParams,
    Registration,
    RegistrationParams,
    ServerCapabilities,
    UnregistrationParams,
} from "vscode-languageserver-protocol";
import type { DeadlineTimers } from "../../util/pausable-deadline";
import { DiagnosticsStore, SETTLE_QUIET_MS, pathOfUri } from "./diagnostics-store";
import type { LspServerDefinition } from "./server-definitions";
import { ServerProcess } from "./server-process";
import type { LspDiagnostic, LspServerHandle } from "./types";

/** Notifications received but not yet handled beyond which chatter is dropped. */
const NOISE_BACKLOG = 200;
/** Beyond this every notification is dropped until the backlog drains. */
const HARD_BACKLOG = 5000;
const NOISE_METHODS = new Set([
    "$/progress",
    "window/logMessage",
    "telemetry/event",
    "$/logTrace",
    "window/showMessage",
]);
const SHUTDOWN_GRACE_MS = 1000;
/** After the asked files are answered, this long without a publish ends the reports on other files. */
const DEPENDENTS_QUIET_MS = 150;
const METHOD_NOT_FOUND = -32601;

export interface LspClientOptions {
    name: string;
    /** Resolved binary. */
    command: string;
    args: readonly string[];
    env: Record<string, string>;
    /** Absolute real path of the project root the server serves. */
    root: string;
    /** extension → languageId. */
    languages: Readonly<Record<string, string>>;
    initializationOptions?: unknown;
    /** Answers to `workspace/configuration`, by section. */
    settings?: Record<string, unknown>;
    diagnosticsBarrier?: LspServerDefinition["diagnosticsBarrier"];
    startupTimeoutMs: number;
    requestTimeoutMs: number;
    clientVersion: string;
    /** Timers of request limits (tests pass a manual clock). */
    timers: DeadlineTimers;
    /** The server died, wrote garbage or stopped answering (not called after `stop`). */
    onFailure(reason: string): void;
    /** A file was synced or a request sent: the server is in use. */
    onActivity(): void;
    maxPendingBytes?: number;
}

/** A request that got no answer in time: the server is treated as hung. */
export class LspTimeoutError extends Error {}

interface OpenDocument {
    uri: string;
    languageId: string;
    version: number;
    text: string;
}

const CLIENT_CAPABILITIES: ClientCapabilities = {
    general: { positionEncodings: ["utf-16"] },
    window: { workDoneProgress: true },
    workspace: {
        configuration: true,
        workspaceFolders: true,
        applyEdit: false,
        workspaceEdit: {
            documentChanges: true,
            resourceOperations: ["create", "rename", "delete"],
        },
        symbol: { dynamicRegistration: false },
        diagnostics: { refreshSupport: true },
    },
    textDocument: {
        synchronization: { dynamicRegistration: false, didSave: false, willSave: false },
        publishDiagnostics: { relatedInformation: false, versionSupport: true },
        diagnostic: { dynamicRegistration: true, relatedDocumentSupport: true },
        definition: { linkSupport: false },
        references: {},
        hover: { contentFormat: ["plaintext", "markdown"] },
        documentSymbol: { hierarchicalDocumentSymbolSupport: true },
        rename: { prepareSupport: true },
    },
};

/** Keeps a notification unless the connection is this far behind. */
function keepNotification(method: string, backlog: number): boolean {
    if (backlog > HARD_BACKLOG) return false;
    return !(backlog > NOISE_BACKLOG && NOISE_METHODS.has(method));
}

/** vscode-jsonrpc's reader, with each message shown to `guard` first (false drops it). */
class GuardedReader extends StreamMessageReader {
    constructor(
        readable: NodeJS.ReadableStream,
        private readonly guard: (message: Message) => boolean
    ) {
        super(readable);
    }

    override listen(callback: DataCallback): Disposable {
        return super.listen((message) => {
            if (this.guard(message)) callback(message);
        });
    }
}

/** Looks `section` ("python.analysis") up in the configured settings, else null. */
function settingFor(
    settings: Record<string, unknown> | undefined,
    section: string | undefined
): unknown {
    if (!settings) return null;
    if (!section) return settings;
    if (section in settings) return settings[section];
    let value: unknown = settings;
    for (const part of section.split(".")) {
        if (typeof value !== "object" || value === null || !(part in value)) return null;
        value = (value as Record<string, unknown>)[part];
    }
    return value;
}

export class LspClient implements LspServerHandle {
    readonly name: string;
    readonly root: string;
    capabilities: ServerCapabilities = {};
    private readonly process: ServerProcess;
    private readonly connection: MessageConnection;
    private readonly documents = new Map<string, OpenDocument>();
    private readonly store: DiagnosticsStore;
    private readonly diagnosticRegistrations = new Set<string>();
    /** Settles with "pull" when the server registers pull diagnostics. */
    private readonly pullRegistered: Promise<"pull">;
    private pullRegistration: () => void = () => undefined;
    /** Pulls asked for by the server's last refresh request. */
    private refreshing: Promise<void> = Promise.resolve();
    private notificationsIn = 0;
    private notificationsHandled = 0;
    private stopping = false;
    private failed = false;

    private constructor(private readonly options: LspClientOptions) {
        this.name = options.name;
        this.root = options.root;
        this.store = new DiagnosticsStore(options.name);
        this.pullRegistered = new Promise((resolve) => {
            this.pullRegistration = () => resolve("pull");
        });
        this.process = new ServerProcess({
            command: options.command,
            args: options.args,
            env: options.env,
            cwd: options.root,
            maxPendingBytes: options.maxPendingBytes,
        });
        const reader = new GuardedReader(this.process.stdout, (message) => this.admit(message));
        this.connection = createMessageConnection(
            reader,
            new StreamMessageWriter(this.process.stdin)
        );
        this.connection.onError(([error]) => this.fail(`it broke the protocol: ${error.message}`));
        this.connection.onNotification((method, params) => this.notified(method, params));
        this.connection.onRequest((method, params) => this.requested(method, params));
        void this.process.exited.then(() => this.fail("it stopped"));
        this.connection.listen();
    }

    /** Starts the server and completes `initialize`; throws (and kills it) on failure or timeout. */
    static async start(options: LspClientOptions, signal: AbortSignal): Promise<LspClient> {
        const client = new LspClient(options);
        try {
            await client.initialize(signal);
            return client;
        } catch (error) {
            client.stopping = true;
            client.process.kill();
            client.connection.dispose();
            const why = client.process.describe();
            throw new Error(
                why ? `${(error as Error).message}; ${why}` : (error as Error).message,
                {
                    cause: error,
                }
            );
        }
    }

    get pid(): number | undefined {
        return this.process.pid;
    }

    /** The server answers `textDocument/diagnostic` (declared, or registered later). */
    get pullDiagnostics(): boolean {
        return (
            this.capabilities.diagnosticProvider !== undefined ||
            this.diagnosticRegistrations.size > 0
        );
    }

    get alive(): boolean {
        return !this.failed && !this.stopping;
    }

    async sync(path: string, text?: string): Promise<void> {
        this.options.onActivity();
        const content = text ?? (await readFile(path, "utf8"));
        const open = this.documents.get(path);
        if (!open) {
            const ext = /\.[^./]+$/.exec(basename(path))?.[0]?.toLowerCase() ?? "";
            const document: OpenDocument = {
                uri: pathToFileURL(path).href,
                languageId: this.options.languages[ext] ?? ext.slice(1),
                version: 1,
                text: content,
            };
            this.documents.set(path, document);
            await this.connection.sendNotification("textDocument/didOpen", {
                textDocument: {
                    uri: document.uri,
                    languageId: document.languageId,
                    version: document.version,
                    text: content,
                },
            });
            return;
        }
        if (open.text === content) return;
        open.version++;
        open.text = content;
        await this.connection.sendNotification("textDocument/didChange", {
            textDocument: { uri: open.uri, version: open.version },
            contentChanges: [{ text: content }],
        });
    }

    /** Closes a document North opened (the server forgets its text). */
    async close(path: string): Promise<void> {
        const open = this.documents.get(path);
        if (!open) return;
        this.documents.delete(path);
        await this.connection.sendNotification("textDocument/didClose", {
            textDocument: { uri: open.uri },
        });
    }

    request<R>(method: string, params: unknown, signal: AbortSignal): Promise<R> {
        return this.send<R>(method, params, signal, this.options.requestTimeoutMs);
    }

    /** The text and version the server has of `path`, when open. */
    document(path: string): { text: string; version: number } | undefined {
        const open = this.documents.get(path);
        return open && { text: open.text, version: open.version };
    }

    openPaths(): string[] {
        return [...this.documents.keys()];
    }

    /** The latest diagnostics of every file the server reported on. */
    reported(): ReadonlyMap<string, readonly LspDiagnostic[]> {
        return this.store.all();
    }

    /**
     * Syncs `paths` from disk and waits (until `signal`) for their
     * diagnostics; true when every file got an answer. Pull servers also
     * re-pull their other open documents (the callers of a changed function).
     */
    async settle(paths: readonly string[], signal: AbortSignal): Promise<boolean> {
        const marks = new Map(paths.map((path) => [path, this.store.mark(path)]));
        await Promise.all(paths.map((path) => this.sync(path)));
        if (this.pullDiagnostics) return this.pullAll(paths, signal);
        // A server may register pull diagnostics after `initialized` (pyright does): then pull.
        const waiting = new AbortController();
        const stopWaiting = (): void => waiting.abort();
        signal.addEventListener("abort", stopWaiting, { once: true });
        try {
            const published = Promise.all(
                paths.map((path) => {
                    const version = this.documents.get(path)?.version ?? 0;
                    const barrier = this.barrier(path, waiting.signal);
                    return this.store.waitFor(
                        path,
                        version,
                        marks.get(path) ?? 0,
                        waiting.signal,
                        barrier
                    );
                })
            ).then((answered) => answered.every(Boolean));
            const outcome = await Promise.race([published, this.pullRegistered]);
            if (outcome === "pull") {
                waiting.abort();
                return this.pullAll(paths, signal);
            }
            // Other open files (the callers of a changed function) are reported right after.
            if (outcome && this.documents.size > paths.length) {
                const quietMs = this.store.unversioned ? SETTLE_QUIET_MS : DEPENDENTS_QUIET_MS;
                await this.store.quietAll(quietMs, signal);
            }
            return outcome;
        } finally {
            signal.removeEventListener("abort", stopWaiting);
        }
    }

    /** The definition's request answered once the server checked `path`, if it has one. */
    private barrier(path: string, signal: AbortSignal): Promise<unknown> | undefined {
        const request = this.options.diagnosticsBarrier?.(pathToFileURL(path).href);
        return request && this.request(request.method, request.params, signal);
    }

    /**
     * Pulls `paths`, and the other open documents as dependents (best effort:
     * their answers do not make the view incomplete). A server that finds
     * more to say asks for a refresh (pyright, once it re-checked importers):
     * that is waited for briefly.
     */
    private async pullAll(paths: readonly string[], signal: AbortSignal): Promise<boolean> {
        const others = this.openPaths().filter((path) => !paths.includes(path));
        const [asked] = await Promise.all([
            Promise.all(paths.map((path) => this.pull(path, signal))),
            Promise.all(others.map((path) => this.pull(path, signal))),
        ]);
        if (others.length > 0) {
            await this.store.quietAll(DEPENDENTS_QUIET_MS, signal);
            await this.refreshing;
        }
        return asked.every(Boolean);
    }

    /** `workspace/diagnostic/refresh`: every open document is pulled again. */
    private refreshPulls(): void {
        const signal = AbortSignal.timeout(this.options.requestTimeoutMs);
        this.refreshing = Promise.all(this.openPaths().map((path) => this.pull(path, signal))).then(
            () => undefined
        );
    }

    /** shutdown, exit, then the process group is stopped. */
    async stop(): Promise<void> {
        if (this.stopping) return;
        this.stopping = true;
        this.store.clearWaits();
        if (!this.failed && !this.process.hasExited) {
            const shutdown = new AbortController();
            try {
                await this.send("shutdown", undefined, shutdown.signal, SHUTDOWN_GRACE_MS);
                await this.connection.sendNotification("exit");
            } catch {
                // A server that does not answer shutdown is stopped below all the same.
            }
        }
        await this.process.stop(SHUTDOWN_GRACE_MS);
        this.connection.dispose();
    }

    /** Why it failed or ended, with the tail of its stderr. */
    describe(): string {
        return this.process.describe();
    }

    private async initialize(signal: AbortSignal): Promise<void> {
        const rootUri = pathToFileURL(this.root).href;
        const params: InitializeParams = {
            processId: process.pid,
            clientInfo: { name: "north", version: this.options.clientVersion },
            rootUri,
            rootPath: this.root,
            workspaceFolders: [{ uri: rootUri, name: basename(this.root) }],
            capabilities: CLIENT_CAPABILITIES,
            initializationOptions: this.options.initializationOptions,
        };
        const result = await this.send<InitializeResult>(
            "initialize",
            params,
            signal,
            this.options.startupTimeoutMs
        );
        this.capabilities = result?.capabilities ?? {};
        await this.connection.sendNotification("initialized", {});
        if (this.options.settings) {
            await this.connection.sendNotification("workspace/didChangeConfiguration", {
                settings: this.options.settings,
            });
        }
    }

    private async pull(path: string, signal: AbortSignal): Promise<boolean> {
        const open = this.documents.get(path);
        if (!open) return false;
        const version = open.version;
        try {
            const report = await this.send<DocumentDiagnosticReport>(
                "textDocument/diagnostic",
                { textDocument: { uri: open.uri } },
                signal,
                this.options.requestTimeoutMs
            );
            if (report.kind === "full") this.store.pulled(path, report.items, version);
            for (const [uri, related] of Object.entries(report.relatedDocuments ?? {})) {
                const relatedPath = pathOfUri(uri);
                if (relatedPath && related.kind === "full") {
                    this.store.pulled(
                        relatedPath,
                        related.items,
                        this.documents.get(relatedPath)?.version ?? 0
                    );
                }
            }
            return true;
        } catch {
            return false;
        }
    }

    /** One request with a time limit; the server is told to cancel it on abort or timeout. */
    private send<R>(
        method: string,
        params: unknown,
        signal: AbortSignal,
        timeoutMs: number
    ): Promise<R> {
        if (!this.alive && method !== "shutdown") {
            return Promise.reject(new Error(`${this.name} is not running`));
        }
        if (signal.aborted) return Promise.reject(new Error("aborted"));
        this.options.onActivity();
        const cancel = new CancellationTokenSource();
        return new Promise<R>((resolve, reject) => {
            const finish = (): void => {
                this.options.timers.clearTimeout(timer);
                signal.removeEventListener("abort", onAbort);
                cancel.dispose();
            };
            const onAbort = (): void => {
                finish();
                cancel.cancel();
                reject(new Error("aborted"));
            };
            const timer = this.options.timers.setTimeout(() => {
                finish();
                cancel.cancel();
                const error = new LspTimeoutError(
                    `${this.name} did not answer ${method} within ${Math.round(timeoutMs / 1000)} s`
                );
                reject(error);
                if (method !== "shutdown") this.fail(error.message);
            }, timeoutMs);
            signal.addEventListener("abort", onAbort, { once: true });
            this.connection.sendRequest<R>(method, params, cancel.token).then(
                (result) => {
                    finish();
                    resolve(result);
                },
                (error: unknown) => {
                    finish();
                    reject(error instanceof Error ? error : new Error(String(error)));
                }
            );
        });
    }

    private admit(message: Message): boolean {
        this.process.messageArrived();
        const notification = message as { method?: unknown; id?: unknown };
        if (typeof notification.method !== "string" || notification.id !== undefined) return true;
        if (
            !keepNotification(notification.method, this.notificationsIn - this.notificationsHandled)
        ) {
            return false;
        }
        this.notificationsIn++;
        return true;
    }

    private notified(method: string, params: unknown): void {
        this.notificationsHandled++;
        if (method === "textDocument/publishDiagnostics") {
            this.store.published(params as PublishDiagnosticsParams);
        }
    }

    private requested(method: string, params: unknown): unknown {
        switch (method) {
            case "workspace/configuration":
                return (params as ConfigurationParams).items.map((item) =>
                    settingFor(this.options.settings, item.section)
                );
            case "client/registerCapability":
                for (const registration of (params as RegistrationParams).registrations) {
                    this.registered(registration);
                }
                return null;
            case "client/unregisterCapability":
                for (const gone of (params as UnregistrationParams).unregisterations) {
                    this.diagnosticRegistrations.delete(gone.id);
                }
                return null;
            case "workspace/diagnostic/refresh":
                this.refreshPulls();
                return null;
            case "window/workDoneProgress/create":
            case "window/showMessageRequest":
                return null;
            case "workspace/workspaceFolders":
                return [{ uri: pathToFileURL(this.root).href, name: basename(this.root) }];
            case "workspace/applyEdit":
                // Writes go through North's review, never straight from a server.
                return { applied: false, failureReason: "North applies edits itself" };
            default:
                return new ResponseError(METHOD_NOT_FOUND, `North does not handle ${method}`);
        }
    }

    private registered(registration: Registration): void {
        if (registration.method === "textDocument/diagnostic") {
            this.diagnosticRegistrations.add(registration.id);
            this.pullRegistration();
        }
    }

    private fail(reason: string): void {
        if (this.failed || this.stopping) return;
        this.failed = true;
        this.store.clearWaits();
        const why = this.process.describe();
        this.process.fail(reason);
        this.connection.dispose();
        this.options.onFailure(why ? `${reason}; ${why}` : reason);
    }
}
