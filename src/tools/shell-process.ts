/**
 * One run of bash in its own process group (setsid), stdin closed, stdout and
 * stderr merged into bounded memory. On timeout, on abort and when bash exits,
 * the whole group is killed, grandchildren included; a process-wide exit hook
 * kills whatever is still running (and removes the shell's temp folders) when
 * North exits.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import type { Readable } from "node:stream";
import { removeServiceFolder } from "./sandbox/session-folders";
import { atProcessExit } from "../util/process-exit";
import { HeadTailBuffer } from "./shell-output";
import { killProcessGroup } from "../util/process-group";
import { PipeIo } from "./processes/process-io";

/** After SIGTERM, how long the group gets before SIGKILL. */
const KILL_GRACE_MS = 250;
/** After a kill, resolve even if bash has not reported its exit (a process stuck in the kernel). */
const KILL_GIVE_UP_MS = 800;
/** After bash exits, how long the pipe may keep delivering (a background writer holds it). */
const DRAIN_MS = 80;

/** A shell's temp folder, removed at North's exit; the returned function forgets it. */
export function removeAtExit(dir: string): () => void {
    return atProcessExit(() => removeServiceFolder(dir));
}

/**
 * SIGTERM now, SIGKILL after the grace period; the group stays tracked until then.
 * Returns false when the group was already empty.
 */
function stopGroup(pgid: number, forget: () => void): boolean {
    if (!killProcessGroup(pgid, "SIGTERM")) {
        forget();
        return false;
    }
    const timer = setTimeout(() => {
        killProcessGroup(pgid, "SIGKILL");
        forget();
    }, KILL_GRACE_MS);
    timer.unref();
    return true;
}

/** The program that runs the wrapper: bash itself, or the sandbox around it. */
export interface ShellProgram {
    file: string;
    args: string[];
}

export interface RawRun {
    exitCode: number | null;
    signal: NodeJS.Signals | null;
    timedOut: boolean;
    cancelled: boolean;
    /** Processes of the group outlived bash (background jobs) and were stopped. */
    leftovers: boolean;
    spawnError?: string;
    /** The editor's terminal kept only the end of the output (shell-client-run.ts). */
    startDropped?: boolean;
    buffer: HeadTailBuffer;
    /** Moved to the background while running (Ctrl+B): the program, still running, behind this io. */
    detached?: PipeIo;
}

export interface SpawnOptions {
    cwd: string;
    env: NodeJS.ProcessEnv;
    timeoutMs: number;
    signal?: AbortSignal;
    onOutput?: (text: string) => void;
    /** Firing hands the running program over (`RawRun.detached`) instead of waiting for its end. */
    detach?: AbortSignal;
}

/** Runs `program` to its end (or its kill); never rejects. */
export function spawnShell(program: ShellProgram, options: SpawnOptions): Promise<RawRun> {
    return new Promise((resolve) => new ShellProcess(program, options, resolve));
}

/** One spawned group, from spawn to the settled `RawRun`. */
class ShellProcess {
    private readonly run: RawRun = {
        exitCode: null,
        signal: null,
        timedOut: false,
        cancelled: false,
        leftovers: false,
        buffer: new HeadTailBuffer(),
    };
    private readonly child: ChildProcess;
    private readonly pgid: number | undefined;
    /** Forgets the exit hook's kill of this group, once the group is gone. */
    private forgetGroup: () => void = () => undefined;
    private readonly streams: Readable[];
    private openStreams: number;
    private exited = false;
    private settled = false;
    private readonly timers: NodeJS.Timeout[] = [];
    /** One decoder per stream: a character split across chunks is not garbled. */
    private readonly decoders = new Map<Readable, StringDecoder>();
    private readonly onAbort = (): void => {
        if (this.run.timedOut || this.exited) return;
        this.run.cancelled = true;
        this.terminate();
    };
    private readonly onDetach = (): void => this.handOver();
    private readonly onExit = (code: number | null, exitSignal: NodeJS.Signals | null): void => {
        this.exited = true;
        this.run.exitCode = code;
        this.run.signal = exitSignal;
        for (const timer of this.timers) clearTimeout(timer);
        if (this.openStreams === 0) return this.settle();
        this.timers.push(setTimeout(() => this.settle(), DRAIN_MS));
    };
    private readonly dataListeners = new Map<Readable, (chunk: Buffer) => void>();

