/**
 * Puts the terminal into the TUI's state (alternate screen, hidden cursor,
 * bracketed paste, focus reports, mouse reporting for the wheel) and guarantees it is put back however North ends: a clean
 * exit, a crash, an uncaught exception or rejection, SIGTERM, SIGHUP. The
 * restore writes synchronously, so it lands even when the process dies next.
 */
import { writeSync } from "node:fs";

export const ENTER_ALT_SCREEN = "\x1b[?1049h";
export const LEAVE_ALT_SCREEN = "\x1b[?1049l";
export const HIDE_CURSOR = "\x1b[?25l";
export const SHOW_CURSOR = "\x1b[?25h";
export const BRACKETED_PASTE_ON = "\x1b[?2004h";
export const BRACKETED_PASTE_OFF = "\x1b[?2004l";
/** Button press/release reports (the wheel included), in the SGR encoding. */
export const MOUSE_ON = "\x1b[?1000h\x1b[?1006h";
/** Every mouse mode off (1002/1003 too, in case something else left them on). */
export const MOUSE_OFF = "\x1b[?1006l\x1b[?1003l\x1b[?1002l\x1b[?1000l";
/** The terminal reports focus in and out (`ESC [ I`, `ESC [ O`): notifications wait while it has focus. */
export const FOCUS_REPORTS_ON = "\x1b[?1004h";
export const FOCUS_REPORTS_OFF = "\x1b[?1004l";
/** Ends synchronized output, in case a frame was cut in the middle. */
const END_SYNC = "\x1b[?2026l";
/** Resets colours and styles. */
const RESET_STYLE = "\x1b[0m";

export interface TerminalPort {
    write(text: string): void;
    setRawMode?(raw: boolean): void;
}

export interface TerminalGuard {
    enter(): void;
    /**
     * Turns mouse reporting on or off (alternate screen only: inline, the
     * terminal's own scrollback and selection stay). Returns the new state.
     */
    setMouse(on: boolean): boolean;
    /** Mouse reporting is on. */
    mouse(): boolean;
    /** Idempotent; safe from any exit path. */
    restore(): void;
    /** True once restore() ran. */
    restored(): boolean;
}

export function createTerminalGuard(
    port: TerminalPort,
    options: { altScreen: boolean; mouse?: boolean }
): TerminalGuard {
    let entered = false;
    let done = false;
    let mouse = false;
    return {
        enter() {
            if (entered) return;
            entered = true;
            mouse = options.altScreen && (options.mouse ?? true);
            port.write(
                (options.altScreen ? ENTER_ALT_SCREEN + "\x1b[H\x1b[2J" : "") +
                    HIDE_CURSOR +
                    BRACKETED_PASTE_ON +
                    FOCUS_REPORTS_ON +
                    (mouse ? MOUSE_ON : "")
            );
        },
        setMouse(on) {
            const next = on && options.altScreen;
            if (!entered || done || next === mouse) return mouse;
            mouse = next;
            port.write(mouse ? MOUSE_ON : MOUSE_OFF);
            return mouse;
        },
        mouse: () => mouse,
        restore() {
            if (done || !entered) return;
            done = true;
            mouse = false;
            try {
                port.setRawMode?.(false);
            } catch {
                // stdin already closed
            }
            // Mouse modes off even when North never turned them on: a terminal left reporting is unusable.
            port.write(
                MOUSE_OFF +
                    FOCUS_REPORTS_OFF +
                    END_SYNC +
                    RESET_STYLE +
                    BRACKETED_PASTE_OFF +
                    (options.altScreen ? LEAVE_ALT_SCREEN : "") +
                    SHOW_CURSOR
            );
        },
        restored: () => done,
    };
}

/** The real terminal: synchronous writes to fd 1, raw mode on stdin. */
export function processTerminalPort(): TerminalPort {
    return {
        write(text) {
            try {
                writeSync(1, text);
            } catch {
                // the terminal went away (SIGHUP): nothing left to restore
            }
        },
        setRawMode(raw) {
            if (process.stdin.isTTY) process.stdin.setRawMode(raw);
        },
    };
}

export interface ExitHooks {
    /** Removes the handlers (after a clean exit). */
    dispose(): void;
}

/**
 * Restores the terminal (and runs `cleanup`, e.g. killing running commands)
 * on every way the process can end, then exits with the conventional code.
 */
export function installExitHooks(
    guard: TerminalGuard,
    cleanup: () => void,
    report: (message: string) => void
): ExitHooks {
    let cleaned = false;
    const finish = (): void => {
        if (!cleaned) {
            cleaned = true;
            try {
                cleanup();
            } catch {
                // best effort: the terminal must still be restored
            }
        }
        guard.restore();
    };
    const onSignal = (code: number) => (): void => {
        finish();
        process.exit(code);
    };
    const onSigterm = onSignal(143);
    const onSighup = onSignal(129);
    const onSigint = onSignal(130);
    const onFatal = (error: unknown): void => {
        finish();
        const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
        report(`north: unexpected error: ${text}\n`);
        process.exit(1);
    };
    const onExit = (): void => guard.restore();
    process.on("SIGTERM", onSigterm);
    process.on("SIGHUP", onSighup);
    // In raw mode Ctrl+C is a key, not a signal; this is `kill -INT`.
    process.on("SIGINT", onSigint);
    process.on("uncaughtException", onFatal);
    process.on("unhandledRejection", onFatal);
    process.on("exit", onExit);
    return {
        dispose() {
            process.off("SIGTERM", onSigterm);
            process.off("SIGHUP", onSighup);
            process.off("SIGINT", onSigint);
            process.off("uncaughtException", onFatal);
            process.off("unhandledRejection", onFatal);
            process.off("exit", onExit);
        },
    };
}
