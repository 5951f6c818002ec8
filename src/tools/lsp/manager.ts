/**
 * The session's language service (types.ts): which servers exist and where
 * their binaries are, one instance per server and project root started on
 * the first file of its language, and diagnostics gathered across them
 * within a time budget. Only a trusted project gets servers: a language
 * server runs the project's code (tsconfig plugins, build scripts).
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import { PROVIDER_SECRET_ENV, childEnv } from "../../util/child-env";
import { type DeadlineTimers, systemTimers } from "../../util/pausable-deadline";
import type { LspClient, LspClientOptions } from "./client";
import {
    BUILT_IN_SERVERS,
    type LspServerDefinition,
    type LspSettings,
    findBinary,
    mergeServerSettings,
    parseClaudeLspConfig,
    lspServerEntries,
    typescriptInitializationOptions,
} from "./server-definitions";
import { ServerInstance } from "./server-instance";
import type {
    DiagnosticsView,
    DiagnosticsWait,
    LanguageService,
    LspDiagnostic,
    LspServerHandle,
    LspServerStatus,
} from "./types";
import { withoutBom } from "../../util/without-bom";

const DEFAULT_MEMORY_LIMIT_MB = 2048;
const DEFAULT_IDLE_MINUTES = 10;
const DEFAULT_STARTUP_TIMEOUT_MS = 60_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const MEMORY_SAMPLE_MS = 10_000;
/** Files of other reports whose text is read for the view; more are listed without text. */
const MAX_OTHER_TEXTS = 200;
const MAX_TEXT_BYTES = 1024 * 1024;

export interface LanguageServiceOptions {
    /** Absolute path of the project root. */
    repoRoot: string;
    /** Only a trusted project starts servers. */
    trusted: boolean;
    /** The merged `lsp` setting (the project's layers only when trusted). */
    settings?: LspSettings;
    /** The project's Claude Code `.lsp.json` text, as trusted. */
    claudeLspJson?: string;
    /** Base environment of servers; default `process.env`. Also where PATH is read. */
    env?: Record<string, string | undefined>;
    /** Kept from servers (provider keys); default the built-in ones. */
    hiddenEnv?: readonly string[];
    warn(message: string): void;
    log?(event: string, data: Record<string, unknown>): void;
    /** Idle and memory-sampling timers, request and budget limits (tests pass a manual clock). */
    timers?: DeadlineTimers;
    /** North's version, told to servers. */
    clientVersion?: string;
    /** Plugins' `lspServers` (server name → `.lsp.json` entry), after the user's own, before the built-ins. */
    pluginServers?: ReadonlyArray<{
        plugin: string;
        name: string;
        servers: Record<string, unknown>;
        env: Record<string, string>;
    }>;
    /** Replaces the built-in definitions (tests run a scripted server). */
    builtIns?: readonly LspServerDefinition[];
    startupTimeoutMs?: number;
    requestTimeoutMs?: number;
    memorySampleMs?: number;
}

/** vscode-jsonrpc is loaded with the first server that starts (ARCHITECTURE.md, the launch boundary). */
async function startClient(options: LspClientOptions, signal: AbortSignal): Promise<LspClient> {
    const { LspClient } = await import("./client");
    return LspClient.start(options, signal);
}

function realPath(path: string): string {
    try {
        return realpathSync(path);
    } catch {
        return resolve(path);
    }
}

interface KnownServer {
    definition: LspServerDefinition;
    /** Resolved binary, null when not found. */
    binary: string | null;
    /** False when the program it needs to find problems is missing. */
    reportsDiagnostics: boolean;
    instances: Map<string, ServerInstance>;
}

class ProjectLanguageService implements LanguageService {
    private readonly servers: KnownServer[];
    /** Extension → the server handling it (the first found and not turned off). */
    private readonly byExtension = new Map<string, KnownServer>();
    private readonly repoRoot: string;
    private readonly timers: DeadlineTimers;
    private disposed = false;

