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
import { MENU_READY_HINT } from "../../src/ui/reviews/review-menu";
import {
    approvalOptions,
    INITIAL_MENU_STATE,
    type MenuKey,
    menuKey,
} from "../../src/ui/reviews/review-options";
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

const options = approvalOptions(planRequest);

/** The menu after `keys` (each an input string and Ink's key), and its answer if any. */
function menuAfter(keys: Array<[string, MenuKey]>) {
    let state = INITIAL_MENU_STATE;
    let answer: ApprovalDecision | undefined;
    for (const [input, key] of keys) {
        const result = menuKey(options, state, input, key);
        state = result.state;
        if (result.answer) answer = result.answer.value;
    }
    return { state, answer };
}

describe("plan review menu", () => {
    it("1 starts on the plan; 2 asks for feedback that Enter sends as the reason", () => {
        expect(menuAfter([["1", {}]]).answer).toEqual({ outcome: "approve" });
        const typing = menuAfter([
            ["2", {}],
            ["keep", {}],
            [" it", {}],
            ["x", {}],
            ["", { backspace: true }],
        ]);
        expect(typing.state.reason).toBe("keep it");
        // While typing feedback, digits and letters are text, not answers.
        expect(typing.answer).toBeUndefined();
        expect(
            menuAfter([
                ["2", {}],
                ["keep it 1", {}],
                ["", { return: true }],
            ]).answer
        ).toEqual({ outcome: "deny", reason: "keep it 1" });
    });

    it("Esc, then Esc or an empty feedback, keeps planning without a reason; letters do nothing", () => {
        expect(menuAfter([["", { escape: true }]]).state.reason).toBe("");
        const escTwice = menuAfter([
            ["", { escape: true }],
            ["half", {}],
            ["", { escape: true }],
        ]);
        expect(escTwice.answer).toEqual({ outcome: "deny" });
        const empty = menuAfter([
            ["", { escape: true }],
            ["  ", {}],
            ["", { return: true }],
        ]);
        expect(empty.answer).toEqual({ outcome: "deny" });
        for (const letter of ["a", "r", "y", "n", "d"]) {
            expect(menuAfter([[letter, {}]])).toEqual({
                state: INITIAL_MENU_STATE,
                answer: undefined,
            });
        }
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
            // The menu's last option is the review's last row drawn.
            await term.shows("2. No, keep planning");
            const frame = stripVTControlCharacters(term.lastFrame());
            expect(frame).toContain("Proposed plan");
            expect(frame).toContain("Add a cache");
            expect(frame).toContain("1. Yes, start on this plan");
            expect(frame).toContain("2. No, keep planning, and tell North what to change");
            // The review takes keys once its guard lifts: wait for that state, not a time.
            await term.shows(MENU_READY_HINT);
            await term.type("\u001b");
            await term.shows("what instead?");
            await term.type("split it");
            await term.shows("split it");
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
            await term.shows("Learn this project?");
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
