/**
 * Named keys for a program behind pipes, where there is no terminal to turn
 * Ctrl+C into a signal: the control keys a terminal would make signals of
 * are sent as those signals to the process group, Ctrl+D closes stdin, and
 * the rest are the bytes a terminal would send.
 */
import { ProcessError } from "./types";

export type PipeKeyAction =
    { kind: "bytes"; bytes: string } | { kind: "signal"; signal: NodeJS.Signals } | { kind: "eof" };

const SIGNAL_KEYS: Record<string, NodeJS.Signals> = {
    "ctrl+c": "SIGINT",
    "ctrl+\\": "SIGQUIT",
    "ctrl+z": "SIGTSTP",
};

const BYTE_KEYS: Record<string, string> = {
    enter: "\n",
    return: "\n",
    tab: "\t",
    space: " ",
    esc: "\x1b",
    escape: "\x1b",
    backspace: "\x7f",
    up: "\x1b[A",
    down: "\x1b[B",
    right: "\x1b[C",
    left: "\x1b[D",
    home: "\x1b[H",
    end: "\x1b[F",
};

/** What `name` does to a program behind pipes; a ProcessError "invalid" for an unknown name. */
export function pipeKeyAction(name: string): PipeKeyAction {
    const key = name
        .trim()
        .toLowerCase()
        .replace(/^control\+|^c-/, "ctrl+");
    const signal = SIGNAL_KEYS[key];
    if (signal) return { kind: "signal", signal };
    if (key === "ctrl+d") return { kind: "eof" };
    const bytes = BYTE_KEYS[key];
    if (bytes !== undefined) return { kind: "bytes", bytes };
    const ctrl = /^ctrl\+([a-z])$/.exec(key);
    if (ctrl) return { kind: "bytes", bytes: String.fromCharCode(ctrl[1]!.charCodeAt(0) - 96) };
    const known = [...Object.keys(SIGNAL_KEYS), "ctrl+d", ...Object.keys(BYTE_KEYS), "ctrl+a..z"];
    throw new ProcessError("invalid", `unknown key "${name}"; known keys: ${known.join(", ")}`);
}
