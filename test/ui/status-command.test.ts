import { describe, expect, it } from "vitest";
import { statusLineInput, statusLineText } from "../../src/ui/status-command";

describe("the statusLine command", () => {
    it("gets the session in Claude Code's shape on stdin", () => {
        const input = statusLineInput({
            sessionId: "abc123",
            repoRoot: "/work/repo",
            cwd: "/work/repo",
            model: { id: "claude-sonnet-4-20250514", display: "Claude Sonnet 4" },
            version: "1.2.3",
            costUsd: 0.0156,
            contextUsedTokens: 50_000,
            contextLimitTokens: 200_000,
            mode: "agent",
        });
        expect(input).toEqual({
            hook_event_name: "Status",
            session_id: "abc123",
            cwd: "/work/repo",
            model: { id: "claude-sonnet-4-20250514", display_name: "Claude Sonnet 4" },
            workspace: { current_dir: "/work/repo", project_dir: "/work/repo" },
            version: "1.2.3",
            output_style: { name: "default" },
            cost: { total_cost_usd: 0.0156 },
            context_window: {
                context_window_size: 200_000,
                used_tokens: 50_000,
                used_percentage: 25,
            },
            mode: "agent",
        });
    });

    it("shows the first line, colours kept, anything else that could move the cursor removed", () => {
        expect(statusLineText("\n\x1b[34mmain\x1b[0m ok\nsecond line\n")).toBe(
            "\x1b[34mmain\x1b[0m ok"
        );
        expect(statusLineText("a\x1b[2Jb\x1b]0;title\x07c\x07d\r")).toBe("abcd");
        expect(statusLineText("")).toBe("");
    });
});
