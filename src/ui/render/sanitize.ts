/**
 * Text from the model or a command, made safe to draw: escape sequences (ESC
 * and C1 forms) and control characters would move the cursor, retitle or
 * clear the terminal under the renderer. A carriage return (progress bars)
 * keeps what was written last.
 */
import { terminalSafeText } from "../../util/terminal-text";

function lastWritten(line: string): string {
    if (!line.includes("\r")) return line;
    const parts = line.split("\r");
    return parts.findLast((part) => part !== "") ?? "";
}

export function sanitizeText(text: string): string {
    const clean = terminalSafeText(text, { keepCarriageReturns: true });
    if (!clean.includes("\r")) return clean;
    return clean.replace(/\r\n/g, "\n").split("\n").map(lastWritten).join("\n");
}
