/**
 * One language server for one project root, over its life: started on first
 * use, stopped after it sat idle, its memory sampled while it runs. A crash,
 * a hang, garbage on its stdout or memory over the cap is a failure: the
 * next use starts it again (`maxRestarts` times, default once), after which
 * it stays disabled for the session with one warning.
 */
import type { DeadlineTimers } from "../../util/pausable-deadline";
import type { LspClient, LspClientOptions } from "./client";
import { groupResidentBytes } from "./process-memory";
import type { LspServerDefinition } from "./server-definitions";
import type { LspServerState, LspServerStatus } from "./types";

export interface InstanceSettings {
    timers: DeadlineTimers;
    idleMs: number;
    memoryLimitBytes: number;
    memorySampleMs: number;
    /** Starts a client (the module holding vscode-jsonrpc is loaded on the first start). */
    startClient(options: LspClientOptions, signal: AbortSignal): Promise<LspClient>;
    /** Client options every start shares; the failure and activity hooks are added here. */
    clientOptions: Omit<LspClientOptions, "onFailure" | "onActivity">;
    /** Said once, when the server is disabled. */
    warn(message: string): void;
    log(event: string, data: Record<string, unknown>): void;
}

function megabytes(bytes: number): string {
    return `${Math.round(bytes / 1048576)} MB`;
}

export class ServerInstance {
    private state: LspServerState = "available";
    private client: LspClient | undefined;
    private starting: Promise<LspClient | null> | undefined;
    private failures = 0;
    private restarts = 0;
    private lastError: string | undefined;
    private rssBytes: number | undefined;
    private lastUsed = 0;
    private idleTimer: unknown;
    private memoryTimer: unknown;
    /** Aborts a start in progress when the session ends. */
    private readonly lifetime = new AbortController();

    constructor(
        readonly definition: LspServerDefinition,
        readonly root: string,
        private readonly settings: InstanceSettings
    ) {}

    get disabled(): boolean {
        return this.state === "disabled";
    }

    /** The running client, starting it when needed; null when it cannot run. */
    async get(): Promise<LspClient | null> {
        if (this.client?.alive) {
            this.touch();
            return this.client;
        }
        if (this.state === "disabled" || this.lifetime.signal.aborted) return null;
        this.starting ??= this.start().finally(() => {
            this.starting = undefined;
        });
        return this.starting;
    }

    /** The client when it runs now, without starting it. */
    current(): LspClient | undefined {
        return this.client?.alive ? this.client : undefined;
    }

    status(command: string): LspServerStatus {
        // Fresh for a running server: `/lsp` and doctor report what it holds now.
        const pid = this.client?.alive ? this.client.pid : undefined;
        if (pid !== undefined) this.rssBytes = groupResidentBytes(pid) ?? this.rssBytes;
        return {
            name: this.definition.name,
            command,
            extensions: Object.keys(this.definition.languages),
            root: this.root,
            state: this.state,
            ...(this.client?.pid !== undefined && this.state === "running"
                ? { pid: this.client.pid }
                : {}),
            ...(this.rssBytes !== undefined ? { rssBytes: this.rssBytes } : {}),
            restarts: this.restarts,
            ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
            ...(this.client ? { pullDiagnostics: this.client.pullDiagnostics } : {}),
            origin: this.definition.origin,
        };
    }

    async dispose(): Promise<void> {
        this.lifetime.abort();
        this.clearTimers();
        const client = this.client;
        this.client = undefined;
        if (this.state !== "disabled") this.state = "stopped";
        await client?.stop();
    }

    private async start(): Promise<LspClient | null> {
        if (this.failures > 0) this.restarts++;
        this.state = "starting";
        this.rssBytes = undefined;
        let client: LspClient | undefined;
        try {
            client = await this.settings.startClient(
                {
                    ...this.settings.clientOptions,
                    // A failure during the start is the start's error, counted once below.
                    onFailure: (reason) => {
                        if (client) this.failed(client, reason);
                    },
                    onActivity: () => this.touch(),
                },
                this.lifetime.signal
            );
        } catch (error) {
            this.failed(undefined, (error as Error).message);
            return null;
        }
        if (this.lifetime.signal.aborted) {
            await client.stop();
            return null;
        }
        this.client = client;
        this.state = "running";
        this.settings.log("lsp_started", {
            server: this.definition.name,
            root: this.root,
            pid: client.pid,
        });
        this.touch();
        this.armIdle(this.settings.idleMs);
        this.armMemory();
        return client;
    }

    private touch(): void {
        this.lastUsed = this.settings.timers.now();
    }

    private armIdle(ms: number): void {
        const { timers } = this.settings;
        timers.clearTimeout(this.idleTimer);
        this.idleTimer = timers.setTimeout(() => {
            const idle = timers.now() - this.lastUsed;
            if (idle < this.settings.idleMs) {
                this.armIdle(this.settings.idleMs - idle);
                return;
            }
            void this.stopIdle();
        }, ms);
    }

    private async stopIdle(): Promise<void> {
        const client = this.client;
        if (!client) return;
        this.clearTimers();
        this.client = undefined;
        this.state = "stopped";
        this.settings.log("lsp_idle_stop", { server: this.definition.name, root: this.root });
        await client.stop();
    }

    private armMemory(): void {
        const { timers } = this.settings;
        timers.clearTimeout(this.memoryTimer);
        this.memoryTimer = timers.setTimeout(() => {
            const client = this.client;
            const pid = client?.pid;
            if (!client || pid === undefined) return;
            this.rssBytes = groupResidentBytes(pid);
            const limit = this.settings.memoryLimitBytes;
            if (this.rssBytes !== undefined && this.rssBytes > limit) {
                this.failed(
                    client,
                    `it used ${megabytes(this.rssBytes)}, over its memory cap of ${megabytes(limit)}`
                );
                void client.stop();
                return;
            }
            this.armMemory();
        }, this.settings.memorySampleMs);
    }

    private clearTimers(): void {
        this.settings.timers.clearTimeout(this.idleTimer);
        this.settings.timers.clearTimeout(this.memoryTimer);
    }

    /** A failure of `client` (or of a start): counted once, then restart on next use or disable. */
    private failed(client: LspClient | undefined, reason: string): void {
        if (client !== this.client) return;
        if (this.lifetime.signal.aborted) return;
        this.clearTimers();
        this.client = undefined;
        this.failures++;
        this.lastError = reason;
        const { name } = this.definition;
        this.settings.log("lsp_failed", {
            server: name,
            root: this.root,
            reason,
            failures: this.failures,
        });
        if (this.failures > (this.definition.maxRestarts ?? 1)) {
            this.state = "disabled";
            this.settings.warn(`Language server ${name} disabled for this session: ${reason}`);
        } else {
            this.state = "stopped";
        }
    }
}
