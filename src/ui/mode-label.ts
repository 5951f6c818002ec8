/** How the chat names each mode (status line, notices); `/mode` takes the ids of `MODES`. */
import type { Mode } from "../agent/events";

const MODE_LABELS: Record<Mode, string> = {
    ask: "ask",
    agent: "agent",
    "accept-edits": "accept edits on",
    plan: "plan",
};

export function modeLabel(mode: Mode): string {
    return MODE_LABELS[mode];
}

/** The transcript line of a mode the engine switched to (an edit review's "for the session"). */
export function modeChangeNotice(mode: Mode): string {
    return mode === "accept-edits"
        ? "Accept edits on: edits are applied without review for the rest of this session (Shift+Tab switches the mode back)."
        : `Mode: ${modeLabel(mode)}.`;
}
