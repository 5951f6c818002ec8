/**
 * The editor's files and terminals over ACP (the `fs` and `terminal` client
 * capabilities) as the tools layer's `ClientWorkspace` ports. These only move
 * bytes: which files may be read or written, and which command line runs, are
 * decided by North before a port is called.
 */
import { existsSync } from "node:fs";
import type {
    AgentContext,
    ClientCapabilities,
    TerminalHandle,
    TerminalOutputResponse,
} from "@agentclientprotocol/sdk";
import {
    type ClientCommandLine,
    type ClientExitStatus,
    type ClientFiles,
    type ClientTerminal,
    type ClientTerminalRun,
    type ClientTerminals,
    type ClientWorkspace,
    newTerminalOutput,
} from "../../tools/client-workspace";

/** How often a running command's output is fetched for the live view. */
const OUTPUT_POLL_MS = 200;
/** After a kill, how long the editor gets to report the exit before North stops waiting. */
const KILL_GIVE_UP_MS = 800;
/** The program that gives the command exactly North's environment (ACP's `env` only adds). */
const ENV_PROGRAM = "/usr/bin/env";

/**
 * The ports the client offers, or undefined when it offers neither. Files
 * need both reading and writing: reading the editor's buffers while writing
 * the disk would leave the editor holding stale unsaved text over a file
 * North just changed, and the next read would show the model that text.
 */
export function createClientWorkspace(
    client: AgentContext,
    sessionId: string,
    capabilities: ClientCapabilities | undefined
): ClientWorkspace | undefined {
    const fs = capabilities?.fs;
    const files = fs?.readTextFile && fs.writeTextFile ? clientFiles(client, sessionId) : undefined;
    // Without `env` North cannot make the command's environment exactly its own: its own shell then.
    const terminals =
        capabilities?.terminal && existsSync(ENV_PROGRAM)
            ? clientTerminals(client, sessionId)
            : undefined;
    if (!files && !terminals) return undefined;
    return { files, terminals };
}

/** The editor's error in words: its message, and the details JSON-RPC errors often carry. */
function editorError(error: unknown): Error {
    if (!(error instanceof Error)) return new Error(String(error));
    const data: unknown = (error as { data?: unknown }).data;
    const details =
        typeof data === "string"
            ? data
            : typeof data === "object" && data !== null && "details" in data
              ? String(data.details)
              : "";
    return details === "" || error.message.includes(details)
        ? error
        : new Error(`${error.message}: ${details}`);
}

function clientFiles(client: AgentContext, sessionId: string): ClientFiles {
    return {
        async read(absPath, signal) {
            try {
                const response = await client.request(
                    "fs/read_text_file",
                    { sessionId, path: absPath },
                    // A cancelled turn does not wait for a slow editor.
                    { cancellationSignal: signal, stopWaitingOnCancel: true }
                );
                return response.content;
            } catch (error) {
                throw editorError(error);
            }
        },
        async write(absPath, text) {
            try {
                await client.request("fs/write_text_file", {
                    sessionId,
                    path: absPath,
                    content: text,
                });
            } catch (error) {
                throw editorError(error);
            }
        },
    };
}

/**
 * `env -i -- NAME=VALUE… program args…`: the editor's terminal adds ACP's `env`
 * to its own environment (which may hold provider keys); run through `env -i`
 * the command sees North's environment and nothing else.
 */
export function exactCommand(line: ClientCommandLine): { command: string; args: string[] } {
    const assignments = Object.entries(line.env).map(([name, value]) => `${name}=${value}`);
    // "--": a variable whose name starts with "-" is still a variable, not an option.
    return { command: ENV_PROGRAM, args: ["-i", "--", ...assignments, line.file, ...line.args] };
}

/**
 * New text of `now` after `before` was seen (see `newTerminalOutput`): when
 * less of `before` is left, everything is new (the live view may repeat a
 * few characters).
 */
export function outputAfter(before: string, now: string): string {
    return newTerminalOutput(before, now).text;
}

