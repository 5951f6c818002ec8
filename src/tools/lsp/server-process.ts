/**
 * A language server's process: run in its own process group (so stopping it
 * also stops what it spawned, tsserver under typescript-language-server),
 * killed with North however North exits, the tail of its stderr kept for
 * error messages, and its stdout guarded: a message that grows past a bound
 * without ending (a server writing 100 MB, or garbage with no frame) ends the
 * process instead of North's memory.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Transform } from "node:stream";
import { atProcessExit } from "../../util/process-exit";
import { ownerEnv } from "../child-reaper";
import { killProcessGroup } from "../../util/process-group";

const STDERR_TAIL_CHARS = 2000;
/** Bytes read since the last whole message beyond which the server is stopped. */
export const MAX_PENDING_STDOUT_BYTES = 32 * 1024 * 1024;

export interface ServerProcessOptions {
    command: string;
    args: readonly string[];
    /** The complete environment of the child (the owner mark is added). */
    env: Record<string, string>;
    cwd: string;
    maxPendingBytes?: number;
}

export class ServerProcess {
    /** The server's stdout after the size guard: what the JSON-RPC reader reads. */
    readonly stdout: Transform;
    readonly exited: Promise<void>;
    private readonly child: ChildProcess;
    private stderrTail = "";
    private pendingBytes = 0;
    private failure: string | undefined;
    private exitText: string | undefined;
    private forgetExitKill: () => void = () => undefined;

    constructor(options: ServerProcessOptions) {
        const maxPending = options.maxPendingBytes ?? MAX_PENDING_STDOUT_BYTES;
        this.child = spawn(options.command, [...options.args], {
            cwd: options.cwd,
            env: { ...options.env, ...ownerEnv() },
            stdio: ["pipe", "pipe", "pipe"],
            detached: true,
        });
        const pid = this.child.pid;
        if (pid !== undefined)
            this.forgetExitKill = atProcessExit(() => killProcessGroup(pid, "SIGKILL"));
        this.exited = new Promise((resolve) => {
            this.child.once("error", (error) => {
                this.failure ??=
                    (error as NodeJS.ErrnoException).code === "ENOENT"
                        ? `command not found: ${options.command}`
                        : `cannot start ${options.command}: ${error.message}`;
                if (this.child.pid === undefined) resolve();
            });
            this.child.once("close", (code, signal) => {
                this.forgetExitKill();
                this.exitText = signal
                    ? `the process was killed by ${signal}`
                    : `the process exited with code ${code ?? "unknown"}`;
                resolve();
            });
        });
        this.stdout = new Transform({
            transform: (chunk: Buffer, _encoding, done) => {
                this.pendingBytes += chunk.length;
                if (this.pendingBytes <= maxPending) {
                    done(null, chunk);
                    return;
                }
                this.fail(
                    `it sent more than ${Math.round(maxPending / 1048576)} MB without a complete message`
                );
                done();
            },
        });
        this.child.stdout?.pipe(this.stdout);
        this.child.stderr?.setEncoding("utf8");
        this.child.stderr?.on("data", (text: string) => {
            this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_CHARS);
        });
        // Writes to a server that died fail with EPIPE; its exit reports it.
        this.child.stdin?.on("error", () => undefined);
    }

    get pid(): number | undefined {
        return this.child.pid;
    }

    get stdin(): NodeJS.WritableStream {
        if (!this.child.stdin) throw new Error("language server has no stdin");
        return this.child.stdin;
    }

    get hasExited(): boolean {
        return (
            this.exitText !== undefined || (this.failure !== undefined && this.pid === undefined)
        );
    }

    /** A whole message arrived: the bytes before it are no longer pending. */
    messageArrived(): void {
        this.pendingBytes = 0;
    }

    /** Records why the server is unusable and kills it. */
    fail(reason: string): void {
        this.failure ??= reason;
        this.kill();
    }

    kill(): void {
        const pid = this.child.pid;
        if (pid !== undefined && !this.hasExited) killProcessGroup(pid, "SIGKILL");
    }

    /** Waits up to `ms` for the exit; then SIGTERM, then SIGKILL to the group. */
    async stop(ms: number): Promise<void> {
        const pid = this.child.pid;
        if (pid === undefined || this.hasExited) return;
        const waitExit = (): Promise<boolean> =>
            new Promise((resolve) => {
                const timer = setTimeout(() => resolve(false), ms);
                void this.exited.then(() => {
                    clearTimeout(timer);
                    resolve(true);
                });
            });
        this.child.stdin?.end();
        if (await waitExit()) return;
        killProcessGroup(pid, "SIGTERM");
        if (await waitExit()) return;
        killProcessGroup(pid, "SIGKILL");
        await this.exited;
    }

    /** Why the process failed or ended, and what it last said on stderr. */
    describe(): string {
        const parts = [this.failure, this.exitText].filter((part) => part !== undefined);
        const stderr = this.stderrTail.trim();
        if (stderr) parts.push(`stderr: ${stderr.split("\n").slice(-5).join(" | ")}`);
        return parts.join("; ");
    }
}
