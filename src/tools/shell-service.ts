/**
 * Runs bash commands for one project. Each call spawns `bash -c` in its own process
 * group (setsid), with stdin closed, stdout and stderr merged into one pipe and a
 * non-interactive environment. The working directory persists across calls: a small
 * wrapper records `pwd -P` in an EXIT trap (a temp file), so the command's own output
 * and exit code are untouched. Output is kept in bounded memory (first and last 64 KB).
 * On timeout, on abort and when bash exits, the whole group is killed, grandchildren
 * included; a process-wide exit hook kills whatever is still running when North exits.
 * Processes that left the group on purpose (setsid, daemons) may outlive their command
 * but not the service: dispose() and North's exit kill them too (see child-reaper).
 * The environment holds no provider keys. With a sandbox (sandbox/), bash runs
 * inside it: the same wrapper, output, exit code and kills, plus the session's private /tmp.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { StringDecoder } from "node:string_decoder";
import path from "node:path";
import { PROVIDER_SECRET_ENV, childEnv } from "../util/child-env";
import { newOwnerTag, ownerEnv, reapOwned } from "./child-reaper";
import { isPathInside } from "../util/read-regular-file";
import { SHELL_HEAD_BYTES, SHELL_TAIL_BYTES } from "./limits";
import {
    type CommandSandbox,
    SandboxUnavailableError,
    unavailableMessage,
} from "./sandbox/command-sandbox";
import { removeServiceFolder } from "./sandbox/session-folders";

/** Bytes kept from the start and from the end of a command's output. */
export { SHELL_HEAD_BYTES, SHELL_TAIL_BYTES };
export const DEFAULT_SHELL_TIMEOUT_MS = 60_000;

/** After SIGTERM, how long the group gets before SIGKILL. */
const KILL_GRACE_MS = 250;
/** After a kill, resolve even if bash has not reported its exit (a process stuck in the kernel). */
const KILL_GIVE_UP_MS = 800;
/** After bash exits, how long the pipe may keep delivering (a background writer holds it). */
const DRAIN_MS = 80;

export interface ShellRunOptions {
    /** Default 60 000. */
    timeoutMs?: number;
    /** Aborting kills the command's process group; the result has `cancelled: true`. */
    signal?: AbortSignal;
    /** The output as it comes (stdout and stderr, UTF-8), for a live view. */
    onOutput?: (text: string) => void;
}

export interface ShellRunResult {
    /** Exit code of bash (the command's status; 127 = command not found), null if killed by a signal. */
    exitCode: number | null;
    /** The signal that ended bash, when it was killed (timeout, cancel). */
    signal?: string;
    /** stdout and stderr merged in order; head and tail only when `truncated`. */
    output: string;
    durationMs: number;
    timedOut: boolean;
    cancelled: boolean;
    /** Working directory after the command, relative to the project root ("." for the root). */
    cwd: string;
    /** True when the middle of the output was dropped. */
    truncated: boolean;
    /** Output bytes not kept (the middle). */
    droppedBytes: number;
    /** Something the model should know: working directory reset, timeout, stopped background work. */
    note?: string;
}

export interface ShellService {
    /** Runs one command; calls are serialized so the working directory is well defined. */
    run(command: string, options?: ShellRunOptions): Promise<ShellRunResult>;
    /** Absolute working directory the next command starts in. */
    readonly cwd: string;
    /** What the sandbox allows, when commands run in one (see sandbox/). */
    readonly sandbox?: string;
    /** Kills anything still running and removes the service's temp files. */
    dispose(): void;
}

// ---------------------------------------------------------------------------
// Process groups alive in this process, killed by one exit hook.

const liveGroups = new Set<number>();
const liveTempDirs = new Set<string>();
let exitHookInstalled = false;

function killGroup(pgid: number, signal: NodeJS.Signals): boolean {
    try {
        process.kill(-pgid, signal);
        return true;
    } catch {
        return false; // ESRCH: the group is gone
    }
}

function onProcessExit(): void {
    for (const pgid of liveGroups) killGroup(pgid, "SIGKILL");
    liveGroups.clear();
    for (const dir of liveTempDirs) removeServiceFolder(dir);
    liveTempDirs.clear();
}

function installExitHook(): void {
    if (exitHookInstalled) return;
    exitHookInstalled = true;
    process.on("exit", onProcessExit);
}

/**
 * SIGTERM now, SIGKILL after the grace period; the group stays tracked until then.
 * Returns false when the group was already empty.
 */
