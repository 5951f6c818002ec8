/**
 * macOS: the command runs under `sandbox-exec -p <profile>`. The profile
 * allows everything but writes (outside the project, the private temp dir,
 * the user's extra folders and the few devices a shell writes to) and, unless
 * allowed, the network (Unix sockets stay, so local tools that talk through
 * one keep working). Protected configuration inside the project stays
 * read-only. Seatbelt has no process namespace: daemons are left to the
 * service's group kill and exit hook.
 */

export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

export interface SeatbeltLayout {
    root: string;
    tempDir: string;
    writable: readonly string[];
    readOnly: readonly string[];
    network: boolean;
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
    ];
    if (!layout.network) {
        lines.push(
            "(deny network-outbound (remote ip))",
            "(deny network-inbound (local ip))",
            "(deny network-bind (local ip))"
        );
    }
    return lines.join("\n") + "\n";
}