    constructor(
        definitions: readonly LspServerDefinition[],
        private readonly options: LanguageServiceOptions
    ) {
        this.repoRoot = realPath(options.repoRoot);
        this.timers = options.timers ?? systemTimers;
        const pathEnv = (options.env ?? process.env).PATH;
        this.servers = definitions.map((definition) => ({
            definition,
            binary: definition.disabled
                ? null
                : findBinary(definition.command, this.repoRoot, pathEnv),
            reportsDiagnostics:
                definition.diagnosticsNeed === undefined ||
                findBinary(definition.diagnosticsNeed, this.repoRoot, pathEnv) !== null,
            instances: new Map(),
        }));
        // A server the user configured wins an extension over a built-in.
        const ordered = [...this.servers].sort(
            (a, b) =>
                Number(a.definition.origin === "built-in") -
                Number(b.definition.origin === "built-in")
        );
        for (const server of ordered) {
            if (!server.binary) continue;
            for (const ext of Object.keys(server.definition.languages)) {
                if (!this.byExtension.has(ext)) this.byExtension.set(ext, server);
            }
        }
    }

    /** A found server every extension of which an earlier one claimed: listed, never started. */
    private outranked(server: KnownServer): { lastError?: string } {
        if (!server.binary) return {};
        const owners = Object.keys(server.definition.languages).map((ext) =>
            this.byExtension.get(ext)
        );
        if (owners.some((owner) => owner === server)) return {};
        const first = owners.find((owner) => owner !== undefined);
        return first
            ? {
                  lastError: `not started: its files go to ${first.definition.name}, registered first`,
              }
            : {};
    }

    status(): LspServerStatus[] {
        return this.servers.flatMap((server) => {
            const command = [
                server.binary ?? server.definition.command,
                ...server.definition.args,
            ].join(" ");
            if (server.instances.size > 0) {
                return [...server.instances.values()].map((instance) => instance.status(command));
            }
            return [
                {
                    name: server.definition.name,
                    command,
                    extensions: Object.keys(server.definition.languages),
                    state: server.definition.disabled
                        ? "disabled"
                        : server.binary
                          ? "available"
                          : "missing",
                    restarts: 0,
                    ...(server.definition.disabled
                        ? { lastError: "turned off in settings" }
                        : this.outranked(server)),
                    origin: server.definition.origin,
                } satisfies LspServerStatus,
            ];
        });
    }

    hasServers(): boolean {
        return this.byExtension.size > 0;
    }

    handles(path: string): boolean {
        const server = this.serverOf(path);
        return server !== undefined && !this.isDisabled(server);
    }

    async serverFor(path: string, signal: AbortSignal): Promise<LspServerHandle | null> {
        // An abort stops the wait, not a start other callers may share.
        return this.withinBudget(this.clientFor(realPath(path)), signal);
    }

    running(): LspServerHandle[] {
        return this.servers.flatMap((server) =>
            [...server.instances.values()].flatMap((instance) => instance.current() ?? [])
        );
    }

    async diagnostics(
        paths: readonly string[],
        wait: DiagnosticsWait
    ): Promise<DiagnosticsView | null> {
        // A disabled server's files are nobody's: the built-in checks take them.
        const asked = [...new Set(paths.map(realPath))].filter(
            (path) => this.handles(path) && this.serverOf(path)?.reportsDiagnostics
        );
        if (asked.length === 0 || this.disposed) return null;
        const budget = new AbortController();
        const expire = (): void => budget.abort();
        const timer = this.timers.setTimeout(expire, wait.budgetMs);
        wait.signal.addEventListener("abort", expire, { once: true });
        try {
            const byClient = new Map<LspClient, string[]>();
            let complete = true;
            const clients = await Promise.all(
                asked.map((path) => this.withinBudget(this.clientFor(path), budget.signal))
            );
            asked.forEach((path, i) => {
                const client = clients[i];
                if (!client) {
                    complete = false;
                    return;
                }
                byClient.set(client, [...(byClient.get(client) ?? []), path]);
            });
            const settled = await Promise.all(
                [...byClient].map(([client, files]) =>
                    this.withinBudget(
                        client.settle(files, budget.signal).catch(() => false),
                        budget.signal
                    )
                )
            );
            if (!settled.every(Boolean)) complete = false;
            return this.view(asked, complete);
        } finally {
            this.timers.clearTimeout(timer);
            wait.signal.removeEventListener("abort", expire);
        }
    }

