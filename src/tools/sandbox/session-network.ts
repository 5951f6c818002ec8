/**
 * Without the network, one North session's sandboxed commands share one
 * network namespace: a dev server started by one command is reached on
 * 127.0.0.1 by the next (background processes, issue 35), while nothing
 * reaches out, as before. A command's own `--unshare-net` would give each one
 * an empty loopback of its own.
 *
 * The namespace is made once per shell service (per session folder) by a
 * short-lived bubblewrap run with `--unshare-net` (bwrap brings loopback up;
 * run by a user, it makes a user namespace that owns the network one), whose
 * `--info-fd` names its child. North opens the child's namespace files and
 * keeps them open (so the namespaces live as long as North, and a reused pid
 * can never be mistaken for them), links them from the session folder, and
 * lets the maker exit. Each command is `nsenter --net=<link> [--user=<link>
 * --preserve-credentials] bwrap …` (util-linux): joined first, then bwrap
 * without `--unshare-net` (as a user, in a user namespace nested in the
 * session's). When North dies, the kernel closes the files: nothing is left
 * but what the last commands still hold.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { BWRAP } from "./bwrap";

export const NSENTER = "nsenter";

/** How long a command waits for its session's namespace before it gives up (the machine is loaded). */
const WAIT_LIMIT_TICKS = 3000;

/** Names in the service's folder: links to North's open namespace files, or why there are none. */
const NET_LINK = "netns";
const USER_LINK = "userns";
const ERROR_FILE = "netns-error";

/**
 * Waits (10 ms steps) for the namespace link, then runs the rest: only the
 * service's first command, started while the namespace is being made, needs
 * it. "bwrap: " starts a failure, as bubblewrap's own (the service's note).
 */
const WAIT_SCRIPT =
    'n=0; while [ ! -e "$1" ]; do ' +
    'if [ -e "$2" ]; then printf "bwrap: %s\\n" "$(cat "$2")" >&2; exit 1; fi; ' +
    `n=$((n+1)); if [ "$n" -gt ${WAIT_LIMIT_TICKS} ]; then ` +
    'echo "bwrap: the session\'s network namespace was not made in time" >&2; exit 1; fi; ' +
    'sleep 0.01; done; shift 2; exec "$@"';

interface SessionNamespace {
    ready: boolean;
    /** North's open namespace files (closed when the session folder is gone). */
    fds: number[];
}

export interface SessionNetworksOptions {
    bwrap?: string;
    nsenter?: string;
    /** Root makes no user namespace: it may join the network one directly. */
    asRoot?: boolean;
}

/** The session namespaces of one sandbox, one per service folder. */
export class SessionNetworks {
    private readonly sessions = new Map<string, SessionNamespace>();
    private readonly bwrap: string;
    private readonly nsenter: string;
    private readonly asRoot: boolean;

    constructor(options: SessionNetworksOptions = {}) {
        this.bwrap = options.bwrap ?? BWRAP;
        this.nsenter = options.nsenter ?? NSENTER;
        this.asRoot = options.asRoot ?? process.getuid?.() === 0;
    }

    /**
     * The program that runs `argv` (bwrap and its arguments) inside the
     * namespace of the service whose folder is `sessionDir`; the first call
     * starts making it. `env` carries the service's owner mark.
     */
    wrap(
        sessionDir: string,
        env: NodeJS.ProcessEnv,
        argv: readonly string[]
    ): { file: string; args: string[] } {
        let session = this.sessions.get(sessionDir);
        if (session === undefined) {
            this.forgetRemovedSessions();
            session = { ready: false, fds: [] };
            this.sessions.set(sessionDir, session);
            this.make(sessionDir, env, session);
        }
        const netLink = join(sessionDir, NET_LINK);
        const enter = [
            `--net=${netLink}`,
            ...(this.asRoot
                ? []
                : [`--user=${join(sessionDir, USER_LINK)}`, "--preserve-credentials"]),
            "--",
            ...argv,
        ];
        if (session.ready) return { file: this.nsenter, args: enter };
        return {
            file: "sh",
            args: [
                "-c",
                WAIT_SCRIPT,
                "north-wait",
                netLink,
                join(sessionDir, ERROR_FILE),
                this.nsenter,
                ...enter,
            ],
        };
    }

