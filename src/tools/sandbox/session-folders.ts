/**
 * One North session's private temporary folders, shared by its sandboxed
 * commands and by nobody else: inside the sandbox they are /tmp, /var/tmp,
 * /dev/shm and $XDG_RUNTIME_DIR, so a command sees neither the user's sockets
 * there (tmux, screen, X11, Wayland, D-Bus, gpg-agent) nor other programs'
 * files, and what it leaves in /tmp is there for the session's next command.
 * They live in the shell service's folder ($TMPDIR/north-shell-XXXXXX, 0700),
 * removed when the session ends; a crash leaves at most that folder.
 */
import { chmodSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/** Where the service's control files (the working directory after each command) are seen inside. */
export const SANDBOX_CONTROL_DIR = "/run/north";

export interface SessionFolders {
    tmp: string;
    varTmp: string;
    shm: string;
    runtime: string;
    /** Mounted at SANDBOX_CONTROL_DIR. */
    control: string;
}

export function sessionFolders(base: string): SessionFolders {
    return {
        tmp: join(base, "tmp"),
        varTmp: join(base, "var-tmp"),
        shm: join(base, "shm"),
        runtime: join(base, "runtime"),
        control: join(base, "control"),
    };
}

/** Creates them in `base` (the service's own 0700 folder); owner-only, like a runtime dir must be. */
export function createSessionFolders(base: string): SessionFolders {
    const folders = sessionFolders(base);
    for (const dir of Object.values(folders)) mkdirSync(dir, { recursive: true, mode: 0o700 });
    return folders;
}

/** Lets the owner into every folder below `dir` (a command may have left one read-only). */
function unlockFolders(dir: string): void {
    try {
        chmodSync(dir, 0o700);
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
            if (entry.isDirectory()) unlockFolders(join(dir, entry.name));
        }
    } catch {
        // gone, or not ours: rmSync says what is left
    }
}

/**
 * Removes the service's folder, even when a command left read-only folders in
 * its /tmp (`chmod 500`, a Go module cache); never throws: it runs on exit.
 */
export function removeServiceFolder(dir: string): void {
    try {
        rmSync(dir, { recursive: true, force: true });
    } catch {
        unlockFolders(dir);
        try {
            rmSync(dir, { recursive: true, force: true });
        } catch {
            // not ours to remove (another user's file): left in the temp dir
        }
    }
}
