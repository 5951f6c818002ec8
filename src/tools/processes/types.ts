/**
 * Background processes (issue 35): commands that outlive their tool call. One
 * `ProcessTable` per shell service (so per conversation's toolset) holds them:
 * started by `shell_run` with `background: true` (or a running command moved
 * there with Ctrl+B), read, waited for, typed into and stopped by the process
 * tools, listed and stopped by the front-ends through the engine's ops, and
 * all killed when North exits. Output lives in a bounded ring per process,
 * spilled to a 0600 file under North's data folder beyond it.
 */

/** "p1", "p2", ...: numbered per table, never reused within it. */
export type ProcessId = string;

export type ProcessState = "running" | "exited";

/** A process as lists, events and results show it (plain data, safe to log). */
export interface ProcessInfo {
    id: ProcessId;
    /** The command line as the model (or the user) gave it. */
    command: string;
    /** Absolute directory it started in. */
    cwd: string;
    /** Runs in a pseudo-terminal (`tty: true`); reads show the screen. */
    tty: boolean;
    /** Runs in the OS sandbox. */
    sandboxed: boolean;
    /** The process group leader's pid on this machine (absent in an editor's terminal). */
    pid?: number;
    /** The editor's terminal it runs in (ACP's `terminalId`); absent in North's own. */
    terminalId?: string;
    state: ProcessState;
    /** Set once exited: bash's exit status, or null when a signal ended it. */
    exitCode?: number | null;
    signal?: string | null;
    /** Stopped by process_stop, /ps, the end of a run or North's exit (not its own end). */
    stopped?: boolean;
    /** Epoch milliseconds. */
    startedAt: number;
    endedAt?: number;
    /** Every byte the process printed. */
    outputBytes: number;
    /** Where the output beyond the in-memory ring is kept (0600; removed when North exits). */
    spillPath?: string;
    /** Who started it: the model's tool call id, or "user" (Ctrl+B keeps the call's id). */
    origin: string;
}

/** What a read returns. Cursors are per table: the model's reads and a front-end's views do not share one. */
export interface ReadRequest {
    /**
     * "new": output since this reader's last read (the default);
     * "tail": the last `lines` lines; "grep": lines matching `pattern` (a JS regex).
     */
    mode: "new" | "tail" | "grep";
    lines?: number;
    pattern?: string;
    /** Whose cursor "new" moves: "model" (the tools) or "view" (a front-end). Default "model". */
    reader?: "model" | "view";
}

export interface ReadResult {
    process: ProcessInfo;
    /** Plain text: escapes removed; for a tty process the screen as a terminal shows it. */
    text: string;
    /** A tty process: `text` is the current screen (rows × cols), not a log. */
    screen?: boolean;
    /**
     * A tty's cursor on its screen, 1-based (row 1 is the top; a row past the
     * text is a blank one). The model's reads fold runs of filler rows (`~`,
     * blank) into one line saying how many rows it stands for.
     */
    cursor?: { row: number; col: number };
    /**
     * "new": output between the last read and what the ring still holds, not
     * shown (read `spillPath`); "tail": the output before the ring; "grep":
     * the output before what the spill file (and ring) still keep, not searched.
     */
    droppedBytes?: number;
    /** The text was cut to the tool's limit; the rest is in `spillPath`. */
    truncated?: boolean;
}

export interface WaitRequest {
    /** "exit", or a JS regex a new output line must match. */
    until: "exit" | { pattern: string };
    timeoutMs: number;
}

export interface WaitResult extends ReadResult {
    /** "exited", "matched" (with the line), or "timeout" (still running). */
    outcome: "exited" | "matched" | "timeout";
    matchedLine?: string;
}

/** Input for a running process: text (a line needs its own "\n"), named keys, or end of input. */
export interface ProcessInput {
    text?: string;
    /** Names such as "enter", "ctrl+c", "ctrl+d", "esc", "up", "tab" (see pty keys). */
    keys?: string[];
    /** Close stdin (pipe) / send Ctrl+D (tty). */
    eof?: boolean;
}