    constructor(
        program: ShellProgram,
        private readonly options: SpawnOptions,
        private readonly resolve: (run: RawRun) => void
    ) {
        this.child = spawn(program.file, program.args, {
            cwd: options.cwd,
            env: options.env,
            detached: true,
            stdio: ["ignore", "pipe", "pipe"],
        });
        this.pgid = this.child.pid;
        const pgid = this.pgid;
        if (pgid !== undefined)
            this.forgetGroup = atProcessExit(() => killProcessGroup(pgid, "SIGKILL"));
        this.streams = [this.child.stdout, this.child.stderr].filter(
            (stream): stream is Readable => stream !== null
        );
        this.openStreams = this.streams.length;
        this.listen();
        this.timers.push(
            setTimeout(() => {
                if (this.exited || this.run.cancelled) return;
                this.run.timedOut = true;
                this.terminate();
            }, options.timeoutMs)
        );
        if (options.signal?.aborted) this.onAbort();
        else options.signal?.addEventListener("abort", this.onAbort, { once: true });
        options.detach?.addEventListener("abort", this.onDetach, { once: true });
    }

    private listen(): void {
        for (const stream of this.streams) {
            const onData = (chunk: Buffer): void => this.onData(stream, chunk);
            this.dataListeners.set(stream, onData);
            stream.on("data", onData);
            stream.on("error", () => undefined);
            stream.on("close", () => {
                this.openStreams--;
                if (this.exited && this.openStreams === 0) this.settle();
            });
        }
        this.child.on("error", (error) => {
            this.run.spawnError = error.message;
            this.exited = true;
            this.settle();
        });
        this.child.on("exit", this.onExit);
    }

    private onData(stream: Readable, chunk: Buffer): void {
        if (this.settled) return;
        this.run.buffer.push(chunk);
        const onOutput = this.options.onOutput;
        if (!onOutput) return;
        let decoder = this.decoders.get(stream);
        if (!decoder) this.decoders.set(stream, (decoder = new StringDecoder("utf8")));
        const text = decoder.write(chunk);
        if (text !== "") onOutput(text);
    }

    private terminate(): void {
        const pgid = this.pgid;
        if (pgid === undefined || this.exited || this.settled) return;
        killProcessGroup(pgid, "SIGTERM");
        this.timers.push(setTimeout(() => killProcessGroup(pgid, "SIGKILL"), KILL_GRACE_MS));
        this.timers.push(setTimeout(() => this.settle(), KILL_GIVE_UP_MS));
    }

    /**
     * Ctrl+B: the running program leaves this run with its output so far;
     * from now on its io (and whoever adopts it) owns it, kills included.
     */
    private handOver(): void {
        if (this.exited || this.settled || this.run.cancelled || this.run.timedOut) return;
        this.settled = true;
        for (const timer of this.timers) clearTimeout(timer);
        this.options.signal?.removeEventListener("abort", this.onAbort);
        this.child.off("exit", this.onExit);
        for (const [stream, onData] of this.dataListeners) stream.off("data", onData);
        // The adopter registers its own kill at exit.
        this.forgetGroup();
        this.run.detached = new PipeIo(this.child, this.streams, null);
        this.resolve(this.run);
    }

    private settle(): void {
        if (this.settled) return;
        this.settled = true;
        for (const timer of this.timers) clearTimeout(timer);
        this.options.signal?.removeEventListener("abort", this.onAbort);
        this.options.detach?.removeEventListener("abort", this.onDetach);
        for (const stream of this.streams) stream.destroy();
        // Whatever the command left behind (background jobs) goes with it.
        const leftovers = this.pgid !== undefined && stopGroup(this.pgid, this.forgetGroup);
        if (leftovers && !this.run.timedOut && !this.run.cancelled) this.run.leftovers = true;
        this.resolve(this.run);
    }
}
