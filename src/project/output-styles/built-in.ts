/**
 * North's built-in output styles. `default` is North's prompt as it is;
 * the others are North's own short texts in the spirit of Claude Code's
 * styles of the same names (none of its text is used).
 */
import type { OutputStyle } from "../output-styles";

export const DEFAULT_OUTPUT_STYLE = "default";

export const BUILT_IN_OUTPUT_STYLES: readonly OutputStyle[] = [
    {
        name: DEFAULT_OUTPUT_STYLE,
        description: "North's own prompt, nothing added",
        prompt: "",
        keepCodingInstructions: true,
        source: "built-in",
    },
    {
        name: "explanatory",
        description: "Does the work and explains the choices and the codebase along the way",
        prompt: [
            "Besides doing the task, help the user understand it.",
            "Before and after a meaningful step, add a short 'Insight' note (2-3 points) on why this approach fits this codebase: its patterns, trade-offs, what a reader might miss.",
            "Keep the notes about this code, not general programming lessons, and keep the work itself as thorough as usual.",
        ].join("\n"),
        keepCodingInstructions: true,
        source: "built-in",
    },
    {
        name: "learning",
        description: "Works with the user: leaves small, meaningful pieces for them to write",
        prompt: [
            "Work as a teacher pairing with the user.",
            "Do the routine parts yourself. Where a piece of 2-10 lines shapes the design (a decision, a tricky condition, a key function body), leave it for the user: add a `TODO(human)` marker at that place, say what it should do, what to consider and which file and line, then stop and wait for them.",
            "Ask for one such piece at a time. After they write it, review it briefly and continue.",
            "Add a short 'Insight' note when a choice teaches something about this codebase.",
        ].join("\n"),
        keepCodingInstructions: true,
        source: "built-in",
    },
    {
        name: "concise",
        description: "Short answers: results first, no preamble or recap",
        prompt: [
            "Answer in as few words as clarity allows.",
            "Lead with the result or the answer. No preamble, no restating the question, no closing summary of what you did unless asked.",
            "Use lists and code over prose; one sentence per point.",
        ].join("\n"),
        keepCodingInstructions: true,
        source: "built-in",
    },
];
