/**
 * One running language server, spoken to with vscode-jsonrpc (its framer and
 * connection; protocol types only from vscode-languageserver-protocol). It
 * initializes with the capabilities North really uses, answers what a server
 * asks of its client, keeps the open documents and their versions, and gets
 * diagnostics by pull where the server offers it, else from its publishes.
 * A flood of notifications is cut at a bound; a request that outlives its
 * time is cancelled and reported as the server not answering. What North
 * tells and answers a server: client-protocol.ts.
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import {
    CancellationTokenSource,
    type Message,
    type MessageConnection,
    StreamMessageWriter,
    createMessageConnection,
} from "vscode-jsonrpc/node";
import type {
    DocumentDiagnosticReport,
    InitializeParams,
    InitializeResult,
    PublishDiagnosticsParams,
    ServerCapabilities,
} from "vscode-languageserver-protocol";
import type { DeadlineTimers } from "../../util/pausable-deadline";
import {
    CLIENT_CAPABILITIES,
    GuardedReader,
    answerServerRequest,
    isChatter,
} from "./client-protocol";
import { DiagnosticsStore, SETTLE_QUIET_MS, pathOfUri } from "./diagnostics-store";
import type { LspServerDefinition } from "./server-definitions";
import { ServerProcess } from "./server-process";
import type { LspDiagnostic, LspServerHandle } from "./types";
import { withoutBom } from "../../util/without-bom";

/** Notifications received but not yet handled beyond which chatter is dropped. */
const NOISE_BACKLOG = 200;
/** Beyond this the server's output is not read until the backlog drains (it waits on its pipe). */
const PAUSE_BACKLOG = 2000;
const SHUTDOWN_GRACE_MS = 1000;
/** Other open documents pulled again after an edit (pull servers). */
const MAX_DEPENDENT_PULLS = 20;
/** Documents kept open in one server; beyond, the least recently synced is closed. */
export const MAX_OPEN_DOCUMENTS = 200;
/** After the asked files are answered, this long without a publish ends the reports on other files. */
const DEPENDENTS_QUIET_MS = 150;

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

export class LspClient implements LspServerHandle {
    readonly name: string;
    readonly root: string;
    capabilities: ServerCapabilities = {};
    private readonly process: ServerProcess;
    private readonly connection: MessageConnection;
    private readonly documents = new Map<string, OpenDocument>();
    /**
     * Versions count up across all documents, so a document closed and
     * opened again never repeats a version an old report carries.
     */
    private lastVersion = 0;
    private readonly store: DiagnosticsStore;
    private readonly diagnosticRegistrations = new Set<string>();
    /** Settles with "pull" when the server registers pull diagnostics. */
    private readonly pullRegistered: Promise<"pull">;
    private pullRegistration: () => void = () => undefined;
    /** Pulls asked for by the server's last refresh request. */
    private refreshing: Promise<void> = Promise.resolve();
    private notificationsIn = 0;
    private notificationsHandled = 0;
    /** Chatter dropped under a flood (`$/progress`, log messages). */
    droppedNotifications = 0;
    /** The most notifications ever waiting to be handled. */
    largestBacklog = 0;
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
        const content = text ?? withoutBom(await readFile(path, "utf8"));
        const open = this.documents.get(path);
        if (open) {
            // Most recently synced last: the first is the one to close when too many are open.
            this.documents.delete(path);
            this.documents.set(path, open);
        }
        if (!open) {
            if (this.documents.size >= MAX_OPEN_DOCUMENTS) {
                const oldest = this.documents.keys().next().value;
                if (oldest !== undefined) await this.close(oldest);
            }
            const ext = /\.[^./]+$/.exec(basename(path))?.[0]?.toLowerCase() ?? "";
            const document: OpenDocument = {
                uri: pathToFileURL(path).href,
                languageId: this.options.languages[ext] ?? ext.slice(1),
                version: ++this.lastVersion,
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
        open.version = ++this.lastVersion;
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
        this.store.forget(path);
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
            // Barrier requests still out are cancelled at the server.
            waiting.abort();
        }
    }

    /** The definition's request answered once the server checked `path`, if it has one. */
    private barrier(path: string, signal: AbortSignal): Promise<unknown> | undefined {
        const request = this.options.diagnosticsBarrier?.(pathToFileURL(path).href);
        const answered = request && this.request(request.method, request.params, signal);
        // A wait that is over before it looks at the answer leaves it unread: its
        // rejection (the wait's abort) must not surface as an unhandled one.
        answered?.catch(() => undefined);
        return answered;
    }

    /**
     * Pulls `paths`, and the other open documents as dependents (best effort:
     * their answers do not make the view incomplete). A server that finds
     * more to say asks for a refresh (pyright, once it re-checked importers):
     * that is waited for briefly.
     */
    private async pullAll(paths: readonly string[], signal: AbortSignal): Promise<boolean> {
        // The most recently synced (documents are kept in that order): a bounded cost per edit.
        const others = this.openPaths()
            .filter((path) => !paths.includes(path))
            .slice(-MAX_DEPENDENT_PULLS);
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

    /** `workspace/diagnostic/refresh`: the recently synced open documents are pulled again. */
    private refreshPulls(): void {
        const signal = AbortSignal.timeout(this.options.requestTimeoutMs);
        const recent = this.openPaths().slice(-MAX_DEPENDENT_PULLS);
        this.refreshing = Promise.all(recent.map((path) => this.pull(path, signal))).then(
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
                // Before `finish` disposes the source: the server is told to stop ($/cancelRequest).
                cancel.cancel();
                finish();
                reject(new Error("aborted"));
            };
            const timer = this.options.timers.setTimeout(() => {
                // Before `finish` disposes the source: the server is told to stop ($/cancelRequest).
                cancel.cancel();
                finish();
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

    /**
     * Sees every message before the connection queues it (one is handled per
     * event-loop turn, so a flood would queue without bound): chatter beyond
     * a small backlog is dropped, and beyond a larger one reading pauses.
     */
    private admit(message: Message): boolean {
        this.process.messageArrived();
        const notification = message as { method?: unknown; id?: unknown };
        if (typeof notification.method !== "string" || notification.id !== undefined) return true;
        const backlog = this.notificationsIn - this.notificationsHandled;
        if (backlog > NOISE_BACKLOG && isChatter(notification.method)) {
            this.droppedNotifications++;
            return false;
        }
        this.notificationsIn++;
        this.largestBacklog = Math.max(this.largestBacklog, backlog + 1);
        if (backlog + 1 > PAUSE_BACKLOG && !this.process.stdout.isPaused())
            this.process.stdout.pause();
        return true;
    }

    private notified(method: string, params: unknown): void {
        this.notificationsHandled++;
        const backlog = this.notificationsIn - this.notificationsHandled;
        if (backlog < NOISE_BACKLOG && this.process.stdout.isPaused()) this.process.stdout.resume();
        if (method === "textDocument/publishDiagnostics") {
            this.store.published(params as PublishDiagnosticsParams);
        }
    }

    private requested(method: string, params: unknown): unknown {
        return answerServerRequest(method, params, {
            root: this.root,
            settings: this.options.settings,
            registered: (registration) => {
                if (registration.method !== "textDocument/diagnostic") return;
                this.diagnosticRegistrations.add(registration.id);
                this.pullRegistration();
            },
            unregistered: (id) => this.diagnosticRegistrations.delete(id),
            refresh: () => this.refreshPulls(),
        });
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
