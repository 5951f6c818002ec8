/** Standing auto-approval is shown beside the mode at all times (audit finding 5). */
import { describe, expect, it } from "vitest";
import { modeStatusLabel } from "../../src/ui/mode-label";
import { statusParts } from "../../src/ui/status-line";

describe("the status line's mode segment", () => {
    it("names standing auto-approval beside the mode", () => {
        expect(modeStatusLabel("agent", { commands: true, edits: false })).toBe(
            "agent · commands auto-approved"
        );
        expect(modeStatusLabel("agent", { commands: true, edits: true })).toBe(
            "agent · edits auto-accepted · commands auto-approved"
        );
        expect(modeStatusLabel("accept-edits", { commands: false, edits: true })).toBe(
            "accept edits on (settings)"
        );
        expect(modeStatusLabel("agent", { commands: false, edits: false })).toBe("agent");
        expect(modeStatusLabel("agent")).toBe("agent");
    });

    it("keeps the whole segment and drops costs and model for room instead", () => {
        const props = {
            width: 60,
            project: "proj",
            scrolled: false,
            mode: "agent" as const,
            model: "Some Model",
            contextUsedTokens: 1000,
            contextUsage: 0.1,
            sessionCostUsd: 0.1,
            allTimeCostUsd: 1,
        };
        const plain = statusParts(props);
        const standing = statusParts({ ...props, standing: { commands: true, edits: true } });
        expect(plain.model).toBe(true);
        expect(standing.model).toBe(false);
    });
});
