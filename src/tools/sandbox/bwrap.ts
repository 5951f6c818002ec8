/**
 * Linux: the command runs under bubblewrap. The whole filesystem is mounted
 * read-only with fresh /dev and /proc; /run is an empty tmpfs and /tmp,
 * /var/tmp, /dev/shm and the runtime dir are the session's own folders; the
 * project and the user's extra folders are mounted writable again, then the
 * project's protected configuration and git program files read-only on top,
 * and any socket still visible is covered. `--unshare-pid` makes
 * bwrap the init of the command's processes, so when the command ends,
 * everything it started (setsid, nohup, double fork) is killed by the kernel;
 * `--die-with-parent` does the same if North dies. Without the network the
 * command runs in the session's network namespace (session-network.ts joins
 * it before bwrap starts): the loopback the session's commands share, nothing
 * else.
 * No `--new-session`: the service already starts each command in a session of
 * its own (no terminal), and its process-group kill must reach inside. A tty
 * process's session has a terminal: North's own pty, made for it alone, which
 * the command keeps as its controlling terminal (`/dev/tty`, job control,
 * Ctrl+C); `--dev` binds it as /dev/console and shows no other terminal.
 */
import { spawn } from "node:child_process";

export const BWRAP = "bwrap";

/** What to mount for one command; every path absolute, real and existing (mount points aside). */
export interface BwrapLayout {
    root: string;
    /**
     * The session's private folders and where each is mounted: /tmp, /var/tmp, /dev/shm, the
     * runtime dir, the control dir (those of the first three the machine has).
     */
    privateFolders: readonly (readonly [source: string, target: string])[];
    /** The user's extra writable folders. */
    writable: readonly string[];
    /** Git dirs: bound onto themselves (writable), so none can be renamed away and replaced. */
    gitDirs: readonly string[];
    /** Protected configuration and git program files inside the writable places, read-only. */
    readOnly: readonly string[];
    /**
     * Folders of host sockets (/run: docker.sock, the D-Bus system bus, /run/user…) replaced by
     * an empty tmpfs: a read-only mount still lets a command connect to a socket in it.
     */
    hidden: readonly string[];
    /** Folders inside /tmp and the like shown again read-only ($HOME in a test set-up). */
    shownReadOnly: readonly string[];
    /** Sockets still visible (in the project, under $HOME): covered by /dev/null. */
    sockets: readonly string[];
    network: boolean;
    /**
     * Without the network: the command already runs in the session's network namespace
     * (session-network.ts), so it makes none of its own.
     */
    joinsSessionNetwork?: boolean;
    cwd: string;
}

/** Namespace flags shared by the probe and real runs, so the probe proves what a run needs. */
function isolationArgs(ownNetwork: boolean): string[] {
    return [
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        // Also cuts abstract Unix sockets (X11's, some D-Bus buses): they live in the namespace.
        ...(ownNetwork ? ["--unshare-net"] : []),
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
        ...isolationArgs(!layout.network && layout.joinsSessionNetwork !== true),
        ...layout.hidden.flatMap((dir) => ["--tmpfs", dir]),
        // systemd-resolved's resolv.conf lives in /run: name lookups need it back.
        ...(layout.network && layout.hidden.includes("/run")
            ? ["--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve"]
            : []),
        ...layout.privateFolders.flatMap(([source, target]) => ["--bind", source, target]),
        ...layout.shownReadOnly.flatMap((dir) => bind("--ro-bind", dir)),
        ...bind("--bind", layout.root),
        ...layout.writable.flatMap((dir) => bind("--bind", dir)),
        ...layout.gitDirs.flatMap((dir) => bind("--bind", dir)),
        ...layout.readOnly.flatMap((path) => bind("--ro-bind", path)),
        ...layout.sockets.flatMap((path) => ["--ro-bind", "/dev/null", path]),
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
        const child = spawn(bwrap, [...isolationArgs(!network), "--", "true"], {
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
