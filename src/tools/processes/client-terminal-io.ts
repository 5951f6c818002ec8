/**
 * A background process in an editor's terminal (ACP's `terminal/*`): the
 * same command line North would spawn itself, run by the editor, so its user
 * sees it where they see their other terminals. The editor owns the process:
 * North polls the output the terminal keeps (more often while it grows, less
 * while it is quiet), hears the exit, kills and releases it. What an editor
 * terminal cannot do is said where it shows: it takes no input (`process_send`
 * fails with a message saying to start it with `tty: true`, which runs in
 * North's own terminal), and it keeps only the last `outputByteLimit` bytes,
 * so output that came and went between two polls is lost, with a marker.
 */
import type { ClientCommandLine, ClientTerminal, ClientTerminals } from "../client-workspace";
import { newTerminalOutput } from "../client-workspace";
import { CLIENT_OUTPUT_BYTE_LIMIT } from "../shell-client-run";
import { type CreatedProcessIo, createProcessIo } from "./process-io";
import { ProcessError, type ProcessIo, type ProcessIoOptions } from "./types";

/** Polls come this often while the output grows... */
const FAST_POLL_MS = 250;
/** ...and back off to this while it is quiet. */
const SLOW_POLL_MS = 2_000;
/** After a kill, how long the editor gets to report the exit before North stops waiting. */
const KILL_GIVE_UP_MS = 2_000;

export const NO_INPUT_MESSAGE =
    "this process runs in the editor's terminal, which takes no input. " +
    "To type into a program, stop it and start it again with tty: true (it then runs in North's own terminal).";

export interface ClientTerminalIoOptions {
    /** Overrides for tests. */
    fastPollMs?: number;
    slowPollMs?: number;
    killGiveUpMs?: number;
    outputByteLimit?: number;
}

/** The environment as the strings a command line carries (unset entries dropped). */
function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
    return out;
}

function droppedMarker(): string {
    return "\n[... output the editor's terminal no longer kept was not read ...]\n";
}

/**
 * How background programs start when the editor offers terminals and no
 * sandbox is on (a sandboxed command's terminal is North's, see
 * shell-service's `runsInEditor`): pipe processes in the editor's terminal,
 * tty ones in North's own pseudo-terminal (an editor terminal takes no
 * input). An editor that refuses the terminal: North's own, with a note.
 * Undefined when North starts every program itself.
 */
export function clientTerminalStarter(
    terminals: ClientTerminals | undefined,
    sandboxed: boolean,
    tuning: ClientTerminalIoOptions = {}
): ((options: ProcessIoOptions) => Promise<CreatedProcessIo>) | undefined {
    if (!terminals?.start || sandboxed) return undefined;
    return async (options) => {
        if (options.tty) return createProcessIo(options);
        try {
            return { io: await startClientTerminalIo(terminals, options, tuning) };
        } catch (error) {
            const reason = error instanceof Error ? error.message : String(error);
            const own = await createProcessIo(options);
            const note = `The editor's terminal did not start it (${reason}); it runs in North's own shell instead.`;
            return { ...own, note: own.note === undefined ? note : `${note} ${own.note}` };
        }
    };
}

/**
 * Starts `options`'s command line in an editor terminal; rejects with the
 * editor's reason when it refuses. A tty process never comes here: an editor
 * terminal cannot be typed into, so those run in North's own pseudo-terminal.
 */
export async function startClientTerminalIo(
    terminals: ClientTerminals,
    options: ProcessIoOptions,
    tuning: ClientTerminalIoOptions = {}
): Promise<ClientTerminalIo> {
    if (!terminals.start) {
        throw new ProcessError(
            "unsupported",
            "the editor's terminals cannot run background processes"
        );
    }
    if (options.tty) {
        throw new ProcessError("unsupported", "a tty process runs in North's own terminal");
    }
    const line: ClientCommandLine = {
        file: options.file,
        args: options.args,
        env: definedEnv(options.env),
        cwd: options.cwd,
    };
    const outputByteLimit = tuning.outputByteLimit ?? CLIENT_OUTPUT_BYTE_LIMIT;
    const terminal = await terminals.start(line, { outputByteLimit });
    return new ClientTerminalIo(terminal, tuning);
}

/** One command in an editor terminal as a `ProcessIo`. */
export class ClientTerminalIo implements ProcessIo {
    readonly pid = undefined;
    readonly tty = false;
    /** The editor's terminal id: a tool call can show the terminal itself. */
    readonly terminalId: string;

