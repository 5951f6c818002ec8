/**
 * Hands the terminal to the user's editor (`/memory edit`, Ctrl+G) and takes it back:
 * the TUI's screen modes off, the editor run synchronously on the real
 * terminal, then the modes restored as they were and the frame drawn again
 * in full. spawnSync blocks the event loop, so Ink reads no key while the
 * editor owns stdin.
 */
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { writeSync } from "node:fs";
import {
    BRACKETED_PASTE_OFF,
    BRACKETED_PASTE_ON,
    ENTER_ALT_SCREEN,
    HIDE_CURSOR,
    LEAVE_ALT_SCREEN,
    MOUSE_OFF,
    MOUSE_ON,
    SHOW_CURSOR,
} from "./terminal-guard";

export type EditResult = { ok: true; warning?: string } | { ok: false; error: string };

export interface HandoverTerminal {
    /** Writes synchronously (fd 1), so the modes change before the editor starts. */
    write(text: string): void;
    setRawMode(raw: boolean): void;
    isRaw(): boolean;
}

type SpawnEditor = (
    command: string,
    args: string[],
    options: { stdio: "inherit"; shell?: boolean }
) => Pick<SpawnSyncReturns<Buffer>, "status" | "signal" | "error">;

export interface EditorHandoverDeps {
    terminal: HandoverTerminal;
    altScreen: boolean;
    /** Mouse reporting is on now (restored after the editor). */
    mouse(): boolean;
    /** Draws the whole frame again (the editor left the screen blank or its own). */
    redraw(): void;
    env: NodeJS.ProcessEnv;
    spawn?: SpawnEditor;
    platform?: NodeJS.Platform;
}

/** Tried in order when neither $VISUAL nor $EDITOR is set. */
const FALLBACK_EDITORS = ["vi", "nano"];
/** A POSIX shell's status for "command not found" and "not executable". */
const NOT_FOUND = 127;
const NOT_EXECUTABLE = 126;

/** `$VISUAL`, else `$EDITOR` (either may carry arguments, as `code --wait`); null when neither is set. */
export function configuredEditor(
    env: NodeJS.ProcessEnv
): { variable: "VISUAL" | "EDITOR"; command: string } | null {
    for (const variable of ["VISUAL", "EDITOR"] as const) {
        const command = env[variable]?.trim();
        if (command) return { variable, command };
    }
    return null;
}

/** Whether to use what an editor saved before it failed (a memory file) or drop it (a draft). */
export type OnEditorFailure = "keep-saved" | "discard";

function exited(
    name: string,
    run: ReturnType<SpawnEditor>,
    onFailure: OnEditorFailure
): EditResult {
    const failed = run.signal
        ? `the editor (${name}) was ended by ${run.signal}`
        : run.status !== 0 && run.status !== null
          ? `the editor (${name}) exited with status ${run.status}`
          : undefined;
    if (failed === undefined) return { ok: true };
    if (onFailure === "discard") return { ok: false, error: failed };
    return { ok: true, warning: run.signal ? failed : `${failed}; what it saved is used` };
}

/** Runs the editor on `path` with the terminal as it is; no screen handling here. */
export function runEditor(
    path: string,
    env: NodeJS.ProcessEnv,
    spawn: SpawnEditor = spawnSync,
    platform: NodeJS.Platform = process.platform,
    onFailure: OnEditorFailure = "keep-saved"
): EditResult {
    const configured = configuredEditor(env);
    if (configured) {
        const { variable, command } = configured;
        // Through the shell, as git runs $EDITOR: it may hold arguments; the path is passed quoted.
        const run =
            platform === "win32"
                ? spawn(`${command} "${path}"`, [], { stdio: "inherit", shell: true })
                : spawn("/bin/sh", ["-c", `${command} "$1"`, "sh", path], { stdio: "inherit" });
        if (run.error) {
            return {
                ok: false,
                error: `could not start the editor $${variable} (${command}): ${run.error.message}`,
            };
        }
        if (run.status === NOT_FOUND || run.status === NOT_EXECUTABLE) {
            return {
                ok: false,
                error: `the editor $${variable} (${command}) ${run.status === NOT_FOUND ? "was not found" : "cannot be run"}; set $${variable} to an editor on your PATH. ${path} is unchanged.`,
            };
        }
        return exited(command, run, onFailure);
    }
    for (const editor of FALLBACK_EDITORS) {
        const run = spawn(editor, [path], { stdio: "inherit" });
        if ((run.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") continue;
        if (run.error) {
            return { ok: false, error: `could not start ${editor}: ${run.error.message}` };
        }
        return exited(editor, run, onFailure);
    }
    return {
        ok: false,
        error: `no editor found to open ${path}: $VISUAL and $EDITOR are not set and neither vi nor nano is installed. Set $EDITOR (export EDITOR=nano, say).`,
    };
}

/**
 * Returns the chat's `editFile`: leaves the TUI's screen modes, runs the
 * editor, and puts everything back as it was, whatever the editor did.
 */
export function createEditorHandover(
    deps: EditorHandoverDeps
): (path: string, onFailure?: OnEditorFailure) => EditResult {
    const { terminal, altScreen } = deps;
    return (path, onFailure = "keep-saved") => {
        const wasRaw = terminal.isRaw();
        const mouse = deps.mouse();
        terminal.write(
            (mouse ? MOUSE_OFF : "") +
                BRACKETED_PASTE_OFF +
                (altScreen ? LEAVE_ALT_SCREEN : "") +
                SHOW_CURSOR
        );
        terminal.setRawMode(false);
        try {
            return runEditor(path, deps.env, deps.spawn, deps.platform, onFailure);
        } finally {
            if (wasRaw) terminal.setRawMode(true);
            // The editor may have left any of these off (vim turns bracketed paste off on exit).
            terminal.write(
                (altScreen ? ENTER_ALT_SCREEN + "\x1b[H\x1b[2J" : "") +
                    HIDE_CURSOR +
                    BRACKETED_PASTE_ON +
                    (mouse ? MOUSE_ON : "")
            );
            deps.redraw();
        }
    };
}

/** The real terminal: fd 1 and the process's stdin. */
export function processHandoverTerminal(): HandoverTerminal {
    return {
        write(text) {
            writeSync(1, text);
        },
        setRawMode(raw) {
            if (process.stdin.isTTY) process.stdin.setRawMode(raw);
        },
        isRaw: () => process.stdin.isTTY === true && process.stdin.isRaw,
    };
}
