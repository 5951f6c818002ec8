import { act, createElement } from "react";
import { shellStandingOptions } from "../../src/agent/approval-requirement";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { EngineEvent } from "../../src/agent/events";
import type { SessionState } from "../../src/agent/session";
import type { ModelInfo } from "../../src/providers/catalogue";
import { EMPTY_USAGE } from "../../src/providers/types";
import { App } from "../../src/ui/app";
import { createApprovalBridge } from "../../src/ui/approval-bridge";
import { createAppController } from "../../src/ui/controller";
import { createAnsi } from "../../src/ui/render/ansi";
import { createLineCache } from "../../src/ui/render/line-cache";
import { loadMarkdown } from "../../src/ui/render/markdown";
import {
    BORDER_PULSE_CYCLES,
    BORDER_PULSE_MS,
    PendingReviewView,
} from "../../src/ui/reviews/pending-review";
import { createTranscriptStore } from "../../src/ui/transcript/store";
import { renderToFakeTerminal } from "./ink-harness";
import { hostOver, runResult } from "./helpers";

beforeAll(() => loadMarkdown());

/** Timers the store is given: fired by the test, with a clock it moves. */
function manualClock() {
    let now = 0;
    const due: Array<{ at: number; fn: () => void }> = [];
    return {
        now: () => now,
        setTimer: (fn: () => void, ms: number) => {
            const timer = { at: now + ms, fn };
            due.push(timer);
            return timer;
        },
        clearTimer: (handle: unknown) => {
            const at = due.indexOf(handle as (typeof due)[number]);
            if (at !== -1) due.splice(at, 1);
        },
        /** Moves the clock by `ms`, firing what falls due. */
        advance(ms: number) {
            now += ms;
            for (const timer of due.filter((t) => t.at <= now)) {
                due.splice(due.indexOf(timer), 1);
                timer.fn();
            }
        },
        pending: () => due.length,
    };
}

describe("the transcript store's frames (frameMs)", () => {
    it("notifies the first engine event at once and the rest of a frame once, at its end", () => {
        const clock = manualClock();
        const store = createTranscriptStore({ ...clock, frameMs: 33 });
        let notified = 0;
        store.subscribe(() => notified++);
        store.push({ type: "tool_call_start", id: "a", name: "read_file" });
        expect(notified).toBe(1);
        store.push({ type: "tool_call_start", id: "b", name: "read_file" });
        store.push({ type: "tool_call_start", id: "c", name: "read_file" });
        // The state is current at once; only the notification waits for the frame.
        expect(store.getState().entries).toHaveLength(3);
        expect(notified).toBe(1);
        clock.advance(32);
        expect(notified).toBe(1);
        clock.advance(1);
        expect(notified).toBe(2);
        expect(clock.pending()).toBe(0);
        // A frame later an event notifies at once again.
        clock.advance(33);
        store.push({ type: "tool_call_start", id: "d", name: "read_file" });
        expect(notified).toBe(3);
    });

    it("lets an action of the chat notify at once, taking the frame's pending notification with it", () => {
        const clock = manualClock();
        const store = createTranscriptStore({ ...clock, frameMs: 33 });
        let notified = 0;
        store.subscribe(() => notified++);
        store.push({ type: "tool_call_start", id: "a", name: "read_file" });
        store.push({ type: "tool_call_start", id: "b", name: "read_file" });
        store.dispatch({ type: "notice", level: "info", text: "hello" });
        expect(notified).toBe(2);
        expect(clock.pending()).toBe(0);
        store.dispose();
    });

    it("sets no timer when nothing arrives", () => {
        const clock = manualClock();
        const store = createTranscriptStore({ ...clock, frameMs: 33, flushMs: 100 });
        store.push({ type: "text_delta", text: "streamed" });
        clock.advance(100);
        expect(store.getState().entries[0]).toMatchObject({ text: "streamed" });
        expect(clock.pending()).toBe(0);
    });
});

