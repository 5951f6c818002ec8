/**
 * `/copy` in the chat: the N-th last answer (its markdown source) goes to
 * the clipboard through OSC 52 and through the first clipboard program
 * found, and the result says which of them took it.
 */
import type { Outcome } from "../agent/protocol";
import {
    type ClipboardEnv,
    type ClipboardTool,
    type ToolRun,
    clipboardInstallHint,
    copyTool,
    fitsOsc52,
    knownOsc52Terminal,
    OSC52_MAX_BASE64,
    osc52,
    runClipboardTool,
} from "./terminal/clipboard";
import type { Entry } from "./transcript/types";

export interface CopyDeps {
    clipboard: ClipboardEnv;
    /** The chat's output is a terminal (OSC 52 reaches one). */
    tty: boolean;
    /** Writes to the terminal as it is (an escape sequence between frames). */
    write(sequence: string): void;
    run?: (tool: ClipboardTool, options: { input: string }) => Promise<ToolRun>;
}

/** The text of the `nth` last answer (1: the latest); undefined when there are fewer. */
export function nthLastAnswer(entries: readonly Entry[], nth: number): string | undefined {
    let seen = 0;
    for (let i = entries.length - 1; i >= 0; i--) {
        const entry = entries[i];
        if (entry?.kind !== "assistant" || entry.text.trim() === "") continue;
        seen += 1;
        if (seen === nth) return entry.text;
    }
    return undefined;
}

const count = (n: number): string => n.toLocaleString("en-US");

/** Copies `text`; the outcome names what took it, or what to install. */
export async function copyText(text: string, deps: CopyDeps): Promise<Outcome> {
    const { env } = deps.clipboard;
    const via: string[] = [];
    const notes: string[] = [];
    if (deps.tty) {
        if (fitsOsc52(text)) {
            deps.write(osc52(text, env));
            via.push("OSC 52");
        } else {
            notes.push(`too long for OSC 52 (over ${count((OSC52_MAX_BASE64 / 4) * 3)} bytes)`);
        }
    }
    const tool = copyTool(deps.clipboard);
    if (tool) {
        const run = await (deps.run ?? runClipboardTool)(tool, { input: text, env });
        if (run.ok) via.push(tool.name);
        else notes.push(run.error);
    }
    const length = [...text].length;
    const size = `${count(length)} ${length === 1 ? "character" : "characters"}`;
    if (via.length === 0) {
        const why = notes.length > 0 ? `${notes.join("; ")}; ` : "";
        return {
            message: `nothing copied: ${why}no clipboard program found (${clipboardInstallHint(deps.clipboard, false)})`,
            isError: true,
        };
    }
    let message = `copied ${size} (${via.join(" + ")})`;
    if (notes.length > 0) message += `; ${notes.join("; ")}`;
    if (!tool && !knownOsc52Terminal(env)) {
        message += `. This terminal may ignore OSC 52; for the system clipboard ${clipboardInstallHint(deps.clipboard, false)}`;
    }
    return { message };
}
