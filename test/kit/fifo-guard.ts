import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";

/**
 * A FIFO at `path` that cannot hang a test for good: a guard process waits
 * `afterSeconds`, records that it fired, then opens the FIFO read-write
 * (which never blocks, even when no reader is left), releasing a reader
 * blocked in open(2). Code that never blocks is
 * done long before the guard fires, so `fired()` stays false; code that
 * blocks is released and the test fails on `fired()` instead of hanging.
 */
export interface GuardedFifo {
    fired: () => boolean;
    /** Kills the guard (its whole process group). */
    stop: () => void;
}

export function guardedFifo(path: string, afterSeconds = 60): GuardedFifo {
    execFileSync("mkfifo", [path]);
    const marker = `${path}.guard-fired`;
    const child: ChildProcess = spawn(
        "sh",
        ["-c", `sleep ${afterSeconds}; : > "$1"; exec 3<>"$2"`, "guard", marker, path],
        { detached: true, stdio: "ignore" }
    );
    child.unref();
    return {
        fired: () => existsSync(marker),
        stop: () => {
            try {
                if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
            } catch {
                // Already gone.
            }
        },
    };
}