function stopGroup(pgid: number): boolean {
    if (!killGroup(pgid, "SIGTERM")) {
        liveGroups.delete(pgid);
        return false;
    }
    const timer = setTimeout(() => {
        killGroup(pgid, "SIGKILL");
        liveGroups.delete(pgid);
    }, KILL_GRACE_MS);
    timer.unref();
    return true;
}

// ---------------------------------------------------------------------------
// Bounded output: a fixed head buffer and a ring buffer for the tail.

/** Collects a byte stream keeping the first `headSize` and the last `tailSize` bytes. */
export class HeadTailBuffer {
    private readonly head: Buffer;
    private headLength = 0;
    private readonly tail: Buffer;
    /** Next write position in the ring. */
    private tailPos = 0;
    private tailLength = 0;
    /** Every byte pushed. */
    total = 0;

    constructor(headSize = SHELL_HEAD_BYTES, tailSize = SHELL_TAIL_BYTES) {
        this.head = Buffer.allocUnsafe(headSize);
        this.tail = Buffer.allocUnsafe(tailSize);
    }

    push(chunk: Buffer): void {
        this.total += chunk.length;
        let offset = 0;
        if (this.headLength < this.head.length) {
            offset = Math.min(this.head.length - this.headLength, chunk.length);
            chunk.copy(this.head, this.headLength, 0, offset);
            this.headLength += offset;
            if (offset === chunk.length) return;
        }
        const size = this.tail.length;
        const rest = chunk.length - offset;
        if (rest >= size) {
            chunk.copy(this.tail, 0, chunk.length - size);
            this.tailPos = 0;
            this.tailLength = size;
            return;
        }
        const first = Math.min(rest, size - this.tailPos);
        chunk.copy(this.tail, this.tailPos, offset, offset + first);
        if (first < rest) chunk.copy(this.tail, 0, offset + first, chunk.length);
        this.tailPos = (this.tailPos + rest) % size;
        this.tailLength = Math.min(size, this.tailLength + rest);
    }

    /** Decodes once: invalid UTF-8 becomes U+FFFD, control characters are neutralized. */
    finish(): { output: string; truncated: boolean; droppedBytes: number } {
        const head = this.head.subarray(0, this.headLength);
        const tail =
            this.tailLength < this.tail.length
                ? this.tail.subarray(0, this.tailLength)
                : Buffer.concat([
                      this.tail.subarray(this.tailPos),
                      this.tail.subarray(0, this.tailPos),
                  ]);
        if (this.total === this.headLength + this.tailLength) {
            return {
                output: cleanText(Buffer.concat([head, tail]).toString("utf8")),
                truncated: false,
                droppedBytes: 0,
            };
        }
        // Cut on character boundaries so the marker does not split a character.
        const headEnd = completeUtf8End(head);
        const tailStart = firstUtf8Start(tail);
        const droppedBytes = this.total - headEnd - (tail.length - tailStart);
        const marker =
            `\n[... ${droppedBytes} bytes of output omitted; showing the first ` +
            `${Math.round(head.length / 1024)} KB and the last ${Math.round(tail.length / 1024)} KB ...]\n`;
        const output =
            cleanText(head.subarray(0, headEnd).toString("utf8")) +
            marker +
            cleanText(tail.subarray(tailStart).toString("utf8"));
        return { output, truncated: true, droppedBytes };
    }
}

/** Length of `buf` without a trailing incomplete UTF-8 sequence. */
function completeUtf8End(buf: Buffer): number {
    for (let i = buf.length - 1; i >= 0 && i >= buf.length - 4; i--) {
        const byte = buf[i]!;
        if ((byte & 0xc0) === 0x80) continue; // continuation
        const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
        return buf.length - i >= need ? buf.length : i;
    }
    return buf.length;
}

/** Index of the first byte of `buf` that is not a UTF-8 continuation byte (at most 3 skipped). */
function firstUtf8Start(buf: Buffer): number {
    let i = 0;
    while (i < 3 && i < buf.length && (buf[i]! & 0xc0) === 0x80) i++;
    return i;
}

// eslint-disable-next-line no-control-regex -- matching terminal escape sequences is the point
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
// eslint-disable-next-line no-control-regex -- control characters other than \t \n \r
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/** Drops terminal escape sequences; other control bytes (binary output) become U+FFFD. */
function cleanText(text: string): string {
    return text.replace(ANSI, "").replace(CONTROL, "\uFFFD");
}

