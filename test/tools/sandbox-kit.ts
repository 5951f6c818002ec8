/**
 * Set-up shared by the sandbox escape tests: whether bubblewrap and the
 * programs an escape attempt needs are here (CI installs them and never
 * skips), a project and a home folder per test, a sandboxed shell service,
 * and waiting for a state instead of sleeping.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, vi } from "vitest";
import { probeBwrap } from "../../src/tools/sandbox/bwrap";
import { createCommandSandbox } from "../../src/tools/sandbox/command-sandbox";
import { type ShellService, createShellService } from "../../src/tools/shell-service";

/** Programs the escape attempts use, with the Debian package that has each. */
export const NEEDED_PROGRAMS: Record<string, string> = {
    git: "git",
    tmux: "tmux",
    screen: "screen",
    "ssh-agent": "openssh-client",
    "ssh-add": "openssh-client",
    "dbus-daemon": "dbus",
    "dbus-send": "dbus",
};

function hasProgram(name: string): boolean {
    try {
        execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
        return true;
    } catch {
        return false;
    }
}

/** Why the tests cannot run here, or null; throws in CI, where nothing may be missing. */
export async function sandboxTestsBlocked(programs: readonly string[]): Promise<string | null> {
    if (process.platform !== "linux") return "bubblewrap is Linux-only";
    const probe = await probeBwrap(false);
    const missing = programs.filter((name) => !hasProgram(name));
    const reasons = [
        ...(probe.ok ? [] : [`bubblewrap (Debian package bubblewrap): ${probe.reason}`]),
        ...missing.map((name) => `${name} (Debian package ${NEEDED_PROGRAMS[name] ?? name})`),
    ];
    if (reasons.length === 0) return null;
    const message = `sandbox escape tests need ${reasons.join("; ")}`;
    if (process.env.CI) throw new Error(`${message}; CI installs them in .ci/run`);
    console.warn(`${message}: skipped`);
    return message;
}

export interface SandboxFixture {
    root: string;
    home: string;
    /** A folder outside the project (in the real /tmp) where escapes would leave their mark. */
    outside: string;
    /** A sandboxed service for the project; `env` replaces the commands' base environment. */
    sandboxed(options?: { network?: boolean; env?: NodeJS.ProcessEnv }): ShellService;
    /** The same without the sandbox: proves an attempt works when nothing stops it. */
    plain(env?: NodeJS.ProcessEnv): ShellService;
    /** Runs at the end of the test (servers, daemons). */
    cleanup(step: () => void): void;
}

/** Registers per-test set-up and tear-down; the fixture's fields are fresh in each test. */
export function useSandboxFixture(): SandboxFixture {
    const services: ShellService[] = [];
    const cleanups: (() => void)[] = [];
    let savedHome: string | undefined;
    const fixture: SandboxFixture = {
        root: "",
        home: "",
        outside: "",
        sandboxed(options = {}) {
            const sandbox = createCommandSandbox(
                { network: options.network ?? false, writable: [] },
                { home: fixture.home }
            );
            const service = createShellService(fixture.root, { sandbox, env: options.env });
            services.push(service);
            return service;
        },
        plain(env) {
            const service = createShellService(fixture.root, { env });
            services.push(service);
            return service;
        },
        cleanup(step) {
            cleanups.push(step);
        },
    };
    const folder = (prefix: string): string =>
        realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
    beforeEach(() => {
        fixture.root = folder("north-escape-project-");
        fixture.home = folder("north-escape-home-");
        fixture.outside = folder("north-escape-outside-");
        savedHome = process.env.HOME;
        process.env.HOME = fixture.home;
    });
    afterEach(() => {
        for (const service of services.splice(0)) service.dispose();
        for (const step of cleanups.splice(0).reverse()) {
            try {
                step();
            } catch {
                // already gone
            }
        }
        process.env.HOME = savedHome;
        for (const dir of [fixture.root, fixture.home, fixture.outside]) {
            rmSync(dir, { recursive: true, force: true });
        }
    });
    return fixture;
}

/** True once `check` holds, false if it still does not after `withinMs` (generous: load only makes it slower). */
export async function until(check: () => boolean, withinMs = 15_000): Promise<boolean> {
    try {
        await vi.waitFor(() => expect(check()).toBe(true), { timeout: withinMs, interval: 25 });
        return true;
    } catch {
        return false;
    }
}

/** A shell command that connects to a Unix socket (a path, or "\0name" for an abstract one). */
export function connectCommand(socket: string): string {
    const script =
        'const n=require("net");const s=n.connect(process.argv[1].replace(/^@/,"\\0"));' +
        's.on("connect",()=>{console.log("connected");s.end()});' +
        's.on("error",(e)=>{console.log("refused: "+e.code);process.exitCode=1})';
    const target = socket.startsWith("\0") ? `@${socket.slice(1)}` : socket;
    return `"${process.execPath}" -e '${script}' '${target}'`;
}

/** git with a fixed identity and none of the machine's or user's config. */
export const GIT_ENV = {
    ...process.env,
    GIT_AUTHOR_NAME: "North",
    GIT_AUTHOR_EMAIL: "north@example.com",
    GIT_COMMITTER_NAME: "North",
    GIT_COMMITTER_EMAIL: "north@example.com",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
};

export function git(cwd: string, ...args: string[]): string {
    return execFileSync("git", args, { cwd, env: GIT_ENV, stdio: "pipe" }).toString();
}

/** A repository with one commit at `dir`. */
export function initRepo(dir: string): void {
    mkdirSync(dir, { recursive: true });
    git(dir, "init", "-q");
    writeFileSync(path.join(dir, "a.txt"), "one\n");
    git(dir, "add", "a.txt");
    git(dir, "commit", "-qm", "one");
}
