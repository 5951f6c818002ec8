/**
 * A reviewed call is one entry: it waits without a clock while its review is
 * open, and the decision shows on its own lines (a command's before its
 * output, an edit's as the entry's ✓ Accepted line with its diff).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { refusalReason } from "../../src/agent/approval-menu";
import type { ApprovalRequest } from "../../src/agent/approvals";
import type { FileDiff } from "../../src/tools/types";
import { resolvedReviewOf } from "../../src/ui/approval-bridge";
import { createAnsi } from "../../src/ui/render/ansi";
import { renderEntry } from "../../src/ui/render/entry-lines";
import { loadMarkdown } from "../../src/ui/render/markdown";
import {
    animationInterval,
    elapsedSuffix,
    hasRunningTool,
} from "../../src/ui/transcript-animation";
import type { TranscriptAction } from "../../src/ui/transcript/reducer";
import type { Entry } from "../../src/ui/transcript/types";
import { builtinDisplays, ev, plain, reduce } from "./helpers";

beforeAll(() => loadMarkdown());

const PLAIN = createAnsi(false);
const lines = (entry: Entry) => renderEntry(entry, 80, PLAIN).lines.map(plain);

const start = ev({
    type: "run_start",
    sessionId: "s",
    model: "m",
    mode: "agent",
    tools: [],
    cwd: "/r",
});
const displays: TranscriptAction = { type: "tool_displays", displays: builtinDisplays };

const shellRequest: ApprovalRequest = {
    id: "r1",
    kind: "shell",
    toolName: "shell_run",
    toolCallId: "c1",
    input: { command: "echo hi" },
    summary: "echo hi",
    command: "echo hi",
};

const newFile: FileDiff = {
    path: "a.ts",
    diff: ["--- /dev/null", "+++ b/a.ts", "@@ -0,0 +1 @@", "+x", ""].join("\n"),
    linesAdded: 1,
    linesRemoved: 0,
    isNewFile: true,
};

const writeRequest: ApprovalRequest = {
    id: "r2",
    kind: "write",
    toolName: "edit_create_file",
    toolCallId: "c2",
    input: { path: "a.ts", content: "x\n" },
    summary: "Creating a.ts",
    diffs: [newFile],
};

const waiting: TranscriptAction[] = [
    displays,
    start,
    ev({ type: "tool_call", id: "c1", name: "shell_run", input: { command: "echo hi" } }),
    ev({ type: "approval_request", request: shellRequest }),
];

describe("a call waiting for its review", () => {
    it("says it waits, runs no clock and no spinner", () => {
        const state = reduce(waiting);
        const entry = state.entries.at(-1)!;
        expect(lines(entry)[0]).toMatch(/echo hi · waiting for your review$/);
        expect(hasRunningTool(state.entries)).toBe(false);
        expect(animationInterval(state.entries)).toBeNull();
        expect(elapsedSuffix(entry, PLAIN, Date.now() + 60_000)).toBeUndefined();
    });

    it("starts its clock when the review is answered", () => {
        const before = Date.now();
        const state = reduce([
            ...waiting,
            { type: "review", review: resolvedReviewOf(shellRequest, { outcome: "approve" }) },
            ev({ type: "approval_decision", requestId: "r1", decision: { outcome: "approve" } }),
        ]);
        const entry = state.entries.at(-1)!;
        expect(entry.kind === "tool" && entry.startedAt! >= before).toBe(true);
        expect(hasRunningTool(state.entries)).toBe(true);
        expect(plain(elapsedSuffix(entry, PLAIN, Date.now() + 3_000) ?? "")).toBe(" 3s");
    });
});

describe("a review's outcome", () => {
    it("shows on an approved command's line, before its output; no second entry", () => {
        const state = reduce([
            ...waiting,
            { type: "review", review: resolvedReviewOf(shellRequest, { outcome: "approve" }) },
            ev({ type: "approval_decision", requestId: "r1", decision: { outcome: "approve" } }),
            ev({ type: "tool_output", id: "c1", name: "shell_run", text: "hi\n" }),
        ]);
        expect(state.entries.map((e) => e.kind)).toEqual(["tool"]);
        const shown = lines(state.entries[0]!);
        expect(shown[0]).toMatch(/echo hi · approved$/);
        expect(shown[1]).toContain("hi");
    });

    it("says a denial and its reason under the command", () => {
        const state = reduce([
            ...waiting,
            {
                type: "review",
                review: resolvedReviewOf(shellRequest, {
                    outcome: "deny",
                    reason: refusalReason("the user refused", "use printf"),
                }),
            },
        ]);
        expect(state.entries.map((e) => e.kind)).toEqual(["tool"]);
        expect(lines(state.entries[0]!)[1]?.trim()).toBe('Denied: echo hi — "use printf"');
    });

    it("is an accepted edit's own line, with its diff, once", () => {
        const state = reduce([
            displays,
            start,
            ev({
                type: "tool_call",
                id: "c2",
                name: "edit_create_file",
                input: writeRequest.input,
            }),
            ev({ type: "approval_request", request: writeRequest }),
            { type: "review", review: resolvedReviewOf(writeRequest, { outcome: "approve" }) },
            ev({ type: "approval_decision", requestId: "r2", decision: { outcome: "approve" } }),
            ev({
                type: "tool_result",
                id: "c2",
                name: "edit_create_file",
                ok: true,
                content: "created",
                durationMs: 1,
            }),
        ]);
        expect(state.entries.map((e) => e.kind)).toEqual(["tool"]);
        const shown = lines(state.entries[0]!);
        expect(shown[0]).toMatch(/^✓ +Accepted: Creating a\.ts \(\+1 −0\)$/);
        expect(shown.join("\n")).not.toContain("⚡");
        expect(shown.join("\n")).toContain("1 +x");
    });

    it("keeps the call's own title when the review has no diff (a web request)", () => {
        const fetch: ApprovalRequest = {
            id: "r3",
            kind: "write",
            toolName: "web_fetch",
            toolCallId: "c3",
            input: { url: "https://example.com/" },
            summary: "https://example.com/",
            domain: "example.com",
        };
        const state = reduce([
            displays,
            start,
            ev({ type: "tool_call", id: "c3", name: "web_fetch", input: fetch.input }),
            ev({ type: "approval_request", request: fetch }),
            { type: "review", review: resolvedReviewOf(fetch, { outcome: "approve" }) },
            ev({ type: "approval_decision", requestId: "r3", decision: { outcome: "approve" } }),
        ]);
        expect(state.entries.map((e) => e.kind)).toEqual(["tool"]);
        expect(lines(state.entries[0]!)[0]).toMatch(/example\.com.* · approved$/);
    });

    it("stays a separate line when its call is not in the transcript (an older log)", () => {
        const { toolCallId: _call, ...older } = resolvedReviewOf(shellRequest, {
            outcome: "approve",
        });
        const state = reduce([start, { type: "review", review: older }]);
        expect(state.entries.map((e) => e.kind)).toEqual(["review"]);
    });
});