// ---------------------------------------------------------------------------

function shellQuote(value: string): string {
    return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * One line, so bash's messages say "line 1". The command arrives as $1 and runs
 * through eval in this shell, so `cd` and `exit` behave as typed; the EXIT trap
 * records the final directory without touching the exit status or the output.
 */
function wrapperScript(pwdFile: string): string {
    const trap = `pwd -P > ${shellQuote(pwdFile)} 2>/dev/null`;
    return `exec 2>&1; trap ${shellQuote(trap)} EXIT; __north_cmd=$1; set --; eval "$__north_cmd"`;
}

/** The inherited environment without North's secrets, made non-interactive and marked. */
function shellEnv(
    base: NodeJS.ProcessEnv,
    hidden: readonly string[],
    ownerTag: string
): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
        ...childEnv(base, hidden),
        ...ownerEnv(ownerTag),
        PAGER: "cat",
        GIT_PAGER: "cat",
        GIT_TERMINAL_PROMPT: "0",
        GIT_EDITOR: "true",
        EDITOR: "true",
        VISUAL: "true",
        NO_COLOR: "1",
    };
    delete env.FORCE_COLOR;
    delete env.CLICOLOR_FORCE;
    return env;
}

interface RawRun {
    exitCode: number | null;
    signal: NodeJS.Signals | null;
    timedOut: boolean;
    cancelled: boolean;
    /** Processes of the group outlived bash (background jobs) and were stopped. */
    leftovers: boolean;
    spawnError?: string;
    buffer: HeadTailBuffer;
}

/** The program that runs the wrapper: bash itself, or the sandbox around it. */
interface ShellProgram {
    file: string;
    args: string[];
}

function bashProgram(command: string, pwdFile: string): ShellProgram {
    return { file: "bash", args: ["-c", wrapperScript(pwdFile), "bash", command] };
}

function spawnBash(
    program: ShellProgram,
    cwd: string,
    env: NodeJS.ProcessEnv,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    onOutput?: (text: string) => void
): Promise<RawRun> {
    return new Promise((resolve) => {
        const buffer = new HeadTailBuffer();
        const run: RawRun = {
            exitCode: null,
            signal: null,
            timedOut: false,
            cancelled: false,
            leftovers: false,
            buffer,
        };
        const child = spawn(program.file, program.args, {
            cwd,
            env,
            detached: true,
            stdio: ["ignore", "pipe", "pipe"],
        });
        const pgid = child.pid;
        if (pgid !== undefined) {
            installExitHook();
            liveGroups.add(pgid);
        }
        const streams = [child.stdout, child.stderr];
        let openStreams = streams.length;
        let exited = false;
        let settled = false;
        const timers: NodeJS.Timeout[] = [];

        const settle = (): void => {
            if (settled) return;
            settled = true;
            for (const timer of timers) clearTimeout(timer);
            signal?.removeEventListener("abort", onAbort);
            for (const stream of streams) stream.destroy();
            // Whatever the command left behind (background jobs) goes with it.
            const leftovers = pgid !== undefined && stopGroup(pgid);
            if (leftovers && !run.timedOut && !run.cancelled) run.leftovers = true;
            resolve(run);
        };
        const terminate = (): void => {
            if (pgid === undefined || exited || settled) return;
            killGroup(pgid, "SIGTERM");
            timers.push(setTimeout(() => killGroup(pgid, "SIGKILL"), KILL_GRACE_MS));
            timers.push(setTimeout(settle, KILL_GIVE_UP_MS));
        };
        const onAbort = (): void => {
            if (run.timedOut || exited) return;
            run.cancelled = true;
            terminate();
        };

        // One decoder per stream: a character split across chunks is not garbled.
        const decoders = new Map<unknown, StringDecoder>();
        const onData = (stream: unknown, chunk: Buffer): void => {
            if (settled) return;
            buffer.push(chunk);
            if (!onOutput) return;
            let decoder = decoders.get(stream);
            if (!decoder) decoders.set(stream, (decoder = new StringDecoder("utf8")));
            const text = decoder.write(chunk);
            if (text !== "") onOutput(text);
        };
        for (const stream of streams) {
            stream.on("data", (chunk: Buffer) => onData(stream, chunk));
            stream.on("error", () => undefined);
            stream.on("close", () => {
                openStreams--;
                if (exited && openStreams === 0) settle();
            });
        }
        child.on("error", (error) => {
            run.spawnError = error.message;
            exited = true;
            settle();
        });
        child.on("exit", (code, exitSignal) => {
            exited = true;
            run.exitCode = code;
            run.signal = exitSignal;
            for (const timer of timers) clearTimeout(timer);
            if (openStreams === 0) return settle();
            timers.push(setTimeout(settle, DRAIN_MS));
        });

        timers.push(
            setTimeout(() => {
                if (exited || run.cancelled) return;
                run.timedOut = true;
                terminate();
            }, timeoutMs)
        );
        if (signal?.aborted) onAbort();
        else signal?.addEventListener("abort", onAbort, { once: true });
    });
}

