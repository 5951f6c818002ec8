/**
 * macOS: the command runs under `sandbox-exec -p <profile>`. The profile
 * allows everything but writes (outside the project, the session's folder,
 * the user's extra folders and the few devices a shell writes to), connecting
 * to Unix sockets outside the session's folder and the project (tmux,
 * ssh-agent, docker.sock, …; DNS's mDNSResponder stays when the network is
 * allowed) and, unless allowed, the network but loopback. Protected configuration inside
 * the project stays read-only, and the protected files and git program files
 * that do not exist cannot be created (Seatbelt matches a path that does not
 * exist yet, which a mount cannot). Seatbelt has no mount namespace, so /tmp
 * is not replaced (TMPDIR points into the session's folder), and no process
 * namespace: daemons are left to the service's group kill and exit hook.
 * Nor a network namespace: the loopback a sandboxed dev server listens on,
 * for the session's next command to reach, is the machine's, so without the
 * network a command still reaches any server on 127.0.0.1 (the Linux sandbox
 * gives each session a loopback of its own instead).
 */

export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

export interface SeatbeltLayout {
    root: string;
    tempDir: string;
    writable: readonly string[];
    readOnly: readonly string[];
    /**
     * Paths as named (links not followed) that may not be created, changed or removed: protected
     * files and git program files that do not exist yet, and those that are links.
     */
    unwritable: readonly string[];
    network: boolean;
}

/** A regex literal in SBPL matching `path` and anything below it. */
function subpathRegex(path: string): string {
    const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return `#"^${escaped.replace(/"/g, '\\"')}(/|$)"`;
}

/** A string literal in SBPL (a Scheme dialect): backslashes and double quotes escaped. */
export function sbplString(value: string): string {
    return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** The profile text; paths must be real (macOS's /tmp is /private/tmp). */
export function seatbeltProfile(layout: SeatbeltLayout): string {
    const writable = [layout.root, layout.tempDir, ...layout.writable];
    const lines = [
        "(version 1)",
        "(allow default)",
        "(deny file-write*)",
        "(allow file-write*",
        "    (require-all",
        "        (require-any",
        ...writable.map((dir) => `            (subpath ${sbplString(dir)})`),
        "        )",
        ...layout.readOnly.map((path) => `        (require-not (subpath ${sbplString(path)}))`),
        "    )",
        ")",
        '(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper"))',
        '(allow file-write* (regex #"^/dev/tty") (regex #"^/dev/fd/"))',
        ...layout.unwritable.map((path) => `(deny file-write* (subpath ${sbplString(path)}))`),
        // A read-only path does not stop connect(): sockets outside the session and project are cut.
        "(deny network-outbound (remote unix-socket))",
        "(allow network-outbound (remote unix-socket",
        ...[layout.root, layout.tempDir].map((dir) => `    (path-regex ${subpathRegex(dir)})`),
        ...(layout.network ? ['    (path-literal "/private/var/run/mDNSResponder")'] : []),
        "))",
    ];
    if (!layout.network) {
        lines.push(
            "(deny network-outbound (remote ip))",
            "(deny network-inbound (local ip))",
            "(deny network-bind (local ip))",
            // Background processes: a server on 127.0.0.1 and the commands that reach it.
            '(allow network-bind (local ip "localhost:*"))',
            '(allow network-inbound (local ip "localhost:*"))',
            '(allow network-outbound (remote ip "localhost:*"))'
        );
    }
    return lines.join("\n") + "\n";
}
