/**
 * Text from the model, a file, a command or a server, made safe to write to a
 * terminal: escape sequences are removed whole (payload included), in their
 * 7-bit (ESC …) and 8-bit (C1: U+009B CSI, U+009D OSC …) forms, and so is
 * every other control character except newline and tab. Printable text,
 * Unicode and emoji pass unchanged.
 */

/* eslint-disable no-control-regex -- matching control characters is the point */
const SEQUENCE = new RegExp(
    [
        // CSI: parameters, intermediates, final byte (absent when the text ends first)
        "(?:\\x1b\\[|\\x9b)[0-?]*[ -/]*[@-~]?",
        // OSC, DCS, SOS, PM, APC: a string up to BEL or ST. An unterminated one ends
        // with its line, so a stray introducer cannot hide the rest of an answer.
        "(?:\\x1b[\\]PX^_]|[\\x90\\x98\\x9d-\\x9f])" +
            "(?:[^\\x07\\x1b\\x80-\\x9f]*(?:\\x07|\\x1b\\\\|\\x9c)|[^\\x07\\x1b\\x80-\\x9f\\n]*)",
        // Any other ESC sequence: intermediates, then a final byte; a lone ESC too
        "\\x1b[ -/]*[0-~]?",
    ].join("|"),
    "g"
);
const ANY_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;
const LONE_CR = /\r(?!\n)/g;
/* eslint-enable no-control-regex */

export interface TerminalTextOptions {
    /**
     * Keep every carriage return, for a caller that gives them a meaning (the
     * chat keeps what a progress bar wrote last). By default only the CR of a
     * CRLF stays: a lone one would let later text overwrite a line on screen.
     */
    keepCarriageReturns?: boolean;
}

export function terminalSafeText(text: string, options: TerminalTextOptions = {}): string {
    if (!ANY_CONTROL.test(text)) return text;
    const stripped = text.replace(SEQUENCE, "").replace(CONTROLS, "");
    return options.keepCarriageReturns ? stripped : stripped.replace(LONE_CR, "");
}

// --- Writing ---------------------------------------------------------------
// The one way the CLI writes text to the terminal. What a subcommand prints
// often carries text North did not write (a project path, a first prompt, a
// server's error, a config value), so every write is made safe first.
// JSON output does not come here: it escapes instead of stripping.

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
