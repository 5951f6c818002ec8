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
    TerminalOutputResponse,
} from "@agentclientprotocol/sdk";
import type {
    ClientCommandLine,
    ClientFiles,
    ClientTerminalRun,
    ClientTerminals,
    ClientWorkspace,
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
 * `env -i NAME=VALUE… program args…`: the editor's terminal adds ACP's `env`
 * to its own environment (which may hold provider keys); run through `env -i`
 * the command sees North's environment and nothing else.
 */
export function exactCommand(line: ClientCommandLine): { command: string; args: string[] } {
    const assignments = Object.entries(line.env).map(([name, value]) => `${name}=${value}`);
    return { command: ENV_PROGRAM, args: ["-i", ...assignments, line.file, ...line.args] };
}

/**
 * New text of `now` after `before` was seen. The editor keeps the end of the
 * output (it drops the start past its limit), so `now` is `before + new`
 * less some start: the smallest cut of `before` that `now` begins with,
 * found by `now`'s first 64 characters (when less of `before` is left,
 * everything is new: the live view may repeat a few characters).
 */
export function outputAfter(before: string, now: string): string {
    if (now.startsWith(before)) return now.slice(before.length);
    const head = now.slice(0, 64);
    for (let at = before.indexOf(head); at !== -1; at = before.indexOf(head, at + 1)) {
        const kept = before.slice(at);
        if (now.startsWith(kept)) return now.slice(kept.length);
    }
    return now;
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
                const exit = terminal.waitForExit();
                // Settled even when released or disconnected first: no stray rejection.
                exit.catch(() => undefined);
                const stopped = new Promise<void>((resolve) => {
                    if (signal.aborted) resolve();
                    else signal.addEventListener("abort", () => resolve(), { once: true });
                });
                let shown = "";
                const poll = onOutput
                    ? setInterval(() => {
                          void terminal.currentOutput().then(
                              (out: TerminalOutputResponse) => {
                                  const text = outputAfter(shown, out.output);
                                  shown = out.output;
                                  if (text !== "") onOutput(text);
                              },
                              () => undefined
                          );
                      }, OUTPUT_POLL_MS)
                    : undefined;
                let status: { exitCode?: number | null; signal?: string | null } | undefined;
                try {
                    status = await Promise.race([exit, stopped.then(() => undefined)]);
                    if (status === undefined) {
                        await terminal.kill().catch(() => undefined);
                        status = await Promise.race([exit.catch(() => undefined), giveUp()]);
                    }
                } finally {
                    if (poll) clearInterval(poll);
                }
                const out = await terminal.currentOutput();
                const final = outputAfter(shown, out.output);
                if (onOutput && final !== "") onOutput(final);
                const ended = status ?? out.exitStatus ?? undefined;
                return {
                    exitCode: ended?.exitCode ?? null,
                    ...(ended?.signal ? { signal: ended.signal } : {}),
                    output: out.output,
                    truncated: out.truncated,
                };
            } finally {
                await terminal.release().catch(() => undefined);
            }
        },
    };
}

function giveUp(): Promise<undefined> {
    return new Promise((resolve) => setTimeout(() => resolve(undefined), KILL_GIVE_UP_MS).unref());
}