async function isDirectory(dir: string): Promise<boolean> {
    try {
        return (await fs.stat(dir)).isDirectory();
    } catch {
        return false;
    }
}

async function readPwd(file: string): Promise<string | null> {
    try {
        const text = await fs.readFile(file, "utf8");
        await fs.rm(file, { force: true });
        const dir = text.replace(/\n$/, "");
        return dir === "" ? null : dir;
    } catch {
        return null; // the command replaced bash (exec) or removed the trap
    }
}

function relativeDir(root: string, dir: string): string {
    const rel = path.relative(root, dir);
    return rel === "" ? "." : rel.split(path.sep).join("/");
}

function formatSeconds(ms: number): string {
    return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

export interface ShellServiceOptions {
    /** Variables kept from commands (provider keys); default the built-in ones. */
    hiddenEnv?: readonly string[];
    /** Run every command in this sandbox; refuse commands when it is unavailable. */
    sandbox?: CommandSandbox;
    /** Commands' base environment; default `process.env` (the Node API's `env` option). */
    env?: NodeJS.ProcessEnv;
}

/** bubblewrap's own failure (a mount it could not make): the command never started. */
const SANDBOX_START_ERROR = /^bwrap: (.*)/;

/** A shell service for the project at `repoRoot`; commands start at the root. */
export function createShellService(
    repoRoot: string,
    options: ShellServiceOptions = {}
): ShellService {
    const hiddenEnv = options.hiddenEnv ?? PROVIDER_SECRET_ENV;
    const baseEnv = options.env ?? process.env;
    const { sandbox } = options;
    // Found out now, in the background: the first command then rarely waits for it.
    if (sandbox) void sandbox.availability();
    const ownerTag = newOwnerTag();
    let ranCommand = false;
    let root: string;
    try {
        root = realpathSync(repoRoot);
    } catch {
        root = path.resolve(repoRoot);
    }
    let cwd = root;
    let disposed = false;
    let tempDir: string | null = null;
    let counter = 0;
    let queue: Promise<unknown> = Promise.resolve();
    const running = new Set<AbortController>();

    /** The next pwd file: where North reads it, and where the command's bash writes it. */
    function pwdFile(): { dir: string; file: string; inside: string } {
        if (tempDir === null) {
            tempDir = realpathSync(mkdtempSync(path.join(tmpdir(), "north-shell-")));
            installExitHook();
            liveTempDirs.add(tempDir);
            sandbox?.createSessionFolders(tempDir);
        }
        counter++;
        const name = `pwd-${counter}`;
        if (sandbox) {
            const [file, inside] = sandbox.controlPath(tempDir, name);
            return { dir: tempDir, file, inside };
        }
        const file = path.join(tempDir, name);
        return { dir: tempDir, file, inside: file };
    }

    async function runOne(command: string, options: ShellRunOptions): Promise<ShellRunResult> {
        const started = performance.now();
        const timeoutMs = options.timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS;
        const notes: string[] = [];
        if (cwd !== root && !(await isDirectory(cwd))) {
            notes.push(
                `The working directory ${relativeDir(root, cwd)} no longer exists; ` +
                    `the command ran in the project root instead.`
            );
            cwd = root;
        }
        const notRun = (cancelled: boolean, note: string): ShellRunResult => ({
            exitCode: null,
            output: "",
            durationMs: Math.round(performance.now() - started),
            timedOut: false,
            cancelled,
            cwd: relativeDir(root, cwd),
            truncated: false,
            droppedBytes: 0,
            note: [...notes, note].join(" "),
        });
        if (options.signal?.aborted) {
            return notRun(true, "Cancelled by the user before it started.");
        }
        if (cwd === root && !(await isDirectory(root))) {
            return notRun(false, `The project root ${root} no longer exists; nothing was run.`);
        }
        if (sandbox) {
            const available = await sandbox.availability();
            if (!available.ok)
                throw new SandboxUnavailableError(unavailableMessage(available.reason));
        }
        // A cancel that came during the look-ups above (an Esc right after the approval):
        // a listener added now would never hear it, and the command must not start.
        if (options.signal?.aborted) {
            return notRun(true, "Cancelled by the user before it started.");
        }
        // One controller per run: the caller's signal and dispose() both abort it.
        const controller = new AbortController();
        const forward = (): void => controller.abort();
        options.signal?.addEventListener("abort", forward, { once: true });
        running.add(controller);
        const { dir: runDir, file, inside } = pwdFile();
        const context = { root, sessionDir: runDir, cwd };
        ranCommand = true;
        let raw: RawRun;
        let finishSandboxed: (() => string | undefined) | undefined;
        try {
            const bash = bashProgram(command, inside);
            let program: ShellProgram = bash;
            let env = shellEnv(baseEnv, hiddenEnv, ownerTag);
            if (sandbox) {
                const run = sandbox.prepare([bash.file, ...bash.args], env, context);
                program = run;
                env = run.env;
                finishSandboxed = run.finish;
            }
            raw = await spawnBash(
                program,
                cwd,
                env,
                timeoutMs,
                controller.signal,
                options.onOutput
            );
        } finally {
            running.delete(controller);
            options.signal?.removeEventListener("abort", forward);
        }
        // Configuration the command created where a read-only mount could not stop it.
        const removedNote = finishSandboxed?.();
        if (removedNote !== undefined) notes.push(removedNote);

        const finalDir = await readPwd(file);
        if (finalDir !== null) {
            if (isPathInside(root, finalDir)) {
                cwd = finalDir;
            } else {
                notes.push(
                    `The command ended in ${finalDir}, outside the project; ` +
                        `the working directory is back at the project root.`
                );
                cwd = root;
            }
        }
        if (raw.spawnError !== undefined) notes.push(`bash could not start: ${raw.spawnError}.`);
        if (raw.timedOut) {
            notes.push(
                `Timed out after ${formatSeconds(timeoutMs)}; the command and its child processes ` +
                    `were killed. Run something shorter, or pass a larger timeoutMs (up to 600000).`
            );
        }
        if (raw.cancelled) notes.push("Cancelled by the user; the command was killed.");
        // In the sandbox the kernel ends them with the command, and bwrap's own exit races the check.
        if (raw.leftovers && !sandbox) {
            notes.push(
                "Background processes started by the command were stopped when it finished; " +
                    "long-running servers and watchers cannot be kept alive."
            );
        }
        const { output, truncated, droppedBytes } = raw.buffer.finish();
        if (sandbox && raw.exitCode !== 0 && !raw.timedOut && !raw.cancelled) {
            const startError = finalDir === null ? SANDBOX_START_ERROR.exec(output) : null;
            const note = startError
                ? `The sandbox could not start the command: ${startError[1]}.`
                : sandbox.blockedNote({ exitCode: raw.exitCode, output }, context);
            if (note !== undefined) notes.push(note);
        }
        const result: ShellRunResult = {
            exitCode: raw.exitCode,
            output,
            durationMs: Math.round(performance.now() - started),
            timedOut: raw.timedOut,
            cancelled: raw.cancelled,
            cwd: relativeDir(root, cwd),
            truncated,
            droppedBytes,
        };
        if (raw.signal !== null) result.signal = raw.signal;
        if (notes.length > 0) result.note = notes.join(" ");
        return result;
    }

    return {
        get cwd() {
            return cwd;
        },
        sandbox: sandbox?.description,
        run(command, options = {}) {
            if (disposed) return Promise.reject(new Error("the shell service was disposed"));
            const next = queue.then(() => {
                if (disposed) throw new Error("the shell service was disposed");
                return runOne(command, options);
            });
            queue = next.catch(() => undefined);
            return next;
        },
        dispose() {
            disposed = true;
            for (const controller of running) controller.abort();
            // Daemons the commands left behind (setsid, double fork) go with the service.
            if (ranCommand) reapOwned(ownerTag);
            if (tempDir !== null) {
                const dir = tempDir;
                // Let a run being cancelled read its file first.
                void queue.then(() => {
                    removeServiceFolder(dir);
                    liveTempDirs.delete(dir);
                });
            }
        },
    };
}
