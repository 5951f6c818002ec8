/**
 * The one way a subcommand writes to the terminal. What it prints often
 * carries text North did not write (a project path, a first prompt, a
 * server's error, a config value), so every write goes through the same
 * sanitizer as the chat and print mode: escape sequences are removed whole
 * (7-bit and C1 forms), other controls too, newline and tab kept.
 * JSON output does not come here: it escapes instead (`jsonLine`).
 */
import { terminalSafeText } from "../util/terminal-text";

export function writeStdout(text: string): void {
    process.stdout.write(terminalSafeText(text));
}

export function writeStderr(text: string): void {
    process.stderr.write(terminalSafeText(text));
}

/** `north: MESSAGE` on stderr. */
export function printError(message: string): void {
    writeStderr(`north: ${message}\n`);
}

/** `north: warning: MESSAGE` on stderr. */
export function printWarning(message: string): void {
    writeStderr(`north: warning: ${message}\n`);
}