    /** Starts the maker; its child's namespaces are opened and linked once it reports. */
    private make(sessionDir: string, env: NodeJS.ProcessEnv, session: SessionNamespace): void {
        const child = spawn(
            this.bwrap,
            [
                "--unshare-net",
                "--ro-bind",
                "/",
                "/",
                "--die-with-parent",
                "--info-fd",
                "3",
                "--",
                "cat",
            ],
            // A session of its own: Ctrl+C in North's terminal must not end it halfway.
            { stdio: ["pipe", "ignore", "pipe", "pipe"], env, cwd: "/", detached: true }
        );
        let info = "";
        let stderr = "";
        let settled = false;
        const fail = (reason: string): void => {
            if (settled) return;
            settled = true;
            child.kill("SIGKILL");
            try {
                writeFileSync(join(sessionDir, ERROR_FILE), reason);
            } catch {
                // the service's folder is gone: nobody waits
            }
        };
        const open = (pid: number): void => {
            if (settled) return;
            try {
                // User first: a waiting command takes the network link as the sign both are there.
                if (!this.asRoot) this.link(session, `/proc/${pid}/ns/user`, sessionDir, USER_LINK);
                this.link(session, `/proc/${pid}/ns/net`, sessionDir, NET_LINK);
            } catch (error) {
                fail(`cannot keep the session's network namespace: ${(error as Error).message}`);
                return;
            }
            settled = true;
            session.ready = true;
            // Its job is done: the open files keep the namespaces.
            child.stdin?.end();
        };
        child.on("error", (error) => fail(`${this.bwrap} could not start: ${error.message}`));
        child.stderr?.setEncoding("utf8").on("data", (text: string) => {
            if (stderr.length < 2000) stderr += text;
        });
        const infoStream = child.stdio[3] as Readable | null;
        infoStream?.setEncoding("utf8").on("data", (text: string) => {
            info += text;
            const pid = childPidOf(info);
            if (pid !== undefined) open(pid);
        });
        child.on("close", (code, signal) => {
            const detail = stderr
                .trim()
                .replace(/^bwrap: /, "")
                .split("\n")[0];
            const status = detail || `exit ${code ?? signal}`;
            fail(`the session's network namespace could not be made (${status})`);
        });
    }

    /** Opens a namespace file for good and links it from the session folder. */
    private link(session: SessionNamespace, nsPath: string, dir: string, name: string): void {
        const fd = openSync(nsPath, "r");
        session.fds.push(fd);
        symlinkSync(`/proc/${process.pid}/fd/${fd}`, join(dir, name));
    }

    /** Closes the namespaces of services whose folder was removed (disposed). */
    private forgetRemovedSessions(): void {
        for (const [dir, session] of this.sessions) {
            if (existsSync(dir)) continue;
            for (const fd of session.fds) closeSync(fd);
            this.sessions.delete(dir);
        }
    }
}

/** bwrap's `--info-fd` JSON, once complete: `{ "child-pid": 123, ... }`. */
function childPidOf(info: string): number | undefined {
    try {
        const parsed = JSON.parse(info) as { "child-pid"?: unknown };
        const pid = parsed["child-pid"];
        return typeof pid === "number" && Number.isInteger(pid) && pid > 0 ? pid : undefined;
    } catch {
        return undefined; // not all of it yet
    }
}

/** Whether nsenter is here to join the session's namespaces (util-linux; Alpine: util-linux-misc). */
export function probeNsenter(
    nsenter = NSENTER
): Promise<{ ok: true } | { ok: false; reason: string }> {
    return new Promise((resolve) => {
        const child = spawn(nsenter, ["--version"], { stdio: "ignore" });
        child.on("error", (error) =>
            resolve({
                ok: false,
                reason:
                    (error as NodeJS.ErrnoException).code === "ENOENT"
                        ? `${nsenter} is not installed (util-linux)`
                        : `${nsenter} could not start: ${error.message}`,
            })
        );
        child.on("close", (code) =>
            resolve(
                code === 0 ? { ok: true } : { ok: false, reason: `${nsenter} --version failed` }
            )
        );
    });
}
