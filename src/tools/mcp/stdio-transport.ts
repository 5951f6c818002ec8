/**
 * An MCP stdio client transport (the SDK's `Transport` contract) that runs the
 * server in its own process group, so `close()` also stops what it spawned
 * (`npx` → node, `uvx` → python), keeps the tail of stderr for error messages
 * instead of printing it over the UI, and tolerates non-protocol lines on
 * stdout (logged by careless servers) rather than failing. What the server
 * leaves running outside its group (a browser in a group of its own) dies with North.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { atProcessExit } from "../../util/process-exit";
import { ownerEnv } from "../child-reaper";

const STDERR_TAIL_CHARS = 2000;
/** A single message larger than this ends the connection. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const CLOSE_GRACE_MS = 1000;

export interface ProcessStdioOptions {
    command: string;
    args: string[];
    /** The complete environment of the child (the owner mark is added). */
    env: Record<string, string>;
    cwd?: string;
}

function killServerGroup(group: number): void {
    try {
        process.kill(process.platform === "win32" ? group : -group, "SIGKILL");
    } catch {
        // already gone
    }
}

export class ProcessStdioTransport implements Transport {
    /** Forgets the exit hook's kill of the server's group, once it closed. */
    private forgetGroup: () => void = () => undefined;
    onclose?: () => void;
    onerror?: (error: Error) => void;
    onmessage?: (message: JSONRPCMessage) => void;

    private child?: ChildProcess;
    private chunks: Buffer[] = [];
    private bufferedBytes = 0;
    private stderrTail = "";
    private noiseLine: string | undefined;
    private noiseCount = 0;
    private exitCode: number | null = null;
    private exitSignal: NodeJS.Signals | null = null;
    private exited = false;
    private spawnError: Error | undefined;
    private readonly exitPromise: Promise<void>;
    private resolveExit!: () => void;

    constructor(private readonly options: ProcessStdioOptions) {
        this.exitPromise = new Promise((resolve) => (this.resolveExit = resolve));
    }

    get pid(): number | undefined {
        return this.child?.pid;
    }

    start(): Promise<void> {
        if (this.child) throw new Error("ProcessStdioTransport already started");
        return new Promise((resolve, reject) => {
            const child = spawn(this.options.command, this.options.args, {
                cwd: this.options.cwd,
                env: { ...this.options.env, ...ownerEnv() },
                stdio: ["pipe", "pipe", "pipe"],
                detached: process.platform !== "win32",
                windowsHide: true,
            });
            this.child = child;
            const pid = child.pid;
            // The server's group dies with North, however North exits.
            if (pid !== undefined) this.forgetGroup = atProcessExit(() => killServerGroup(pid));
            child.once("spawn", () => resolve());
            child.once("error", (error) => {
                this.spawnError = error;
                if (child.pid === undefined) {
                    this.markExited();
                    reject(error);
                } else {
                    this.onerror?.(error);
                }
            });
            child.once("close", (code, signal) => {
                this.forgetGroup();
                this.exitCode = code;
                this.exitSignal = signal;
                this.markExited();
                this.onclose?.();
            });
            child.stdout?.on("data", (chunk: Buffer) => this.onStdout(chunk));
            child.stderr?.setEncoding("utf8");
            child.stderr?.on("data", (text: string) => {
                this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_CHARS);
            });
            // A server that exits leaves writes failing with EPIPE; the close event reports it.
            child.stdin?.on("error", () => undefined);
        });
    }

    send(message: JSONRPCMessage): Promise<void> {
        const stdin = this.child?.stdin;
        if (!stdin || this.exited || stdin.destroyed) {
            return Promise.reject(new Error("the MCP server process is not running"));
        }
        return new Promise((resolve) => {
            if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
            else stdin.once("drain", () => resolve());
        });
    }

    /** Ends stdin, then SIGTERM and SIGKILL to the whole process group. */
    async close(): Promise<void> {
        const child = this.child;
        if (!child || this.exited) return;
        child.stdin?.end();
        if (await this.waitExit(CLOSE_GRACE_MS)) return;
        this.signal("SIGTERM");
        if (await this.waitExit(CLOSE_GRACE_MS)) return;
        this.signal("SIGKILL");
        await this.waitExit(CLOSE_GRACE_MS);
    }

    /** Why the process is gone (or what it last said), for error messages. */
    describeExit(): string {
        const parts: string[] = [];
        if (this.spawnError && this.child?.pid === undefined) {
            const code = (this.spawnError as NodeJS.ErrnoException).code;
            parts.push(
                code === "ENOENT"
                    ? `command not found: ${this.options.command}`
                    : `cannot start ${this.options.command}: ${this.spawnError.message}`
            );
        } else if (this.exited) {
            parts.push(
                this.exitSignal
                    ? `the process was killed by ${this.exitSignal}`
                    : `the process exited with code ${this.exitCode ?? "unknown"}`
            );
        }
        const stderr = this.stderrTail.trim();
        if (stderr) parts.push(`stderr: ${lastLines(stderr, 5)}`);
        if (this.noiseLine !== undefined) {
            parts.push(
                `it printed ${this.noiseCount} non-protocol line(s) on stdout, e.g. ${JSON.stringify(this.noiseLine.slice(0, 120))}`
            );
        }
        return parts.join("; ");
    }

    private markExited(): void {
        this.exited = true;
        this.resolveExit();
    }

    private waitExit(ms: number): Promise<boolean> {
        if (this.exited) return Promise.resolve(true);
        return new Promise((resolve) => {
            const timer = setTimeout(() => resolve(false), ms);
            void this.exitPromise.then(() => {
                clearTimeout(timer);
                resolve(true);
            });
        });
    }

    private signal(signal: NodeJS.Signals): void {
        const pid = this.child?.pid;
        if (pid === undefined) return;
        try {
            if (process.platform === "win32") this.child?.kill(signal);
            else process.kill(-pid, signal);
        } catch {
            try {
                this.child?.kill(signal);
            } catch {
                // Already gone.
            }
        }
    }

    private onStdout(chunk: Buffer): void {
        let start = 0;
        let newline = chunk.indexOf(10);
        while (newline !== -1) {
            const part = chunk.subarray(start, newline);
            const line =
                this.chunks.length > 0
                    ? Buffer.concat([...this.chunks, part]).toString("utf8")
                    : part.toString("utf8");
            this.chunks = [];
            this.bufferedBytes = 0;
            this.onLine(line.replace(/\r$/, ""));
            start = newline + 1;
            newline = chunk.indexOf(10, start);
        }
        if (start < chunk.length) {
            const rest = chunk.subarray(start);
            this.chunks.push(rest);
            this.bufferedBytes += rest.length;
            if (this.bufferedBytes > MAX_MESSAGE_BYTES) {
                this.chunks = [];
                this.bufferedBytes = 0;
                this.onerror?.(new Error("the MCP server sent a message larger than 64 MB"));
                void this.close();
            }
        }
    }

    private onLine(line: string): void {
        if (line.trim() === "") return;
        let parsed: unknown;
        try {
            parsed = JSON.parse(line);
        } catch {
            this.noise(line);
            return;
        }
        const message = JSONRPCMessageSchema.safeParse(parsed);
        if (!message.success) {
            this.noise(line);
            return;
        }
        this.onmessage?.(message.data);
    }

    private noise(line: string): void {
        this.noiseCount++;
        this.noiseLine ??= line;
    }
}

function lastLines(text: string, count: number): string {
    return text.split("\n").slice(-count).join(" | ");
}
