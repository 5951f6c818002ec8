/**
 * An editor's own view of files and terminals, when North runs inside one
 * (ACP's `fs` and `terminal` client capabilities). With `files`, the tools
 * that read one file read through the editor (its unsaved buffers are what
 * the model sees) and reviewed edits are written through it (its buffer and
 * undo history stay right); with `terminals`, commands run in the editor's
 * terminals. Path containment, read denials, protected paths, reviews and
 * checkpoints are North's either way: these ports only move bytes.
 */

/** The editor's text of files. Both reject with an Error whose message says why. */
export interface ClientFiles {
    /** The file's text as the editor holds it (unsaved changes included). */
    read(absPath: string, signal?: AbortSignal): Promise<string>;
    /** Replaces the file's text in the editor (which saves it to disk). */
    write(absPath: string, text: string): Promise<void>;
}

/**
 * A command line exactly as North would start it itself: the program (bash,
 * or the sandbox wrapper around it), its arguments, the whole environment
 * (provider keys already removed) and the directory.
 */
export interface ClientCommandLine {
    file: string;
    args: string[];
    env: Record<string, string>;
    cwd: string;
}

export interface ClientTerminalRun {
    /** Null when a signal ended it. */
    exitCode: number | null;
    signal?: string;
    /** What the terminal kept of the output (its tail when `truncated`). */
    output: string;
    truncated: boolean;
}

/** How a command in an editor terminal ended: a signal's name when one ended it. */
export interface ClientExitStatus {
    exitCode: number | null;
    signal: string | null;
}

/** What an editor terminal kept of a command's output so far. */
export interface ClientTerminalOutput {
    output: string;
    /** The start was dropped: the terminal keeps the last `outputByteLimit` bytes. */
    truncated: boolean;
    /** Set once the command has ended. */
    exitStatus: ClientExitStatus | null;
}

/**
 * A command left running in an editor terminal (a background process):
 * North reads its output, waits for, kills and releases it. Each call
 * rejects with an Error whose message says why the editor failed.
 */
export interface ClientTerminal {
    /** The editor's id for it (ACP's `terminalId`), for a tool call to show it. */
    readonly id: string;
    output(): Promise<ClientTerminalOutput>;
    waitForExit(): Promise<ClientExitStatus>;
    /** Ends the command; the terminal stays until released. */
    kill(): Promise<void>;
    /** The editor forgets the terminal (and kills the command if it still runs). */
    release(): Promise<void>;
}

/** Runs commands in the editor's terminals. */
export interface ClientTerminals {
    /**
     * Runs one command to its end; aborting `signal` kills it (and the run
     * resolves with what it printed). `onOutput` gets new output as it comes.
     */
    run(
        line: ClientCommandLine,
        options: {
            signal: AbortSignal;
            onOutput?: (text: string) => void;
            outputByteLimit: number;
        }
    ): Promise<ClientTerminalRun>;
    /**
     * Starts a command and leaves it running (a background process). Absent:
     * the editor's port cannot, and background processes run in North's own shell.
     */
    start?(line: ClientCommandLine, options: { outputByteLimit: number }): Promise<ClientTerminal>;
}

/**
 * New text of `now` after `before` was seen. The editor keeps the end of the
 * output (it drops the start past its limit), so `now` is `before + new`
 * less some start: the smallest cut of `before` that `now` begins with,
 * found by `now`'s first 64 characters. `overlap` is false when nothing of
 * `before` is left: everything is new, and output between the two may be lost.
 */
export function newTerminalOutput(before: string, now: string): { text: string; overlap: boolean } {
    if (now.startsWith(before)) return { text: now.slice(before.length), overlap: true };
    const head = now.slice(0, 64);
    for (let at = before.indexOf(head); at !== -1; at = before.indexOf(head, at + 1)) {
        const kept = before.slice(at);
        if (now.startsWith(kept)) return { text: now.slice(kept.length), overlap: true };
    }
    return { text: now, overlap: false };
}

/** What the editor offers; absent parts are North's own (the disk, its own shell). */
export interface ClientWorkspace {
    files?: ClientFiles;
    terminals?: ClientTerminals;
}
