/**
 * A background process in a pseudo-terminal (`tty: true`), through the native
 * module `@lydell/node-pty`. That package is an optional dependency: it is
 * loaded by `import()` when the first tty command starts, never at start-up,
 * and where it cannot load (not installed, no binary for this platform, built
 * for another Node) `spawnPtyIo` rejects with PtyUnavailableError, whose
 * message names the package, so the caller can run the command on pipes instead.
 *
 * node-pty's child calls setsid(): it leads its own session and process group.
 * A kill signals that group, as for piped commands, and on Linux every other
 * process of the session too: an interactive shell in the pty puts each job
 * in a group of its own, and those must go with it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import type * as NodePty from "@lydell/node-pty";
import { atProcessExit } from "../../util/process-exit";
import { killProcessGroup } from "../../util/process-group";
import type { ProcessIo, ProcessIoOptions } from "./types";

/** The optional package, by name (messages, README, package.json). */
export const PTY_PACKAGE = "@lydell/node-pty";

export const DEFAULT_PTY_COLS = 120;
export const DEFAULT_PTY_ROWS = 40;

/** The part of node-pty North uses. */
export type PtyModule = Pick<typeof NodePty, "spawn">;

/** Loads node-pty; tests inject one that fails. */
export type PtyLoader = () => Promise<PtyModule>;

/** The pseudo-terminal library could not load here; `message` says why and names the package. */
export class PtyUnavailableError extends Error {}

/** node-pty itself, loaded on first use (a CommonJS module: its exports may sit on `default`). */
export const loadNodePty: PtyLoader = async () => {
    const loaded = (await import("@lydell/node-pty")) as PtyModule & { default?: PtyModule };
    return typeof loaded.spawn === "function" ? loaded : loaded.default!;
};

function firstLine(error: unknown): string {
    return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.trim();
}

/** Why node-pty could not load, in one line the model and the user can act on. */
function unavailableMessage(error: unknown): string {
    const code = (error as { code?: unknown } | undefined)?.code;
    const reason =
        code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND"
            ? "it is not installed (an install with --omit=optional, or no build for this platform)"
            : `it failed to load (${firstLine(error).replace(/\.$/, "")})`;
    return (
        `A pseudo-terminal needs the optional package ${PTY_PACKAGE} ` +
        `(${process.platform}-${process.arch}, Node ${process.versions.node}), and ${reason}. ` +
        `Reinstalling North with optional dependencies brings it.`
    );
}

/** Node's name for a signal number ("SIGTERM" for 15), or null. */
function signalName(signal: number | undefined): string | null {
    if (!signal) return null;
    const entry = Object.entries(constants.signals).find(([, number]) => number === signal);
    return entry?.[0] ?? String(signal);
}

/** node-pty passes env values as `name=value` strings: an unset entry would read "undefined". */
function ptyEnv(env: NodeJS.ProcessEnv): Record<string, string> {
    const defined: Record<string, string> = {};
    for (const [name, value] of Object.entries(env)) if (value !== undefined) defined[name] = value;
    // The screen is an xterm emulator: programs must draw for one (a "dumb" TERM draws no screen).
    defined.TERM = "xterm-256color";
    return defined;
}

/**
 * Starts `options.file` in a pty of `options.cols`×`options.rows` (120×40 by
 * default) with exactly `options.env` (which carries the owner mark). Rejects
 * with PtyUnavailableError when the library cannot load.
 */
export async function spawnPtyIo(
    options: ProcessIoOptions,
    load: PtyLoader = loadNodePty
): Promise<ProcessIo> {
    let pty: PtyModule;
    try {
        pty = await load();
    } catch (error) {
        throw new PtyUnavailableError(unavailableMessage(error), { cause: error });
    }
    return new PtyIo(pty, options);
}

/** The pids of session `sid` (Linux, from /proc); none elsewhere. */
function sessionMembers(sid: number): number[] {
    if (process.platform !== "linux") return [];
    const members: number[] = [];
    for (const name of readdirSync("/proc")) {
        if (!/^\d+$/.test(name)) continue;
        try {
            // After the command's closing parenthesis: state, ppid, pgrp, session.
            const stat = readFileSync(`/proc/${name}/stat`, "utf8");
            const session = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
            if (session === sid) members.push(Number(name));
        } catch {
            // Gone since the listing.
        }
    }
    return members;
}

/** Signals the pty's process group and every process of its session (jobs in groups of their own). */
function killSession(sid: number, signal: NodeJS.Signals): void {
    killProcessGroup(sid, signal);
    for (const pid of sessionMembers(sid)) {
        try {
            process.kill(pid, signal);
        } catch {
            // Gone already.
        }
    }
}

type PtyExitListener = (exitCode: number | null, signal: string | null) => void;

/** One program in one pty, from spawn to exit. */
class PtyIo implements ProcessIo {
    readonly tty = true;
    readonly pid: number;
    private readonly terminal: ReturnType<PtyModule["spawn"]>;
    private readonly dataListeners: Array<(chunk: Buffer) => void> = [];
    private readonly exitListeners: PtyExitListener[] = [];
    /** Output before the first listener (none is lost between spawn and `onData`). */
    private early: Buffer[] = [];
    private exit: { code: number | null; signal: string | null } | undefined;
    /** Forgets the exit hook's kill of this group once the program has ended. */
    private readonly forgetGroup: () => void;

    constructor(pty: PtyModule, options: ProcessIoOptions) {
        this.terminal = pty.spawn(options.file, options.args, {
            name: "xterm-256color",
            cols: options.cols ?? DEFAULT_PTY_COLS,
            rows: options.rows ?? DEFAULT_PTY_ROWS,
            cwd: options.cwd,
            env: ptyEnv(options.env),
        });
        const pid = this.terminal.pid;
        this.pid = pid;
        // However North ends, the program's group goes with it.
        this.forgetGroup = atProcessExit(() => killSession(pid, "SIGKILL"));
        this.terminal.onData((data) => {
            const chunk = Buffer.from(data, "utf8");
            if (this.dataListeners.length === 0) this.early.push(chunk);
            for (const listener of this.dataListeners) listener(chunk);
        });
        this.terminal.onExit(({ exitCode, signal }) => {
            // Jobs of the session outlive a leader that ends on its own; its owner stops them.
            this.forgetGroup();
            const name = signalName(signal);
            this.exit = { code: name ? null : exitCode, signal: name };
            for (const listener of this.exitListeners) listener(this.exit.code, this.exit.signal);
        });
    }

    onData(listener: (chunk: Buffer) => void): void {
        this.dataListeners.push(listener);
        const early = this.early;
        this.early = [];
        for (const chunk of early) listener(chunk);
    }

    onExit(listener: PtyExitListener): void {
        this.exitListeners.push(listener);
        if (this.exit) listener(this.exit.code, this.exit.signal);
    }

    write(data: string | Buffer): void {
        if (this.exit) return;
        this.terminal.write(typeof data === "string" ? data : data.toString("utf8"));
    }

    /** Ctrl+D: end of input for a program reading the terminal in canonical mode. */
    endInput(): void {
        this.write("\x04");
    }

    kill(signal: NodeJS.Signals): void {
        killSession(this.pid, signal);
    }

    resize(cols: number, rows: number): void {
        if (!this.exit) this.terminal.resize(cols, rows);
    }
}
