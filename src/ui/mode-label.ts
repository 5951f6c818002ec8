/** How the chat names each mode (status line, notices); `/mode` takes the ids of `MODES`. */
import type { StandingAutoApproval } from "../agent/approvals";
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

/**
 * The mode as the status line shows it, with any standing auto-approval in
 * force beside it: "agent · commands auto-approved", "accept edits on
 * (settings)". A standing approval is never out of sight.
 */
export function modeStatusLabel(mode: Mode, standing?: StandingAutoApproval): string {
    const parts = [modeLabel(mode)];
    // Settings accept edits: the accept-edits mode says so itself; other modes name it.
    if (standing?.edits) {
        if (mode === "accept-edits") parts[0] = `${parts[0]} (settings)`;
        else if (mode !== "plan" && mode !== "ask") parts.push("edits auto-accepted");
    }
    if (standing?.commands && mode !== "plan" && mode !== "ask")
        parts.push("commands auto-approved");
    return parts.join(" · ");
}

/** The transcript line of a mode the engine switched to (an edit review's "for the session"). */
export function modeChangeNotice(mode: Mode): string {
    return mode === "accept-edits"
        ? "Accept edits on: edits are applied without review for the rest of this session (Shift+Tab switches the mode back)."
        : `Mode: ${modeLabel(mode)}.`;
}