function clientTerminals(client: AgentContext, sessionId: string): ClientTerminals {
    return {
        async run(line, { signal, onOutput, outputByteLimit }): Promise<ClientTerminalRun> {
            const terminal = await client.createTerminal({
                sessionId,
                ...exactCommand(line),
                env: [],
                cwd: line.cwd,
                outputByteLimit,
            });
            try {
                return await new TerminalWatch(terminal, onOutput).untilExit(signal);
            } finally {
                await terminal.release().catch(() => undefined);
            }
        },
        async start(line, { outputByteLimit }) {
            try {
                const terminal = await client.createTerminal({
                    sessionId,
                    ...exactCommand(line),
                    env: [],
                    cwd: line.cwd,
                    outputByteLimit,
                });
                return leftRunning(terminal);
            } catch (error) {
                throw editorError(error);
            }
        },
    };
}

function exitStatusOf(status: {
    exitCode?: number | null;
    signal?: string | null;
}): ClientExitStatus {
    return { exitCode: status.exitCode ?? null, signal: status.signal ?? null };
}

/** A terminal whose command runs on after the call that started it (a background process). */
function leftRunning(terminal: TerminalHandle): ClientTerminal {
    const editorCall = async <T>(call: () => Promise<T>): Promise<T> => {
        try {
            return await call();
        } catch (error) {
            throw editorError(error);
        }
    };
    return {
        id: terminal.id,
        output: () =>
            editorCall(async () => {
                const out = await terminal.currentOutput();
                return {
                    output: out.output,
                    truncated: out.truncated,
                    exitStatus: out.exitStatus ? exitStatusOf(out.exitStatus) : null,
                };
            }),
        waitForExit: () => editorCall(async () => exitStatusOf(await terminal.waitForExit())),
        kill: () => editorCall(async () => void (await terminal.kill())),
        release: () => editorCall(async () => void (await terminal.release())),
    };
}

type ExitStatus = { exitCode?: number | null; signal?: string | null };

/** One command in an editor terminal, from its start to its exit (or kill). */
class TerminalWatch {
    /** The output already passed to `onOutput`. */
    private shown = "";
    /** The output fetch in flight, if any: one at a time, in order. */
    private fetching: Promise<TerminalOutputResponse | undefined> | null = null;

    constructor(
        private readonly terminal: TerminalHandle,
        private readonly onOutput: ((text: string) => void) | undefined
    ) {}

    async untilExit(signal: AbortSignal): Promise<ClientTerminalRun> {
        const exit = this.terminal.waitForExit();
        // Settled even when released or disconnected first: no stray rejection.
        exit.catch(() => undefined);
        const poll = this.onOutput
            ? setInterval(() => void this.fetchOutput(), OUTPUT_POLL_MS)
            : undefined;
        let status: ExitStatus | undefined;
        try {
            status = await Promise.race([exit, aborted(signal)]);
            if (status === undefined) {
                await this.terminal.kill().catch(() => undefined);
                status = await Promise.race([exit.catch(() => undefined), giveUp()]);
            }
        } finally {
            if (poll) clearInterval(poll);
        }
        await this.fetching;
        const out = await this.fetchOutput();
        const ended = status ?? out?.exitStatus ?? undefined;
        return {
            exitCode: ended?.exitCode ?? null,
            ...(ended?.signal ? { signal: ended.signal } : {}),
            // An editor that cannot say any more (gone after a kill): what was shown.
            output: out?.output ?? this.shown,
            truncated: out?.truncated ?? false,
        };
    }

    /** The output so far; what is new goes to `onOutput`. Undefined when the editor fails. */
    private fetchOutput(): Promise<TerminalOutputResponse | undefined> {
        if (this.fetching) return this.fetching;
        this.fetching = this.terminal.currentOutput().then(
            (out) => {
                const text = outputAfter(this.shown, out.output);
                this.shown = out.output;
                if (text !== "") this.onOutput?.(text);
                return out;
            },
            () => undefined
        );
        void this.fetching.finally(() => (this.fetching = null));
        return this.fetching;
    }
}

/** Resolves (to undefined) when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<undefined> {
    return new Promise((resolve) => {
        if (signal.aborted) resolve(undefined);
        else signal.addEventListener("abort", () => resolve(undefined), { once: true });
    });
}

function giveUp(): Promise<undefined> {
    return new Promise((resolve) => setTimeout(() => resolve(undefined), KILL_GIVE_UP_MS).unref());
}
