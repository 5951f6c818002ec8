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
}

/** What the editor offers; absent parts are North's own (the disk, its own shell). */
export interface ClientWorkspace {
    files?: ClientFiles;
    terminals?: ClientTerminals;
}
