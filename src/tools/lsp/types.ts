/**
 * What the rest of North sees of language servers: one service per session
 * (created only in a trusted project) that finds, starts, watches and stops
 * servers, hands out a running server for a file, and reports diagnostics.
 * Edits (agent/write-review), the `lsp` tool, `/lsp` and `north doctor` use
 * only this contract; the JSON-RPC side stays inside tools/lsp.
 */
import type { ServerCapabilities } from "vscode-languageserver-protocol";

export type LspSeverity = "error" | "warning" | "information" | "hint";

/** One diagnostic as North reports it: absolute real path, 1-based lines and columns. */
export interface LspDiagnostic {
    path: string;
    line: number;
    column: number;
    endLine: number;
    endColumn: number;
    severity: LspSeverity;
    message: string;
    /** "ts", "Pyright", "compiler"… as the server names it. */
    source?: string;
    code?: string;
    /** The server that reported it. */
    server: string;
}

/**
 * `available`: binary found, not started yet; `missing`: no binary (listed so
 * `/lsp` and doctor can say how to get it); `disabled`: crashed twice, over
 * its memory cap twice, or turned off in settings.
 */
export type LspServerState =
    "available" | "starting" | "running" | "stopped" | "disabled" | "missing";

export interface LspServerStatus {
    name: string;
    /** The command line as resolved (or as configured when missing). */
    command: string;
    extensions: readonly string[];
    /** Project root the instance serves; absent before it starts. */
    root?: string;
    state: LspServerState;
    pid?: number;
    /** Resident memory of the server process (and its children) when last sampled. */
    rssBytes?: number;
    restarts: number;
    lastError?: string;
    /** Known once started: the server answers `textDocument/diagnostic`. */
    pullDiagnostics?: boolean;
    /** "built-in", "settings", ".lsp.json" or a plugin name: where the definition came from. */
    origin: string;
}

/** A running server, for requests about files it handles. */
export interface LspServerHandle {
    readonly name: string;
    /** Absolute real path of the project root it serves. */
    readonly root: string;
    readonly capabilities: ServerCapabilities;
    /**
     * Makes the server see `path` (absolute) as `text`, or as it is on disk
     * when `text` is absent: opens it the first time, sends a change after.
     */
    sync(path: string, text?: string): Promise<void>;
    /** One request; rejects on timeout, abort, a crash or an error answer. */
    request<R>(method: string, params: unknown, signal: AbortSignal): Promise<R>;
}

export interface DiagnosticsWait {
    signal: AbortSignal;
    /** Time allowed from the call until every server answered for the files. */
    budgetMs: number;
}

/** Diagnostics of a moment: per file, with the text they were computed on. */
export interface DiagnosticsView {
    /** Absolute path → its diagnostics (files the servers reported on, the asked ones always present). */
    byPath: ReadonlyMap<string, readonly LspDiagnostic[]>;
    /** Absolute path → the text the diagnostics describe (so a moved line is not a new problem). */
    text: ReadonlyMap<string, string>;
    /** False when the budget ran out (or a server failed) before every server answered. */
    complete: boolean;
}

export interface LanguageService {
    /** Every known server (found or not), for `/lsp` and `north doctor`. */
    status(): LspServerStatus[];
    /** Some server binary was found: the `lsp` tool is offered from the session's start. */
    hasServers(): boolean;
    /** True when a found, not disabled server handles the file's language. */
    handles(path: string): boolean;
    /**
     * The server for `path` (absolute), started on first use; null when none
     * handles it, it is disabled, or it did not start (its status says why).
     */
    serverFor(path: string, signal: AbortSignal): Promise<LspServerHandle | null>;
    /** Servers running now (workspace-wide queries go to each). */
    running(): LspServerHandle[];
    /**
     * Syncs `paths` (absolute) from disk into their servers and waits for
     * their diagnostics (pull where offered, else published ones matching the
     * version, else a settle window), within the budget; the view also holds
     * the latest diagnostics of other files the servers reported on. Null
     * when no server handles any of the paths.
     */
    diagnostics(paths: readonly string[], wait: DiagnosticsWait): Promise<DiagnosticsView | null>;
    /** Stops a plugin's servers for good (it was disabled or removed). */
    stopPlugin?(plugin: string): Promise<void>;
    /** Stops every server (shutdown, exit, then kill). */
    dispose(): Promise<void>;
}
