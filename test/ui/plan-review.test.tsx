import { stripVTControlCharacters } from "node:util";
import type { ReactElement, ReactNode } from "react";
import { beforeAll, describe, expect, it } from "vitest";
import type { ApprovalDecision, ApprovalRequest } from "../../src/agent/approvals";
import { createApprovalBridge, resolvedReviewOf } from "../../src/ui/approval-bridge";
import { KeyGateContext, useKeyGateFeed } from "../../src/ui/hooks/use-key-gate";
import { createKeyGate } from "../../src/ui/input/key-gate";
import { createAnsi } from "../../src/ui/render/ansi";
import { loadMarkdown } from "../../src/ui/render/markdown";
import { learningPromptKey } from "../../src/ui/reviews/learning-prompt";
import { PendingReviewView } from "../../src/ui/reviews/pending-review";
import { type PlanInput, planReviewKey } from "../../src/ui/reviews/plan-review";
import { renderToFakeTerminal } from "./ink-harness";

const planRequest: ApprovalRequest = {
    id: "p1",
    kind: "plan",
    toolName: "propose_plan",
    toolCallId: "c1",
    input: {},
    summary: "# Plan",
    plan: "# Plan\n\n1. Add a **cache**\n2. Test it",
};

beforeAll(() => loadMarkdown());

const choose: PlanInput = { phase: "choose" };

describe("plan review keys", () => {
    it("a accepts; r asks for feedback that Enter sends as the reason", () => {
        expect(planReviewKey(choose, "a", {}).decision).toEqual({ outcome: "approve" });
        let state = planReviewKey(choose, "r", {}).input;
        expect(state).toEqual({ phase: "feedback", text: "" });
        for (const ch of ["keep", " it", "x"]) state = planReviewKey(state, ch, {}).input;
        state = planReviewKey(state, "", { backspace: true }).input;
        expect(state).toEqual({ phase: "feedback", text: "keep it" });
        // While typing feedback, a and r are text, not decisions.
        expect(planReviewKey(state, "a", {}).decision).toBeUndefined();
        expect(planReviewKey(state, "", { return: true }).decision).toEqual({
            outcome: "deny",
            reason: "keep it",
        });
    });

    it("Esc or an empty feedback rejects without a reason", () => {
        const feedback: PlanInput = { phase: "feedback", text: "half" };
        expect(planReviewKey(feedback, "", { escape: true }).decision).toEqual({ outcome: "deny" });
        const empty: PlanInput = { phase: "feedback", text: "  " };
        expect(planReviewKey(empty, "", { return: true }).decision).toEqual({ outcome: "deny" });
        expect(planReviewKey(choose, "", { downArrow: true }).scroll).toBe(1);
    });

    it("records the outcome with the feedback", () => {
        expect(resolvedReviewOf(planRequest, { outcome: "approve" })).toMatchObject({
            kind: "plan",
            status: "accepted",
        });
        const rejected = resolvedReviewOf(planRequest, { outcome: "deny", reason: "smaller" });
        expect(rejected.status).toBe("rejected");
        expect(rejected.summary).toContain("feedback: smaller");
    });

    it("learning prompt keys", () => {
        expect(learningPromptKey("y", {})).toBe(true);
        expect(learningPromptKey("n", {})).toBe(false);
        expect(learningPromptKey("", { escape: true })).toBeNull();
        expect(learningPromptKey("x", {})).toBeUndefined();
    });
});

describe("plan review through the bridge", () => {
    it("shows the plan as Markdown and sends typed feedback as the denial reason", async () => {
        const bridge = createApprovalBridge();
        const decision = bridge.approver(planRequest, new AbortController().signal);
        const pending = bridge.current();
        expect(pending?.kind).toBe("plan");
        const term = renderToFakeTerminal(
            <PendingReviewView
                review={pending!}
                width={70}
                animate={false}
                ansi={createAnsi(false)}
            />
        );
        try {
            await term.settle();
            const frame = stripVTControlCharacters(term.lastFrame());
            expect(frame).toContain("Proposed plan");
            expect(frame).toContain("Add a cache");
            expect(frame).toContain("[a] accept");
            await term.type("r");
            expect(stripVTControlCharacters(term.lastFrame())).toContain("What should change?");
            await term.type("split it");
            await term.type("\r");
            const expected: ApprovalDecision = { outcome: "deny", reason: "split it" };
            await expect(decision).resolves.toEqual(expected);
        } finally {
            term.instance.unmount();
        }
    });

    it("asks the learning question and resolves with the answer", async () => {
        // The gate on a clock the test moves: the question yields to keys typed just before
        // it appeared, and holds a lone y/n a moment in case more typing follows.
        let now = 0;
        const timers = new Set<() => void>();
        const gate = createKeyGate(() => now, {
            set: (run) => (timers.add(run), run),
            clear: (handle) => void timers.delete(handle as () => void),
        });
        const WithGate = ({ children }: { children: ReactNode }): ReactElement => {
            useKeyGateFeed(gate);
            return <KeyGateContext.Provider value={gate}>{children}</KeyGateContext.Provider>;
        };
        const bridge = createApprovalBridge();
        const answer = bridge.askLearning();
        const term = renderToFakeTerminal(
            <WithGate>
                <PendingReviewView review={bridge.current()!} width={70} animate />
            </WithGate>
        );
        try {
            await term.settle();
            expect(stripVTControlCharacters(term.lastFrame())).toContain("Learn this project?");
            now += 5_000;
            await term.type("n");
            // Nothing follows the n: it is the answer.
            now += 5_000;
            for (const run of [...timers]) {
                timers.delete(run);
                run();
            }
            await expect(answer).resolves.toBe(false);
            expect(bridge.current()).toBeNull();
        } finally {
            term.instance.unmount();
        }
    });
});
