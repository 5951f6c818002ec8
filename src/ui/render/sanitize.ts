/**
 * Text from the model or a command, made safe to draw: escape sequences and
 * control characters would move the cursor or restyle the terminal under the
 * renderer. A carriage return (progress bars) keeps what was written last.
 */

/* eslint-disable no-control-regex -- matching control characters is the point */
const ESCAPES =
    /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[@-Z\\-_])/g;
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f]/g;
const HAS_CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/;
/* eslint-enable no-control-regex */

function lastWritten(line: string): string {
    if (!line.includes("\r")) return line;
    const parts = line.split("\r");
    return parts.findLast((part) => part !== "") ?? "";
}

export function sanitizeText(text: string): string {
    if (!HAS_CONTROL.test(text)) return text;
    return text
        .replace(ESCAPES, "")
        .replace(/\r\n/g, "\n")
        .split("\n")
        .map(lastWritten)
        .join("\n")
        .replace(CONTROLS, "");
}
