/**
 * How tool calls read in the transcript (the spec's "Tool Display
 * Formatting"): a title from the arguments, then a suffix from the result's
 * `details` (entry counts, edit stats). Never parsed out of the model's text.
 * Each tool says how it reads (`display` on its definition); the engine
 * hands the chat its registry's table (`ToolDisplays`) once it is up.
 */
import type { ToolDisplays } from "../../agent/tool-displays";
import { asArgs } from "../../tools/display-text";

export type { ToolDisplays } from "../../agent/tool-displays";

/** "Reading a.ts", "Listing project files"; tools without a title keep their name. */
export function toolTitle(displays: ToolDisplays, name: string, input: unknown): string {
    return displays(name)?.title(asArgs(input)) ?? name;
}

/** What a successful result changes of the title: "Editing 3 files - …", " - 12 entries", " (+3/-1)". */
export function titleWithResult(
    displays: ToolDisplays,
    name: string,
    title: string,
    details: unknown
): string {
    const display = displays(name);
    const named = display?.titleAfterResult?.(title, details) ?? title;
    return named + (display?.resultSuffix?.(details) ?? "");
}

/** Lines under a finished call (a command's exit status and last output lines); `full`: all kept. */
export function resultDetail(
    displays: ToolDisplays,
    name: string,
    details: unknown,
    full = false
): string[] {
    return displays(name)?.resultDetail?.(details, full) ?? [];
}

/** A result that came back without succeeding (a command's non-zero exit), or undefined. */
export function resultStatus(
    displays: ToolDisplays,
    name: string,
    details: unknown
): "failed" | "cancelled" | undefined {
    return displays(name)?.resultStatus?.(details);
}
