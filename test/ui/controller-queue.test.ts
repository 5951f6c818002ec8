import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/agent/events";
import { createApprovalBridge } from "../../src/ui/approval-bridge";
import { createAppController } from "../../src/ui/controller";
import { memoryNoteOf } from "../../src/ui/memory-note";
import { hostOver, runResult } from "./helpers";

/** A session whose runs end when the test says, with success or an error. */
function heldSession() {
    const prompts: string[] = [];
    const ends: Array<(error?: Error) => void> = [];
    const session = {
        subscribe: (_listener: (e: EngineEvent) => void) => () => {},
        run(prompt: string, options: { signal?: AbortSignal }) {
            prompts.push(prompt);
            return new Promise<ReturnType<typeof runResult>>((resolve, reject) => {
                ends.push((error) => (error ? reject(error) : resolve(runResult("success"))));
                options.signal?.addEventListener("abort", () => resolve(runResult("cancelled")));
            });
        },
    };
    return { session, prompts, end: (error?: Error) => ends.shift()?.(error) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("controller queue", () => {
    it("queues inputs sent while busy, joined, and sends them when the run ends", async () => {
        const { session, prompts, end } = heldSession();
        const controller = createAppController({
            host: hostOver(session),
            bridge: createApprovalBridge(),
        });
        controller.submit("first", [], "agent");
        await settle();
        controller.submit("second", ["a.ts"], "agent");
        controller.submit("third", [], "agent");
        expect(controller.queued()).toEqual({
            text: "second\nthird",
            attachments: ["a.ts"],
            mode: "agent",
        });
        expect(prompts).toEqual(["first"]);
        end();
        await settle();
        await settle();
        expect(prompts).toEqual(["first", "second\nthird"]);
        expect(controller.queued()).toBeNull();
        expect(controller.isBusy()).toBe(true);
        end();
        await controller.idle();
        expect(controller.isBusy()).toBe(false);
    });

    it("sends the queued input after a run that failed, not after a cancelled one", async () => {
        const { session, prompts, end } = heldSession();
        const controller = createAppController({
            host: hostOver(session),
            bridge: createApprovalBridge(),
        });
        controller.submit("first", [], "agent");
        await settle();
        controller.submit("after the error", [], "agent");
        end(new Error("boom"));
        await settle();
        await settle();
        expect(prompts).toEqual(["first", "after the error"]);

        controller.submit("not after a cancel", [], "agent");
        expect(controller.cancel()).toBe(true);
        await controller.idle();
        await settle();
        expect(prompts).toEqual(["first", "after the error"]);
        expect(controller.unqueue()?.text).toBe("not after a cancel");
        expect(controller.queued()).toBeNull();
    });

    it("keeps a queued # note apart: saved when its turn comes, never joined into a prompt", async () => {
        const { session, prompts, end } = heldSession();
        const notes: string[] = [];
        const controller = createAppController({
            host: hostOver(session),
            bridge: createApprovalBridge(),
            // As the chat's commands do: a # line is saved, nothing is left to send.
            processInput: async (text) => {
                if (memoryNoteOf(text) === undefined) return text;
                notes.push(text);
                return null;
            },
        });
        controller.submit("first", [], "agent");
        await settle();
        controller.submit("second", [], "agent");
        controller.submit("# Use pnpm, not npm", [], "agent");
        controller.submit("# Tabs in Makefiles", [], "agent");
        controller.submit("third", ["b.ts"], "agent");
        controller.submit("fourth", [], "agent");
        expect(controller.queued()?.text).toBe(
            "second\n# Use pnpm, not npm\n# Tabs in Makefiles\nthird\nfourth"
        );

        end();
        await settle();
        await settle();
        expect(prompts).toEqual(["first", "second"]);
        expect(notes).toEqual([]);

        end();
        for (let i = 0; i < 6 && prompts.length < 3; i++) await settle();
        expect(notes).toEqual(["# Use pnpm, not npm", "# Tabs in Makefiles"]);
        expect(prompts).toEqual(["first", "second", "third\nfourth"]);
        expect(controller.queued()).toBeNull();
        end();
        await controller.idle();
        expect(controller.isBusy()).toBe(false);
    });
});
