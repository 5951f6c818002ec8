/**
 * Runs one hook command: `bash -c <command>` in its own process group, the
 * event JSON on stdin, output captured (bounded), the whole group killed on
 * timeout or abort. Whatever it leaves running (setsid daemons too) dies with North.
 */
import { spawn } from "node:child_process";
import { ownerEnv } from "../../tools/child-reaper";
import { killProcessGroup } from "../../util/process-group";

/** Each of stdout and stderr keeps at most this many characters. */
const MAX_CAPTURE_CHARS = 1024 * 1024;
const KILL_GRACE_MS = 1000;
/** After exit, how long to wait for output still in the pipes (a background child may hold them). */
const DRAIN_MS = 200;

export interface HookProcessResult {
    exitCode: number | null;
    stdout: string;
    stderr: string;
    timedOut: boolean;
    aborted: boolean;
    /** Set when bash itself could not start. */
    spawnError?: string;
    durationMs: number;
}

export interface HookProcessOptions {
    cwd: string;
    /** The complete environment (already without North's secrets); the owner mark is added. */
    env: Record<string, string>;
    timeoutMs: number;
    signal?: AbortSignal;
}

/** The hook's group, else the hook alone (its group may already be gone). */
function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
    if (pid === undefined || killProcessGroup(pid, signal)) return;
    try {
        process.kill(pid, signal);
    } catch {
        // Already gone.
    }
}

export function runHookProcess(
    command: string,
    stdin: string,
    options: HookProcessOptions
): Promise<HookProcessResult> {
    const started = performance.now();
    return new Promise((resolve) => {
        let stdout = "";
        let stderr = "";
        let timedOut = false;
        let aborted = false;
        let settled = false;
        let exitCode: number | null = null;
        let killTimer: NodeJS.Timeout | undefined;
        let drainTimer: NodeJS.Timeout | undefined;

        const child = spawn("bash", ["-c", command], {
            cwd: options.cwd,
            env: { ...options.env, ...ownerEnv() },
            stdio: ["pipe", "pipe", "pipe"],
            detached: true,
        });

        const finish = (spawnError?: string): void => {
            if (settled) return;
            settled = true;
            clearTimeout(timeoutTimer);
            clearTimeout(killTimer);
            clearTimeout(drainTimer);
            options.signal?.removeEventListener("abort", onAbort);
            resolve({
                exitCode,
                stdout,
                stderr,
                timedOut,
                aborted,
                durationMs: Math.round(performance.now() - started),
                ...(spawnError !== undefined ? { spawnError } : {}),
            });
        };

        const terminate = (): void => {
            killGroup(child.pid, "SIGTERM");
            killTimer = setTimeout(() => killGroup(child.pid, "SIGKILL"), KILL_GRACE_MS);
        };
        const onAbort = (): void => {
            aborted = true;
            terminate();
        };
        const timeoutTimer = setTimeout(() => {
            timedOut = true;
            terminate();
        }, options.timeoutMs);
        if (options.signal?.aborted) onAbort();
        else options.signal?.addEventListener("abort", onAbort, { once: true });

        child.stdout.setEncoding("utf8");
        child.stderr.setEncoding("utf8");
        child.stdout.on("data", (text: string) => {
            if (stdout.length < MAX_CAPTURE_CHARS)
                stdout += text.slice(0, MAX_CAPTURE_CHARS - stdout.length);
        });
        child.stderr.on("data", (text: string) => {
            if (stderr.length < MAX_CAPTURE_CHARS)
                stderr += text.slice(0, MAX_CAPTURE_CHARS - stderr.length);
        });
        child.on("error", (error) => finish(error.message));
        child.on("exit", (code) => {
            exitCode = code;
            drainTimer = setTimeout(() => finish(), DRAIN_MS);
        });
        child.on("close", () => finish());
        // Hooks that never read stdin make the write fail with EPIPE; that is fine.
        child.stdin.on("error", () => undefined);
        child.stdin.end(stdin);
    });
}