    private readonly dataListeners: Array<(chunk: Buffer) => void> = [];
    private readonly exitListeners: Array<
        (exitCode: number | null, signal: string | null) => void
    > = [];
    /** Output read before anyone listened. */
    private pending: Buffer[] = [];
    /** Set once the exit was told to the listeners. */
    private exit: { exitCode: number | null; signal: string | null } | null = null;
    /** The first ending heard (the editor's, or the kill's give-up); later ones do nothing. */
    private ending = false;
    /** The terminal's kept output as last read. */
    private seen = "";
    private polling: Promise<void> | null = null;
    private timer: NodeJS.Timeout | null = null;
    private pollMs: number;
    private readonly fastPollMs: number;
    private readonly slowPollMs: number;
    private readonly killGiveUpMs: number;
    private killed = false;

    constructor(
        private readonly terminal: ClientTerminal,
        tuning: ClientTerminalIoOptions = {}
    ) {
        this.terminalId = terminal.id;
        this.fastPollMs = tuning.fastPollMs ?? FAST_POLL_MS;
        this.slowPollMs = tuning.slowPollMs ?? SLOW_POLL_MS;
        this.killGiveUpMs = tuning.killGiveUpMs ?? KILL_GIVE_UP_MS;
        this.pollMs = this.fastPollMs;
        this.schedulePoll();
        terminal.waitForExit().then(
            (status) => void this.ended(status.exitCode, status.signal, { readLast: true }),
            (error: unknown) => {
                const reason = error instanceof Error ? error.message : String(error);
                void this.ended(null, null, {
                    readLast: false,
                    note: `the editor's terminal stopped answering: ${reason}`,
                });
            }
        );
    }

    onData(listener: (chunk: Buffer) => void): void {
        this.dataListeners.push(listener);
        const pending = this.pending;
        this.pending = [];
        for (const chunk of pending) listener(chunk);
    }

    onExit(listener: (exitCode: number | null, signal: string | null) => void): void {
        this.exitListeners.push(listener);
        if (this.exit) listener(this.exit.exitCode, this.exit.signal);
    }

    write(_data: string | Buffer): void {
        throw new ProcessError("unsupported", NO_INPUT_MESSAGE);
    }

    endInput(): void {
        throw new ProcessError("unsupported", NO_INPUT_MESSAGE);
    }

    /** The editor's kill has no signal to choose: any signal ends the command. */
    kill(_signal: NodeJS.Signals): void {
        if (this.ending) return;
        this.terminal.kill().catch(() => undefined);
        if (this.killed) return;
        this.killed = true;
        // An editor that never reports the exit (gone) must not leave the process "running" forever.
        setTimeout(() => {
            void this.ended(null, "SIGKILL", {
                readLast: false,
                note: "the editor did not say the command ended after it was killed; North stopped waiting for it",
            });
        }, this.killGiveUpMs).unref();
    }

    private emit(text: string): void {
        if (text === "") return;
        const chunk = Buffer.from(text, "utf8");
        if (this.dataListeners.length === 0) this.pending.push(chunk);
        for (const listener of this.dataListeners) listener(chunk);
    }

    private schedulePoll(): void {
        if (this.ending) return;
        this.timer = setTimeout(() => {
            this.timer = null;
            void this.poll().then(() => this.schedulePoll());
        }, this.pollMs);
        // Polling alone never keeps North running.
        this.timer.unref();
    }

    /** Reads the terminal's output once; what is new goes to the listeners. One read at a time. */
    private poll(): Promise<void> {
        this.polling ??= this.terminal.output().then(
            (out) => {
                const { text, overlap } = newTerminalOutput(this.seen, out.output);
                const lost = !overlap && this.seen !== "" && out.truncated;
                this.seen = out.output;
                this.emit(lost ? droppedMarker() + text : text);
                // Quiet output is read less and less often; new output brings the pace back.
                this.pollMs =
                    text === "" ? Math.min(this.pollMs * 2, this.slowPollMs) : this.fastPollMs;
            },
            () => undefined
        );
        const polling = this.polling;
        void polling.finally(() => {
            if (this.polling === polling) this.polling = null;
        });
        return polling;
    }

    /**
     * Reports the exit once, after the last output. `readLast`: read the
     * terminal once more first, bounded (an editor that stopped answering
     * must not hold the exit back); `note`: said in the output before it.
     */
    private async ended(
        exitCode: number | null,
        signal: string | null,
        how: { readLast: boolean; note?: string }
    ): Promise<void> {
        if (this.ending) return;
        this.ending = true;
        if (this.timer) clearTimeout(this.timer);
        this.timer = null;
        if (how.readLast) {
            const lastRead = (async () => {
                await this.polling;
                await this.poll();
            })();
            await Promise.race([lastRead, delay(this.killGiveUpMs)]);
        }
        if (how.note !== undefined) this.emit(`\n[${how.note}]\n`);
        this.terminal.release().catch(() => undefined);
        this.exit = { exitCode, signal };
        for (const listener of this.exitListeners) listener(exitCode, signal);
    }
}

function delay(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