/** A short notice for the model's next request (and the status line while it waits). */
export interface ProcessNotice {
    process: ProcessInfo;
    /** "exited", or "matched": a line matched a pattern the model asked to watch. */
    kind: "exited" | "matched";
    pattern?: string;
    /** The matching line, or the last few lines before the exit (plain text, bounded). */
    lines: string[];
}

export type ProcessEvent =
    | { type: "started"; process: ProcessInfo }
    | { type: "exited"; process: ProcessInfo }
    /** A notice is waiting for the next request. */
    | { type: "notice"; notice: ProcessNotice }
    /** A tty process asks for a password: the user answers in a masked field (see `sendSecret`). */
    | { type: "secret_prompt"; process: ProcessInfo; prompt: string };

/** Thrown (or returned as a tool error) with a message the model reads. */
export class ProcessError extends Error {
    constructor(
        readonly code: "not_found" | "exited" | "limit" | "invalid" | "unsupported",
        message: string
    ) {
        super(message);
    }
}

/** Default for the `processes.max` setting: running processes per session. */
export const DEFAULT_MAX_PROCESSES = 8;

export interface ProcessTable {
    /** Running first (oldest first), then finished ones (newest first). */
    list(): ProcessInfo[];
    get(id: ProcessId): ProcessInfo | undefined;
    running(): number;
    read(id: ProcessId, request: ReadRequest): ReadResult;
    wait(id: ProcessId, request: WaitRequest, signal: AbortSignal): Promise<WaitResult>;
    /** Throws ProcessError "exited" for a process that has ended. */
    send(id: ProcessId, input: ProcessInput): Promise<void>;
    /**
     * The prompt (e.g. "[sudo] password for ann:") when the process waits for a
     * password, passphrase or PIN, else undefined: process_send types no plain
     * text into it, the user answers (sendSecret).
     */
    secretPrompt(id: ProcessId): Promise<string | undefined>;
    /**
     * The user's answer to a password prompt: straight to the process, never
     * into events, logs, the transcript or the model's context.
     */
    sendSecret(id: ProcessId, secret: string): Promise<void>;
    /** SIGTERM to the group, SIGKILL after a grace period; resolves with the final info. */
    stop(id: ProcessId): Promise<ProcessInfo>;
    /** A notice when a new output line matches `pattern` (once per match burst). */
    watch(id: ProcessId, pattern: string): void;
    subscribe(listener: (event: ProcessEvent) => void): () => void;
    /** The notices waiting for the next request; taking them clears them. */
    takeNotices(): ProcessNotice[];
    pendingNotices(): number;
    /** Kills every running process now (synchronous: runs at exit). */
    stopAll(): void;
}

/** The program under a background process: pipes (process-io.ts) or a pseudo-terminal (pty-io.ts). */
export interface ProcessIo {
    /** The process group leader's pid (absent in an editor's terminal). */
    readonly pid: number | undefined;
    readonly tty: boolean;
    /** The editor's terminal it runs in (client-terminal-io.ts); absent in North's own. */
    readonly terminalId?: string;
    onData(listener: (chunk: Buffer) => void): void;
    onExit(listener: (exitCode: number | null, signal: string | null) => void): void;
    write(data: string | Buffer): void;
    /** Close stdin (pipes); a pty sends Ctrl+D. */
    endInput(): void;
    /** Signal the whole process group. */
    kill(signal: NodeJS.Signals): void;
    resize?(cols: number, rows: number): void;
}

export interface ProcessIoOptions {
    file: string;
    args: string[];
    cwd: string;
    env: NodeJS.ProcessEnv;
    tty: boolean;
    cols?: number;
    rows?: number;
}

/** What a tty process's output looks like on a terminal (a headless emulator). */
export interface TerminalScreen {
    write(chunk: Buffer | string): void;
    /** The visible rows as plain text, trailing blanks trimmed. */
    text(): string;
    /** The row the cursor is on (a prompt waiting for input). */
    cursorLine(): string;
    resize(cols: number, rows: number): void;
    dispose(): void;
}
