/**
 * Linux: the command runs under bubblewrap. The whole filesystem is mounted
 * read-only with fresh /dev and /proc; the project, the service's private
 * temp dir and the user's extra folders are mounted writable again, then the
 * project's protected configuration read-only on top. `--unshare-pid` makes
 * bwrap the init of the command's processes, so when the command ends,
 * everything it started (setsid, nohup, double fork) is killed by the kernel;
 * `--die-with-parent` does the same if North dies. Without the network the
 * command gets its own network namespace: only its own, empty loopback.
 * No `--new-session`: the service already starts each command in a session of
 * its own (no terminal), and its process-group kill must reach inside.
 */
import { spawn } from "node:child_process";

export const BWRAP = "bwrap";

/** What to mount for one command; every path absolute, real and existing. */
export interface BwrapLayout {
    root: string;
    /** The service's private dir: pwd files and the command's TMPDIR. */
    tempDir: string;
    /** The user's extra writable folders. */
    writable: readonly string[];
    /** Protected configuration inside the writable places, mounted read-only. */
    readOnly: readonly string[];
    /**
     * Folders of host sockets (/run: docker.sock, the D-Bus system bus…) replaced by an
     * empty tmpfs: a read-only mount still lets a command connect to a socket in it.
     */
    hidden: readonly string[];
    network: boolean;
    cwd: string;
}

/** Namespace flags shared by the probe and real runs, so the probe proves what a run needs. */
function isolationArgs(network: boolean): string[] {
    return [
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        ...(network ? [] : ["--unshare-net"]),
        "--unshare-pid",
        "--die-with-parent",
        // Run by root, bwrap keeps every capability: the command could remount / read-write.
        "--cap-drop",
        "ALL",
    ];
}

/** bwrap's arguments up to and including `--`; the command's argv follows. */
export function bwrapArgs(layout: BwrapLayout): string[] {
    const bind = (flag: string, path: string): string[] => [flag, path, path];
    return [
        ...isolationArgs(layout.network),
        ...layout.hidden.flatMap((dir) => ["--tmpfs", dir]),
        // systemd-resolved's resolv.conf lives in /run: name lookups need it back.
        ...(layout.network && layout.hidden.includes("/run")
            ? ["--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve"]
            : []),
        ...bind("--bind", layout.root),
        ...bind("--bind", layout.tempDir),
        ...layout.writable.flatMap((dir) => bind("--bind", dir)),
        ...layout.readOnly.flatMap((path) => bind("--ro-bind", path)),
        "--chdir",
        layout.cwd,
        "--",
    ];
}

export type ProbeResult = { ok: true } | { ok: false; reason: string };

/** How long the probe may take before bubblewrap counts as unusable. */
const PROBE_TIMEOUT_MS = 10_000;

/** Runs `true` under the same isolation: proves bwrap exists and may create its namespaces here. */
export function probeBwrap(network: boolean, bwrap = BWRAP): Promise<ProbeResult> {
    return new Promise((resolve) => {
        let stderr = "";
        let done = false;
        const finish = (result: ProbeResult): void => {
            if (done) return;
            done = true;
            clearTimeout(timer);
            resolve(result);
        };
        const child = spawn(bwrap, [...isolationArgs(network), "--", "true"], {
            stdio: ["ignore", "ignore", "pipe"],
        });
        const timer = setTimeout(() => {
            child.kill("SIGKILL");
            finish({ ok: false, reason: `${bwrap} did not finish a test run within 10 s` });
        }, PROBE_TIMEOUT_MS);
        timer.unref();
        child.stderr.setEncoding("utf8").on("data", (text: string) => {
            if (stderr.length < 2000) stderr += text;
        });
        child.on("error", (error) => {
            const code = (error as NodeJS.ErrnoException).code;
            finish({
                ok: false,
                reason:
                    code === "ENOENT"
                        ? `${bwrap} is not installed (Debian/Ubuntu package bubblewrap)`
                        : `${bwrap} could not start: ${error.message}`,
            });
        });
        child.on("close", (code, signal) => {
            if (code === 0) return finish({ ok: true });
            const detail = stderr.trim().split("\n")[0] || `exit ${code ?? signal}`;
            finish({
                ok: false,
                reason: `${bwrap} cannot create its namespaces here (${detail})`,
            });
        });
    });
}
