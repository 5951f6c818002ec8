/**
 * The user's Unix sockets, which a sandboxed command must not reach: a
 * read-only mount does not stop `connect()`, and a socket is a door to a
 * process outside (tmux's `run-shell`, ssh-agent, D-Bus, docker.sock). The
 * folders that hold most of them (/tmp, /var/tmp, /dev/shm, /run, the runtime
 * dir) are replaced inside the sandbox (bwrap.ts); any other socket that is
 * still visible is covered by a bind of /dev/null, so `connect()` is refused.
 * They are found in /proc/net/unix (every socket bound to a path in North's
 * network namespace) and in the folders under $HOME where agents keep theirs.
 * Abstract sockets have no path: only the network namespace cuts them.
 */
import { readFileSync, readdirSync, realpathSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { isPathInside } from "../../util/read-regular-file";
import { lstatQuiet } from "./path-probe";

/** Folders under $HOME where agents and daemons keep sockets (ssh control masters, gpg-agent, …). */
const HOME_SOCKET_DIRS = [
    ".ssh",
    ".gnupg",
    ".docker",
    ".screen",
    ".tmux",
    ".rd",
    ".colima",
    ".lima",
    ".orbstack",
    ".emacs.d",
    ".local/share/containers",
];

/**
 * Variables that name a socket outside or a display: dropped from the command's
 * environment so nothing even tries (the sockets themselves are hidden anyway).
 */
export const SOCKET_ENV = [
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_AGENT_INFO",
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_SYSTEM_BUS_ADDRESS",
    "DISPLAY",
    "XAUTHORITY",
    "WAYLAND_DISPLAY",
    "WAYLAND_SOCKET",
    "TMUX",
    "TMUX_PANE",
    "TMUX_TMPDIR",
    "STY",
    "DOCKER_HOST",
    "CONTAINER_HOST",
    "PODMAN_HOST",
    "KITTY_LISTEN_ON",
    "NVIM",
    "NVIM_LISTEN_ADDRESS",
    "VSCODE_IPC_HOOK_CLI",
    "VSCODE_GIT_IPC_HANDLE",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
];

function isSocket(path: string): boolean {
    return lstatQuiet(path)?.isSocket() ?? false;
}

/** Paths of sockets bound in this network namespace, from /proc/net/unix (the last column). */
function boundSocketPaths(procNetUnix: string): string[] {
    let text: string;
    try {
        text = readFileSync(procNetUnix, "utf8");
    } catch {
        return [];
    }
    const paths: string[] = [];
    for (const line of text.split("\n")) {
        const slash = line.indexOf(" /");
        if (slash >= 0) paths.push(line.slice(slash + 1));
    }
    return paths;
}

/** Sockets in `dir` and the folders below it, `depth` levels down. */
function socketsBelow(dir: string, depth: number, out: string[]): void {
    if (lstatQuiet(dir) === undefined) return;
    let entries;
    try {
        entries = readdirSync(dir, { withFileTypes: true });
    } catch {
        return;
    }
    for (const entry of entries) {
        const path = join(dir, entry.name);
        if (entry.isSocket()) out.push(path);
        else if (entry.isDirectory() && depth > 0) socketsBelow(path, depth - 1, out);
    }
}

export interface SocketScope {
    home: string;
    /** Folders replaced inside the sandbox: what is below them is already out of reach. */
    replaced: readonly string[];
    /** Folders shown again inside replaced ones (a project under /tmp): their sockets count. */
    shown: readonly string[];
    /** Default /proc/net/unix; tests point it elsewhere. */
    procNetUnix?: string;
}

/** Real paths of the sockets to cover with /dev/null inside the sandbox, each once. */
export function hostSockets(scope: SocketScope): string[] {
    const candidates = boundSocketPaths(scope.procNetUnix ?? "/proc/net/unix");
    for (const dir of HOME_SOCKET_DIRS) socketsBelow(join(scope.home, dir), 2, candidates);
    const found = new Set<string>();
    for (const candidate of candidates) {
        if (!isAbsolute(candidate) || !isSocket(candidate)) continue;
        let real: string;
        try {
            real = realpathSync(candidate);
        } catch {
            continue;
        }
        const visible =
            scope.shown.some((dir) => isPathInside(dir, real)) ||
            !scope.replaced.some((dir) => isPathInside(dir, real));
        if (visible) found.add(real);
    }
    return [...found];
}