    /** Stops a plugin's servers and gives their extensions back (the plugin was disabled or removed). */
    async stopPlugin(plugin: string): Promise<void> {
        const leaving = this.servers.filter((server) => server.definition.plugin === plugin);
        for (const server of leaving) {
            server.binary = null;
            for (const [ext, owner] of [...this.byExtension]) {
                if (owner === server) this.byExtension.delete(ext);
            }
        }
        await Promise.all(
            leaving.flatMap((server) => {
                const instances = [...server.instances.values()];
                server.instances.clear();
                return instances.map((instance) => instance.dispose());
            })
        );
    }

    async dispose(): Promise<void> {
        if (this.disposed) return;
        this.disposed = true;
        await Promise.all(
            this.servers.flatMap((server) =>
                [...server.instances.values()].map((instance) => instance.dispose())
            )
        );
    }

    /** `work`'s value, or null once `signal` ends (the work goes on, unwaited). */
    private withinBudget<T>(work: Promise<T>, signal: AbortSignal): Promise<T | null> {
        if (signal.aborted) return Promise.resolve(null);
        return new Promise((resolve) => {
            const onAbort = (): void => resolve(null);
            signal.addEventListener("abort", onAbort, { once: true });
            void work.then(
                (value) => {
                    signal.removeEventListener("abort", onAbort);
                    resolve(value);
                },
                () => {
                    signal.removeEventListener("abort", onAbort);
                    resolve(null);
                }
            );
        });
    }

    private view(asked: readonly string[], complete: boolean): DiagnosticsView {
        const byPath = new Map<string, readonly LspDiagnostic[]>();
        const text = new Map<string, string>();
        const clients = this.servers.flatMap((server) =>
            [...server.instances.values()].flatMap((instance) => instance.current() ?? [])
        );
        for (const client of clients) {
            for (const [path, diagnostics] of client.reported()) {
                byPath.set(path, [...(byPath.get(path) ?? []), ...diagnostics]);
            }
        }
        for (const path of asked) if (!byPath.has(path)) byPath.set(path, []);
        let read = 0;
        for (const path of byPath.keys()) {
            const open = clients
                .map((client) => client.document(path))
                .find((d) => d !== undefined);
            if (open) {
                text.set(path, open.text);
            } else if (read < MAX_OTHER_TEXTS) {
                read++;
                const disk = readSmallFile(path);
                if (disk !== undefined) text.set(path, disk);
            }
        }
        return { byPath, text, complete };
    }

    private serverOf(path: string): KnownServer | undefined {
        return this.byExtension.get(extname(path).toLowerCase());
    }

    private isDisabled(server: KnownServer): boolean {
        return [...server.instances.values()].some((instance) => instance.disabled);
    }

    private async clientFor(path: string): Promise<LspClient | null> {
        const server = this.serverOf(path);
        if (!server?.binary || this.disposed || this.isDisabled(server)) return null;
        const root = this.rootFor(path, server.definition);
        let instance = server.instances.get(root);
        if (!instance) {
            instance = this.newInstance(server, server.binary, root);
            server.instances.set(root, instance);
        }
        return instance.get();
    }

    /** The nearest folder of `path` inside the project holding a root marker, else the project root. */
    private rootFor(path: string, definition: LspServerDefinition): string {
        const markers = definition.rootMarkers ?? [];
        const inside = relative(this.repoRoot, path);
        if (markers.length === 0 || inside.startsWith("..") || inside.startsWith(sep))
            return this.repoRoot;
        for (let dir = dirname(path); dir.startsWith(this.repoRoot); dir = dirname(dir)) {
            if (markers.some((marker) => existsSync(join(dir, marker)))) return dir;
            if (dir === this.repoRoot) break;
        }
        return this.repoRoot;
    }

