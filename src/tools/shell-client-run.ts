/**
 * One run of the shell's command line in an editor's terminal (ACP's
 * `terminal`), as a `RawRun` like `spawnShell`'s: the same program, arguments,
 * whole environment and directory; killed through the editor on timeout and
 * cancel. Two things differ, both said where they show: the editor keeps the
 * last `SHELL_HEAD_BYTES + SHELL_TAIL_BYTES` of the output (ACP truncates from
 * the start), so a longer output shows its tail only, with a marker; and the
 * editor, not North, owns the process, so when the command ends North finds
 * what it left running by North's owner mark (child-reaper) and stops it,
 * daemons that left its process group included (North's own shell lets those
 * live until the session ends).
 */
import type { ClientTerminals } from "./client-workspace";
import { reapOwned } from "./child-reaper";
import { SHELL_HEAD_BYTES, SHELL_TAIL_BYTES } from "./limits";
import { HeadTailBuffer } from "./shell-output";
import type { RawRun, ShellProgram, SpawnOptions } from "./shell-process";

/** What the editor's terminal keeps: North's own bound, head and tail together. */
export const CLIENT_OUTPUT_BYTE_LIMIT = SHELL_HEAD_BYTES + SHELL_TAIL_BYTES;

const MARKER_ROOM_BYTES = 1024;

/** The environment as the strings a command line carries (unset entries dropped). */
function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
    return out;
}

function truncatedMarker(kept: number): string {
    return `[... earlier output omitted by the editor's terminal; showing the last ${Math.round(kept / 1024)} KB ...]\n`;
}

/**
 * Runs `program` in an editor terminal to its end (or its kill); never
 * rejects. `ownerTag` marks the command's processes, for the leftovers.
 */
export async function runInClientTerminal(
    terminals: ClientTerminals,
    program: ShellProgram,
    options: SpawnOptions,
    ownerTag: string
): Promise<RawRun> {
    const run: RawRun = {
        exitCode: null,
        signal: null,
        timedOut: false,
        cancelled: false,
        leftovers: false,
        // Room for the marker beside everything the editor keeps: nothing more is cut here.
        buffer: new HeadTailBuffer(SHELL_HEAD_BYTES + MARKER_ROOM_BYTES, SHELL_TAIL_BYTES),
    };
    const controller = new AbortController();
    const onAbort = (): void => {
        if (!run.timedOut) run.cancelled = true;
        controller.abort();
    };
    const timer = setTimeout(() => {
        if (run.cancelled) return;
        run.timedOut = true;
        controller.abort();
    }, options.timeoutMs);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
        const ended = await terminals.run(
            {
                file: program.file,
                args: program.args,
                env: definedEnv(options.env),
                cwd: options.cwd,
            },
            {
                signal: controller.signal,
                onOutput: options.onOutput,
                outputByteLimit: CLIENT_OUTPUT_BYTE_LIMIT,
            }
        );
        run.exitCode = ended.exitCode;
        run.signal = (ended.signal ?? null) as NodeJS.Signals | null;
        const output = Buffer.from(ended.output, "utf8");
        if (ended.truncated) {
            run.startDropped = true;
            run.buffer.push(Buffer.from(truncatedMarker(output.length)));
        }
        run.buffer.push(output);
    } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        run.spawnError = `the editor's terminal did not run it (${reason})`;
    } finally {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
    }
    // Background jobs and what a kill missed: the editor's kill may reach the command only.
    const reaped = reapOwned(ownerTag) > 0;
    if (reaped && !run.timedOut && !run.cancelled) run.leftovers = true;
    return run;
}
