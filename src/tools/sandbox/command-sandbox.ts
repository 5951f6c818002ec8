/**
 * The OS sandbox the shell service runs commands in, when the user asked for
 * one: bubblewrap on Linux, sandbox-exec on macOS. Whether it works here is
 * found out once, by a test run started when the service is created (not
 * awaited, so start-up does not wait for it). If it does not work, commands
 * are refused with the reason; they never run unsandboxed instead.
 */
import { existsSync, lstatSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { sandboxBlockedNote } from "./blocked-note";
import { BWRAP, type ProbeResult, bwrapArgs, probeBwrap } from "./bwrap";
import { type SandboxPolicy, describeSandbox } from "./policy";
import { protectedMounts } from "./protected-mounts";
import { SANDBOX_EXEC, seatbeltProfile } from "./seatbelt";

export { type SandboxPolicy, describeSandbox } from "./policy";

/** Where one command runs; all absolute and real. */
export interface SandboxRunContext {
    root: string;
    tempDir: string;
    cwd: string;
}

export interface CommandSandbox {
    readonly policy: SandboxPolicy;
    /** One line for reviews and the status line. */
    readonly description: string;
    /** Whether commands can run sandboxed here; the first call starts the test run. */
    availability(): Promise<ProbeResult>;
    /** The program and arguments that run `argv` inside the sandbox. */
    wrap(argv: readonly string[], context: SandboxRunContext): { file: string; args: string[] };
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

/** Host socket folders to hide: /run, and /var/run where it is not a link to /run. */
function socketFolders(): string[] {
    return ["/run", "/var/run"].filter((dir) => {
        try {
            return lstatSync(dir).isDirectory();
        } catch {
            return false;
        }
    });
}

function defaultProbe(platform: NodeJS.Platform, network: boolean): Promise<ProbeResult> {
    if (platform === "linux") return probeBwrap(network);
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

    const layoutOf = (context: SandboxRunContext) => ({
        root: context.root,
        tempDir: context.tempDir,
        writable: existingRealFolders(policy.writable),
        readOnly: protectedMounts(context.root),
        hidden: platform === "linux" ? socketFolders() : [],
        network: policy.network,
    });

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
        wrap(argv, context) {
            const layout = layoutOf(context);
            if (platform === "darwin") {
                return { file: SANDBOX_EXEC, args: ["-p", seatbeltProfile(layout), ...argv] };
            }
            return { file: BWRAP, args: [...bwrapArgs({ ...layout, cwd: context.cwd }), ...argv] };
        },
        blockedNote(result, context) {
            return sandboxBlockedNote(policy, {
                ...result,
                writableRoots: [context.root, context.tempDir, ...policy.writable],
                home,
            });
        },
    };
}