    private newInstance(server: KnownServer, binary: string, root: string): ServerInstance {
        const { definition } = server;
        const { options } = this;
        const settings = options.settings ?? {};
        const initializationOptions =
            definition.name === "typescript" && definition.origin.startsWith("built-in")
                ? typescriptInitializationOptions(
                      this.repoRoot,
                      binary,
                      definition.initializationOptions
                  )
                : definition.initializationOptions;
        const env = childEnv(
            options.env ?? process.env,
            options.hiddenEnv ?? PROVIDER_SECRET_ENV,
            definition.env
        );
        return new ServerInstance(definition, root, {
            timers: this.timers,
            idleMs: (settings.idleMinutes ?? DEFAULT_IDLE_MINUTES) * 60_000,
            memoryLimitBytes: (settings.memoryLimitMb ?? DEFAULT_MEMORY_LIMIT_MB) * 1048576,
            memorySampleMs: options.memorySampleMs ?? MEMORY_SAMPLE_MS,
            startClient,
            clientOptions: {
                name: definition.name,
                command: binary,
                args: definition.args,
                env,
                root,
                languages: definition.languages,
                initializationOptions,
                settings: definition.settings,
                diagnosticsBarrier: definition.diagnosticsBarrier,
                startupTimeoutMs:
                    definition.startupTimeoutMs ??
                    options.startupTimeoutMs ??
                    DEFAULT_STARTUP_TIMEOUT_MS,
                requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
                clientVersion: options.clientVersion ?? "0",
                timers: this.timers,
            },
            warn: options.warn,
            log: (event, data) => options.log?.(event, data),
        });
    }
}

function readSmallFile(path: string): string | undefined {
    try {
        if (statSync(path).size > MAX_TEXT_BYTES) return undefined;
        return withoutBom(readFileSync(path, "utf8"));
    } catch {
        return undefined;
    }
}

/** No servers: an untrusted project, or language servers turned off. */
class NoLanguageService implements LanguageService {
    constructor(private readonly reason: string) {}

    status(): LspServerStatus[] {
        return BUILT_IN_SERVERS.map((server) => ({
            name: server.name,
            command: [server.command, ...server.args].join(" "),
            extensions: Object.keys(server.languages),
            state: "disabled",
            restarts: 0,
            lastError: this.reason,
            origin: server.origin,
        }));
    }

    hasServers(): boolean {
        return false;
    }

    handles(): boolean {
        return false;
    }

    serverFor(): Promise<LspServerHandle | null> {
        return Promise.resolve(null);
    }

    running(): LspServerHandle[] {
        return [];
    }

    diagnostics(): Promise<DiagnosticsView | null> {
        return Promise.resolve(null);
    }

    dispose(): Promise<void> {
        return Promise.resolve();
    }
}

/**
 * The language service of a session. An untrusted project, or `lsp.enabled:
 * false`, gets one that starts nothing and says why in its status.
 */
export function createLanguageService(options: LanguageServiceOptions): LanguageService {
    if (!options.trusted) return new NoLanguageService("project not trusted");
    if (options.settings?.enabled === false)
        return new NoLanguageService("turned off in settings (lsp.enabled)");
    const claude =
        options.claudeLspJson === undefined
            ? []
            : parseClaudeLspConfig(
                  options.claudeLspJson,
                  join(options.repoRoot, ".lsp.json"),
                  options.warn
              );
    // Claude Code's file replaces a built-in of the same name; North's settings have the last word.
    const claudeNames = new Set(claude.map((server) => server.name));
    const plugins = (options.pluginServers ?? []).flatMap((p) =>
        lspServerEntries(p.servers, `plugin ${p.plugin}`, `plugin ${p.plugin}`, options.warn, {
            namePrefix: `plugin:${p.name}:`,
            env: p.env,
            plugin: p.plugin,
        })
    );
    const base = [
        ...(options.builtIns ?? BUILT_IN_SERVERS).filter((s) => !claudeNames.has(s.name)),
        ...claude,
        ...plugins,
    ];
    const definitions = mergeServerSettings(
        base,
        options.settings?.servers,
        "settings",
        options.warn
    );
    return new ProjectLanguageService(definitions, options);
}
