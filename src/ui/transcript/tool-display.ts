/**
 * How tool calls read in the transcript (the spec's "Tool Display
 * Formatting"): a title from the arguments, then a suffix from the result's
 * `details` (entry counts, edit stats). Never parsed out of the model's text.
 * Each tool says how it reads (`display` on its definition); calls are known
 * here by name, since a stored conversation replays without its tool set.
 */
import { asArgs } from "../../tools/display-text";
import type { ToolDisplay } from "../../tools/types";

let displayOf: (name: string) => ToolDisplay | undefined = () => undefined;

/**
 * Loads the built-in tools' display data. The tools stay out of the first
 * frame's code: the chat calls this behind it (with the engine, which loads
 * them anyway), or before drawing a resumed conversation. Until then a call
 * reads as its name.
 */
export async function loadToolDisplays(): Promise<void> {
    const { builtinTool, PROPOSE_PLAN_TOOL, PROPOSE_PLAN_DISPLAY, TASK_TOOL, TASK_DISPLAY } =
        await import("./builtin-displays");
    // The engine's own tools (not in the tool set) read as their modules say.
    const engineTools = new Map([
        [PROPOSE_PLAN_TOOL, PROPOSE_PLAN_DISPLAY],
        [TASK_TOOL, TASK_DISPLAY],
    ]);
    displayOf = (name) => builtinTool(name)?.display ?? engineTools.get(name);
}

/** "Reading a.ts", "Listing project files"; tools without a title keep their name. */
export function toolTitle(name: string, input: unknown): string {
    return displayOf(name)?.title(asArgs(input)) ?? name;
}

/** What a successful result changes of the title: "Editing 3 files - …", " - 12 entries", " (+3/-1)". */
export function titleWithResult(name: string, title: string, details: unknown): string {
    const display = displayOf(name);
    const named = display?.titleAfterResult?.(title, details) ?? title;
    return named + (display?.resultSuffix?.(details) ?? "");
}

/** Lines under a finished call (a command's exit status and last output lines); `full`: all kept. */
export function resultDetail(name: string, details: unknown, full = false): string[] {
    return displayOf(name)?.resultDetail?.(details, full) ?? [];
}

/** A result that came back without succeeding (a command's non-zero exit), or undefined. */
export function resultStatus(name: string, details: unknown): "failed" | "cancelled" | undefined {
    return displayOf(name)?.resultStatus?.(details);
}
