import { createElement } from "react";
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
import { renderToFakeTerminal } from "./ink-harness";
import { hostOver, runResult } from "./helpers";

beforeAll(() => loadMarkdown());

const model: ModelInfo = {
    alias: "fake",
    id: "fake-model-1",
    display: "Fake Model One",
    provider: "anthropic",
    contextLimitTokens: 200_000,
    maxOutputTokens: 1000,
};

/** A session that answers every prompt with `reply`, or waits for cancellation. */
function fakeSession(reply: string | null) {
    const listeners = new Set<(e: EngineEvent) => void>();
    const emit = (e: EngineEvent) => listeners.forEach((l) => l(e));
    const prompts: string[] = [];
    const session = {
        sessionId: "abc",
        subscribe(listener: (e: EngineEvent) => void) {
            listeners.add(listener);
            return () => void listeners.delete(listener);
        },
        state(): SessionState {
            return {
                model,
                running: false,
                contextUsedTokens: 42_500,
                contextLimitTokens: 200_000,
                contextUsage: 0.2125,
                totalCostUsd: 0.0123,
                totalUsage: { ...EMPTY_USAGE },
            };
        },
        async run(prompt: string, options: { signal?: AbortSignal }) {
            prompts.push(prompt);
            emit({
                type: "run_start",
                sessionId: "abc",
                model: model.id,
                mode: "agent",
                tools: [],
                cwd: "/",
            });
            if (reply === null) {
                await new Promise((resolve) => options.signal?.addEventListener("abort", resolve));
                const result = runResult("cancelled");
                emit({ type: "run_end", result });
                return result;
            }
            emit({ type: "text_delta", text: reply });
            const result = runResult("success");
            emit({ type: "run_end", result });
            return result;
        },
    };
    return { session, prompts };
}

function mount(reply: string | null) {
    const { session, prompts } = fakeSession(reply);
    const bridge = createApprovalBridge();
    const host = hostOver(session);
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
    return { term, prompts, controller };
}

/** Waits for a state, not a duration: long enough for a loaded machine, never a pass condition. */
const WAIT = { timeout: 5000, interval: 5 };

/** Resolves once the last frame contains `text`. */
function shows(term: ReturnType<typeof mount>["term"], text: string): Promise<void> {
    return vi.waitFor(() => expect(term.lastFrame()).toContain(text), WAIT);
}

let cleanup: (() => void) | null = null;
afterEach(() => {
    cleanup?.();
    cleanup = null;
});

describe("App", () => {
    it("shows the composer and status line, and sends a typed prompt", async () => {
        const { term, prompts, controller } = mount("The answer is **42**.");
        cleanup = () => term.instance.unmount();
        await shows(term, "demo-project");
        // The status line names the model as people do, not by its pinned id.
        expect(term.lastFrame()).toContain("Fake Model One");
        expect(term.lastFrame()).not.toContain("fake-model-1");
        expect(term.lastFrame()).toContain("42.5K (21%)");
        expect(term.lastFrame()).toContain("$0.012");
        await term.type("what is it?");
        await shows(term, "❯ what is it?");
        await term.type("\r");
        await shows(term, "The answer is 42.");
        expect(prompts).toEqual(["what is it?"]);
        expect(controller.isBusy()).toBe(false);
        expect(term.lastFrame()).toContain("The answer is 42.");
    });

    it("cycles the mode badge with Tab", async () => {
        const { term } = mount("ok");
        cleanup = () => term.instance.unmount();
        await shows(term, " agent ");
        await term.type("\t");
        await shows(term, " accept-edits ");
        await term.type("\t");
        await shows(term, " plan ");
        await term.type("\t");
        await shows(term, " ask ");
        await term.type("\t");
        await shows(term, " agent ");
    });

    it("cancels a run with Ctrl+C; at the idle composer one more asks, and another exits", async () => {
        const { term, controller } = mount(null);
        await shows(term, "Enter to send");
        await term.type("wait forever");
        await shows(term, "❯ wait forever");
        await term.type("\r");
        await shows(term, "Ctrl+C to cancel");
        expect(controller.isBusy()).toBe(true);
        await term.type("\x03");
        await shows(term, "[Cancelled]");
        await vi.waitFor(() => expect(controller.isBusy()).toBe(false), WAIT);
        const exited = vi.fn();
        void term.instance.waitUntilExit().then(exited);
        await term.type("\x03");
        await shows(term, "Press Ctrl+C again to exit");
        expect(exited).not.toHaveBeenCalled();
        await term.type("\x03");
        await vi.waitFor(() => expect(exited).toHaveBeenCalled(), WAIT);
    });

    it("scrolls with PageUp and shows [SCROLL], back to following with PageDown", async () => {
        const { term, controller } = mount("ok");
        cleanup = () => term.instance.unmount();
        for (let i = 0; i < 40; i++)
            controller.store.dispatch({ type: "notice", level: "info", text: `note ${i}` });
        await shows(term, "note 39");
        await term.type("\x1b[5~");
        await shows(term, "[SCROLL]");
        expect(term.lastFrame()).not.toContain("note 39");
        await term.type("\x1b[6~");
        await shows(term, "note 39");
        expect(term.lastFrame()).not.toContain("[SCROLL]");
    });
});
