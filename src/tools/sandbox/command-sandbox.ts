/**
 * The OS sandbox the shell service runs commands in, when the user asked for
 * one: bubblewrap on Linux, sandbox-exec on macOS. Whether it works here is
 * found out once, by a test run started when the service is created (not
 * awaited, so start-up does not wait for it). If it does not work, commands
 * are refused with the reason; they never run unsandboxed instead. Without
 * the network, on Linux, a service's commands share one network namespace
 * (session-network.ts): loopback between them, nothing outside.
 */
import { existsSync, lstatSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { isPathInside } from "../../util/read-regular-file";
import { sandboxBlockedNote } from "./blocked-note";
import { BWRAP, type BwrapLayout, type ProbeResult, bwrapArgs, probeBwrap } from "./bwrap";
import { startCreatedCheck } from "./created-check";
import { gitDirOf, gitMounts } from "./git-mounts";
import { type GitlinkCache, startNestedGitCheck } from "./nested-git-check";
import { lstatQuiet } from "./path-probe";
import { SessionNetworks, probeNsenter } from "./session-network";
import { SOCKET_ENV, hostSockets } from "./host-sockets";
import { type SandboxPolicy, describeSandbox } from "./policy";
import { missingProtectedPaths, protectedEntries, protectedMounts } from "./protected-mounts";
import { SANDBOX_EXEC, seatbeltProfile } from "./seatbelt";
import {
    SANDBOX_CONTROL_DIR,
    type SessionFolders,
    createSessionFolders,
    sessionFolders,
} from "./session-folders";

export { type SandboxPolicy, describeSandbox } from "./policy";

/** Where one command runs; all absolute and real. */
export interface SandboxRunContext {
    root: string;
    /** The service's own folder ($TMPDIR/north-shell-XXXXXX): the session's folders are in it. */
    sessionDir: string;
    cwd: string;
}

/** One command, ready to spawn. */
export interface SandboxedRun {
    file: string;
    args: string[];
    env: NodeJS.ProcessEnv;
    /** After the command: removes configuration it created that it may not, and says what. */
    finish(): string | undefined;
}

export interface CommandSandbox {
    readonly policy: SandboxPolicy;
    /** One line for reviews and the status line. */
    readonly description: string;
    /** Whether commands can run sandboxed here; the first call starts the test run. */
    availability(): Promise<ProbeResult>;
    /** Creates the session's private folders in `sessionDir` (once per service). */
    createSessionFolders(sessionDir: string): void;
    /** Where a file of the session's control folder is: [host path, path inside the sandbox]. */
    controlPath(sessionDir: string, name: string): [string, string];
    /** The program, arguments and environment that run `argv` inside the sandbox. */
    prepare(
        argv: readonly string[],
        env: NodeJS.ProcessEnv,
        context: SandboxRunContext
    ): SandboxedRun;
    /** A note for a failed command whose output shows the sandbox refused something. */
    blockedNote(
        result: { exitCode: number | null; output: string },
        context: SandboxRunContext
    ): string | undefined;
}

export interface CommandSandboxOptions {
    platform?: NodeJS.Platform;
    /** Replaces the test run (tests simulate a machine without bubblewrap). */
    probe?: () => Promise<ProbeResult>;
    /** Called once when the sandbox turns out to be unavailable. */
    onUnavailable?: (message: string) => void;
    home?: string;
}

/** Thrown by the shell service instead of running a command unsandboxed. */
export class SandboxUnavailableError extends Error {}

/** What the user reads when the sandbox was asked for and cannot work here. */
export function unavailableMessage(reason: string): string {
    return (
        `the sandbox was requested but is not available: ${reason}. Commands will not run ` +
        `until it works (on Debian/Ubuntu: apt install bubblewrap), or until the sandbox is ` +
        `turned off (no --sandbox, no "sandbox" setting).`
    );
}

function existingRealFolders(folders: readonly string[]): string[] {
    const real: string[] = [];
    for (const folder of folders) {
        try {
            if (existsSync(folder)) real.push(realpathSync(folder));
        } catch {
            // unreadable: stays read-only, as the rest of the disk
        }
    }
    return real;
}

/** Host socket folders to replace by a tmpfs: /run, and /var/run where it is not a link to /run. */
function socketFolders(): string[] {
    const folders = ["/run"];
    try {
        if (lstatSync("/var/run").isDirectory()) folders.push("/var/run");
    } catch {
        // no /var/run
    }
    return folders;
}

/** $XDG_RUNTIME_DIR inside: the user's path when it can be a mount point, else /run/user/UID. */
function runtimeDirOf(env: NodeJS.ProcessEnv, hidden: readonly string[]): string {
    const dir = env.XDG_RUNTIME_DIR;
    if (dir !== undefined && isAbsolute(dir)) {
        const real = existingRealFolders([dir])[0];
        if (real !== undefined) return real;
        if (hidden.some((folder) => isPathInside(folder, dir))) return dir;
    }
    return `/run/user/${process.getuid?.() ?? 0}`;
}

/** Each private folder and where it goes; /dev/shm is always there (bwrap's fresh /dev has it). */
function privateFoldersOf(
    folders: SessionFolders,
    runtimeDir: string
): (readonly [string, string])[] {
    const mounts: (readonly [string, string])[] = [];
    if (existsSync("/tmp")) mounts.push([folders.tmp, "/tmp"]);
    if (existsSync("/var/tmp")) mounts.push([folders.varTmp, "/var/tmp"]);
    mounts.push([folders.shm, "/dev/shm"], [folders.runtime, runtimeDir]);
    mounts.push([folders.control, SANDBOX_CONTROL_DIR]);
    return mounts;
}

/** The command's environment: no variable naming a socket outside; temp and runtime dirs its own. */
function sandboxEnv(env: NodeJS.ProcessEnv, tmp: string, runtimeDir: string): NodeJS.ProcessEnv {
    const inside: NodeJS.ProcessEnv = { ...env };
    for (const name of SOCKET_ENV) delete inside[name];
    inside.TMPDIR = tmp;
    for (const name of ["TMP", "TEMP"]) if (inside[name] !== undefined) inside[name] = tmp;
    inside.XDG_RUNTIME_DIR = runtimeDir;
    return inside;
}

/** The checks' notes, in order (the created files' first: the repositories check runs git). */
function joinNotes(...notes: (string | undefined)[]): string | undefined {
    const present = notes.filter((note) => note !== undefined);
    return present.length > 0 ? present.join(" ") : undefined;
}

async function defaultProbe(platform: NodeJS.Platform, network: boolean): Promise<ProbeResult> {
    if (platform === "linux") {
        const [bwrap, nsenter] = await Promise.all([
            probeBwrap(network),
            network ? Promise.resolve<ProbeResult>({ ok: true }) : probeNsenter(),
        ]);
        return bwrap.ok ? nsenter : bwrap;
    }
    if (platform === "darwin") {
        return Promise.resolve(
            existsSync(SANDBOX_EXEC)
                ? { ok: true }
                : { ok: false, reason: `${SANDBOX_EXEC} is missing` }
        );
    }
    return Promise.resolve({ ok: false, reason: `North has no sandbox for ${platform}` });
}

export function createCommandSandbox(
    policy: SandboxPolicy,
    options: CommandSandboxOptions = {}
): CommandSandbox {
    const platform = options.platform ?? process.platform;
    const home = options.home ?? homedir();
    let checked: Promise<ProbeResult> | null = null;
    /** The project index's gitlinks, reused by the commands while the index is unchanged. */
    const gitlinks: GitlinkCache = new Map();
    /** Without the network: each service's namespace, shared by its commands. */
    const networks = new SessionNetworks();

    /** The folders bwrap.ts replaces, with what is in them visible again. */
    const replacedFolders = (runtimeDir: string, hidden: readonly string[]): string[] => {
        const paths = ["/tmp", "/var/tmp", "/dev/shm", runtimeDir, ...hidden];
        return existingRealFolders(paths).concat(paths);
    };

    const linuxRun = (
        argv: readonly string[],
        env: NodeJS.ProcessEnv,
        context: SandboxRunContext
    ): SandboxedRun => {
        const hidden = socketFolders();
        const runtimeDir = runtimeDirOf(env, hidden);
        const git = gitMounts(context.root);
        const protectedNow = protectedEntries(context.root);
        const writable = [
            ...existingRealFolders(policy.writable),
            ...git.writable.filter((dir) => !isPathInside(context.root, dir)),
        ];
        const writablePlaces = [context.root, ...writable];
        const insideWritable = (path: string): boolean =>
            writablePlaces.some((place) => isPathInside(place, path));
        // A link to the root or above it would cover the whole project read-only.
        const notAbove = (path: string): boolean => !isPathInside(path, context.root);
        const replaced = replacedFolders(runtimeDir, hidden);
        // $HOME or a linked worktree's repository inside /tmp (as in tests): shown again, read-only.
        const shownReadOnly = [...existingRealFolders([home]), ...git.commonDirs].filter(
            (dir) =>
                replaced.some((folder) => folder !== dir && isPathInside(folder, dir)) &&
                !insideWritable(dir)
        );
        const layout: BwrapLayout = {
            root: context.root,
            privateFolders: privateFoldersOf(sessionFolders(context.sessionDir), runtimeDir),
            writable,
            gitDirs: git.gitDirs.filter((dir) => insideWritable(dir) && notAbove(dir)),
            readOnly: [...protectedMounts(context.root, protectedNow), ...git.readOnly].filter(
                (path) => insideWritable(path) && notAbove(path)
            ),
            hidden,
            shownReadOnly,
            sockets: hostSockets({
                home,
                replaced,
                shown: [...writablePlaces, ...shownReadOnly],
            }),
            network: policy.network,
            joinsSessionNetwork: !policy.network,
            cwd: context.cwd,
        };
        const check = startCreatedCheck(context.root, git.watched, protectedNow, git.named);
        const nested = startNestedGitCheck(
            context.root,
            gitDirOf(join(context.root, ".git")),
            git.gitDirs,
            gitlinks
        );
        const bwrap = [BWRAP, ...bwrapArgs(layout), ...argv];
        const program = policy.network
            ? { file: BWRAP, args: bwrap.slice(1) }
            : networks.wrap(context.sessionDir, env, bwrap);
        return {
            ...program,
            env: sandboxEnv(env, "/tmp", runtimeDir),
            finish: () => joinNotes(check.finish(), nested.finish()),
        };
    };

    const darwinRun = (
        argv: readonly string[],
        env: NodeJS.ProcessEnv,
        context: SandboxRunContext
    ): SandboxedRun => {
        const git = gitMounts(context.root);
        const folders = sessionFolders(context.sessionDir);
        const profile = seatbeltProfile({
            root: context.root,
            tempDir: context.sessionDir,
            writable: existingRealFolders(policy.writable),
            readOnly: [...protectedMounts(context.root), ...git.readOnly],
            unwritable: [
                ...git.watched,
                ...missingProtectedPaths(context.root),
                // Not a real .git folder: git writes in it (its program files are in readOnly).
                ...git.named.filter((path) => !lstatQuiet(path)?.isDirectory()),
                ...protectedEntries(context.root).map((rel) => join(context.root, rel)),
            ],
            network: policy.network,
        });
        const check = startCreatedCheck(context.root, git.watched);
        const nested = startNestedGitCheck(
            context.root,
            gitDirOf(join(context.root, ".git")),
            git.gitDirs,
            gitlinks
        );
        return {
            file: SANDBOX_EXEC,
            args: ["-p", profile, ...argv],
            env: sandboxEnv(env, folders.tmp, folders.runtime),
            finish: () => joinNotes(check.finish(), nested.finish()),
        };
    };

    return {
        policy,
        description: describeSandbox(policy),
        availability() {
            checked ??= (options.probe ?? (() => defaultProbe(platform, policy.network)))().then(
                (result) => {
                    if (!result.ok) options.onUnavailable?.(unavailableMessage(result.reason));
                    return result;
                }
            );
            return checked;
        },
        createSessionFolders(sessionDir) {
            createSessionFolders(sessionDir);
        },
        controlPath(sessionDir, name) {
            const host = join(sessionFolders(sessionDir).control, name);
            // Seatbelt mounts nothing: the command sees the host path.
            return [host, platform === "darwin" ? host : join(SANDBOX_CONTROL_DIR, name)];
        },
        prepare(argv, env, context) {
            return platform === "darwin"
                ? darwinRun(argv, env, context)
                : linuxRun(argv, env, context);
        },
        blockedNote(result, context) {
            return sandboxBlockedNote(policy, {
                ...result,
                writableRoots: [context.root, "/tmp", "/var/tmp", "/dev/shm", ...policy.writable],
                home,
            });
        },
    };
}