const model: ModelInfo = {
    alias: "fake",
    id: "fake-model-1",
    display: "Fake Model One",
    provider: "anthropic",
    contextLimitTokens: 200_000,
    maxOutputTokens: 1000,
};

/** A session that answers every prompt with `reply` in one delta. */
function answeringSession(reply: string) {
    const listeners = new Set<(e: EngineEvent) => void>();
    const emit = (e: EngineEvent) => listeners.forEach((l) => l(e));
    return {
        sessionId: "abc",
        subscribe(listener: (e: EngineEvent) => void) {
            listeners.add(listener);
            return () => void listeners.delete(listener);
        },
        state(): SessionState {
            return {
                model,
                running: false,
                contextUsedTokens: 1000,
                contextLimitTokens: 200_000,
                contextUsage: 0.005,
                totalCostUsd: 0,
                totalUsage: { ...EMPTY_USAGE },
            };
        },
        async run() {
            emit({
                type: "run_start",
                sessionId: "abc",
                model: model.id,
                mode: "agent",
                tools: [],
                cwd: "/",
            });
            emit({ type: "text_delta", text: reply });
            const result = runResult("success");
            emit({ type: "run_end", result });
            return result;
        },
    };
}

afterEach(() => {
    vi.useRealTimers();
});

describe("the chat at idle", () => {
    it("keeps no timer once an answer has ended: nothing ticks when nothing changes", async () => {
        // Timers only: Ink's input and React's scheduler run on real immediates.
        vi.useFakeTimers({
            toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"],
        });
        const bridge = createApprovalBridge();
        const host = hostOver(answeringSession("The answer is **42**."));
        const controller = createAppController({ host, bridge });
        const ansi = createAnsi(false);
        const term = renderToFakeTerminal(
            createElement(App, {
                controller,
                session: host,
                bridge,
                ansi,
                cache: createLineCache(ansi),
                projectName: "demo-project",
                initialMode: "agent",
                altScreen: true,
            })
        );
        try {
            await term.shows("demo-project");
            await term.type("what is it?");
            await term.shows("❯ what is it?");
            await term.type("\r");
            await term.shows("The answer is 42.");
            await vi.waitFor(() => expect(controller.isBusy()).toBe(false));
            // One-shot waits (the key gate's settling after Enter) run out; nothing repeats.
            vi.advanceTimersByTime(1_000);
            expect(vi.getTimerCount()).toBe(0);
            // And a minute of idle draws nothing.
            const frames = term.frameCount();
            vi.advanceTimersByTime(60_000);
            await new Promise((resolve) => setImmediate(resolve));
            expect(term.frameCount()).toBe(frames);
        } finally {
            term.instance.unmount();
            controller.dispose();
        }
    });
});

describe("a review left waiting", () => {
    it("pulses its border a few cycles, then rests: no timer, no frames", async () => {
        vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
        const bridge = createApprovalBridge();
        void bridge.approver(
            {
                id: "approval-1",
                kind: "shell",
                toolName: "shell_run",
                toolCallId: "approval-1",
                input: { command: "ls" },
                summary: "ls",
                command: "ls",
                standingOptions: shellStandingOptions(
                    { command: "ls", rememberKey: "ls" },
                    null,
                    true
                ),
            },
            new AbortController().signal
        );
        const term = renderToFakeTerminal(
            createElement(PendingReviewView, {
                review: bridge.current()!,
                width: 60,
                animate: true,
            })
        );
        try {
            await term.shows("ls");
            const before = term.frameCount();
            act(() => {
                vi.advanceTimersByTime(BORDER_PULSE_MS);
            });
            expect(term.frameCount()).toBeGreaterThan(before);
            act(() => {
                vi.advanceTimersByTime(BORDER_PULSE_CYCLES * 10 * BORDER_PULSE_MS);
            });
            expect(vi.getTimerCount()).toBe(0);
            const rested = term.frameCount();
            act(() => {
                vi.advanceTimersByTime(60_000);
            });
            expect(term.frameCount()).toBe(rested);
        } finally {
            term.instance.unmount();
            bridge.cancelAll();
        }
    });
});
