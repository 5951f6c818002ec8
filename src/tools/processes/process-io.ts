/**
 * The program under a background process. With pipes: spawned detached in a
 * process group of its own (like shell-process.ts), stdin a pipe, stdout and
 * stderr delivered in order as they come. A tty command runs in a
 * pseudo-terminal (pty-io.ts) and falls back to pipes, with a note for the
 * model, where no pty can be had. A foreground command moved to the
 * background (Ctrl+B) hands its child over as a `PipeIo` too.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { killProcessGroup } from "../../util/process-group";
import { NON_INTERACTIVE_ENV } from "../shell-env";
import { DEFAULT_PTY_COLS, DEFAULT_PTY_ROWS, type PtyLoader, spawnPtyIo } from "./pty-io";
import type { HeadlessTerminalScreen } from "./terminal-screen";
import type { ProcessIo, ProcessIoOptions } from "./types";

/** After the program exits, how long its pipes may keep delivering (a background writer holds them). */
const DRAIN_MS = 80;

type ExitListener = (exitCode: number | null, signal: string | null) => void;

/** A spawned (or handed over) child behind pipes. */
export class PipeIo implements ProcessIo {
    readonly tty = false;
    readonly pid: number | undefined;
    private readonly dataListeners: ((chunk: Buffer) => void)[] = [];
    private readonly exitListeners: ExitListener[] = [];
    /** Output that came before anyone listened. */
    private early: Buffer[] = [];
    private exit: { code: number | null; signal: string | null } | null = null;
    private openStreams: number;
    private drainTimer: NodeJS.Timeout | undefined;
    private reported = false;

    constructor(
        private readonly child: ChildProcess,
        private readonly streams: Readable[],
        private readonly stdin: Writable | null
    ) {
        this.pid = child.pid;
        this.openStreams = streams.length;
        for (const stream of streams) {
            stream.on("data", (chunk: Buffer) => this.deliver(chunk));
            stream.on("error", () => undefined);
            stream.on("close", () => {
                this.openStreams--;
                if (this.exit !== null && this.openStreams === 0) this.report();
            });
        }
        stdin?.on("error", () => undefined);
        child.on("error", (error) => {
            this.deliver(Buffer.from(`North could not start the command: ${error.message}\n`));
            this.exit ??= { code: null, signal: null };
            this.report();
        });
        child.on("exit", (code, signal) => {
            this.exit = { code, signal };
            if (this.openStreams === 0) return this.report();
            this.drainTimer = setTimeout(() => this.report(), DRAIN_MS);
        });
        // A handed-over child may already have exited.
        if (child.exitCode !== null || child.signalCode !== null) {
            this.exit = { code: child.exitCode, signal: child.signalCode };
            this.drainTimer = setTimeout(() => this.report(), DRAIN_MS);
        }
    }

    onData(listener: (chunk: Buffer) => void): void {
        this.dataListeners.push(listener);
        const early = this.early;
        this.early = [];
        for (const chunk of early) listener(chunk);
    }

    onExit(listener: ExitListener): void {
        if (this.reported && this.exit) listener(this.exit.code, this.exit.signal);
        else this.exitListeners.push(listener);
    }

    write(data: string | Buffer): void {
        if (!this.stdin || this.stdin.destroyed || this.stdin.writableEnded) {
            throw new Error("its input is closed");
        }
        this.stdin.write(data);
    }

    endInput(): void {
        if (this.stdin && !this.stdin.writableEnded) this.stdin.end();
    }

    kill(signal: NodeJS.Signals): void {
        if (this.pid !== undefined) killProcessGroup(this.pid, signal);
    }

    private deliver(chunk: Buffer): void {
        if (this.reported) return;
        if (this.dataListeners.length === 0) this.early.push(chunk);
        for (const listener of this.dataListeners) listener(chunk);
    }

    private report(): void {
        if (this.reported) return;
        this.reported = true;
        clearTimeout(this.drainTimer);
        for (const stream of this.streams) stream.destroy();
        this.stdin?.destroy();
        const { code, signal } = this.exit ?? { code: null, signal: null };
        for (const listener of this.exitListeners) listener(code, signal);
        this.exitListeners.length = 0;
    }
}

/** Spawns `options` with pipes, in a process group of its own. */
export function spawnPipeIo(options: ProcessIoOptions): PipeIo {
    const child = spawn(options.file, options.args, {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
    });
    const streams = [child.stdout, child.stderr].filter(
        (stream): stream is Readable => stream !== null
    );
    return new PipeIo(child, streams, child.stdin);
}

/** The program's io, and why it is not what was asked (a tty that fell back to pipes). */
export interface CreatedProcessIo {
    io: ProcessIo;
    /** A pty's screen, which its reads show. */
    screen?: HeadlessTerminalScreen;
    note?: string;
}

/** Starts the program: in a pty when `options.tty` and one can be had, else with pipes. */
export async function createProcessIo(
    options: ProcessIoOptions,
    loadPty?: PtyLoader
): Promise<CreatedProcessIo> {
    if (!options.tty) return { io: spawnPipeIo(options) };
    let io: ProcessIo;
    try {
        io = await spawnPtyIo(options, loadPty);
    } catch (error) {
        const reason = (error instanceof Error ? error.message : String(error)).replace(/\.$/, "");
        // No terminal after all: no editor may open, git may not prompt (as for any command).
        const env = { ...options.env, ...NON_INTERACTIVE_ENV };
        return {
            io: spawnPipeIo({ ...options, env, tty: false }),
            note: `No terminal: ${reason}. It runs with pipes instead: reads show its raw output and keys are sent as bytes.`,
        };
    }
    // The emulator loads with the first tty process, like the pty library.
    const { createTerminalScreen } = await import("./terminal-screen");
    const screen = createTerminalScreen(
        options.cols ?? DEFAULT_PTY_COLS,
        options.rows ?? DEFAULT_PTY_ROWS,
        // The program's queries (cursor position, device attributes) are answered.
        { onReply: (data) => io.write(data) }
    );
    return { io, screen };
}
