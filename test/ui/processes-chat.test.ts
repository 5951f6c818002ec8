/**
 * The chat's plumbing for background processes (issue 35, part 5): Ctrl+B is
 * a binding like the others, `/ps` lists in print mode and opens the view in
 * the chat, process events are one line each in the transcript, and a
 * password request goes from the engine's event through the masked field's
 * answer to the `secret_answer` op only.
 */
import { describe, expect, it } from "vitest";
import type { EngineOp, HostListener } from "../../src/agent/protocol";
import { psCommand } from "../../src/commands/commands/ps";
import { processListing } from "../../src/commands/process-listing";
import type { ProcessInfo } from "../../src/tools/processes/types";
import { createApprovalBridge, type ResolvedReviewRecord } from "../../src/ui/approval-bridge";
import { DEFAULT_KEYBINDINGS, loadKeybindings } from "../../src/ui/input/keybindings";
import { createAppController } from "../../src/ui/controller";
import { backgroundNotice } from "../../src/ui/processes-port";
import { answerSecretRequests } from "../../src/ui/secret-requests";
import { ev, reduce, runResult } from "./helpers";

const NOW = 1_700_000_000_000;

function info(id: string, change: Partial<ProcessInfo> = {}): ProcessInfo {
    return {
        id,
        command: "npm run dev",
        cwd: "/repo",
        tty: false,
        sandboxed: false,
        state: "running",
        startedAt: NOW - 125_000,
        outputBytes: 300,
        origin: "call-1",
        ...change,
    };
}

describe("Ctrl+B", () => {
    it("is app:backgroundCommand by default, and can be rebound or unbound", () => {
        expect(DEFAULT_KEYBINDINGS.resolve(["Chat", "Global"], "ctrl+b")?.action).toBe(
            "app:backgroundCommand"
        );
        const rebound = loadKeybindings(
            '{"bindings": [{"context": "Global", "bindings": {"ctrl+b": null, "alt+b": "app:backgroundCommand"}}]}'
        );
        expect(rebound.problems).toEqual([]);
        expect(rebound.keybindings.resolve(["Global"], "ctrl+b")?.action).toBeNull();
        // alt+b is what terminals send for Alt+← (as the file's "alt+b" reads).
        expect(rebound.keybindings.keyFor("app:backgroundCommand", "Global")).toBe("alt+left");
    });

    it("says which ids the commands became, or that none ran", () => {
        expect(backgroundNotice(["p2"])).toMatchObject({
            type: "notice",
            text: expect.stringContaining("moved to the background as p2"),
        });
        expect(backgroundNotice([])).toMatchObject({
            text: "Ctrl+B: no running command to move to the background",
        });
    });
});

describe("/ps", () => {
    const view = (chat: boolean) => ({ chat, state: {} as never, commands: [] });
    const replyTo = async (chat: boolean, processes: ProcessInfo[], args: string[] = []) => {
        const plan = psCommand.plan({ positional: args, flags: {} }, view(chat));
        const ops: EngineOp[] = [];
        if (plan.kind !== "submit") return { plan, ops };
        const next = await plan.next(async (op) => {
            ops.push(op as EngineOp);
            return (op.type === "processes" ? processes : { message: "Stopped p1." }) as never;
        });
        return { plan: next, ops };
    };

    it("lists id, state, age, exit status, output size and command in print mode", async () => {
        const listing = processListing(
            [info("p1"), info("p2", { state: "exited", exitCode: 2, outputBytes: 4096 })],
            NOW
        );
        expect(listing.split("\n")).toEqual([
            "2 background processes (1 running):",
            "  p1  running  2m  300 B  npm run dev",
            "  p2  exit 2  2m  4.0 KB  npm run dev",
        ]);
        const { plan, ops } = await replyTo(false, []);
        expect(ops).toEqual([{ type: "processes" }]);
        expect(plan).toMatchObject({
            kind: "result",
            result: { message: "No background processes." },
        });
    });

    it("opens the view in the chat, and stops one by id", async () => {
        const { plan } = await replyTo(true, [info("p1")]);
        expect(plan).toMatchObject({ result: { message: expect.stringContaining("Esc closes") } });
        const stopped = await replyTo(false, [], ["stop", "p1"]);
        expect(stopped.ops).toEqual([{ type: "stop_process", id: "p1" }]);
        expect((await replyTo(false, [], ["kill"])).plan).toMatchObject({
            result: { isError: true },
        });
    });
});

describe("process events in the transcript", () => {
    it("shows a start and an end as one line each, and a watched line", () => {
        const state = reduce([
            ev({ type: "process", change: "started", process: info("p1") }),
            ev({
                type: "process_notice",
                notice: {
                    process: info("p1"),
                    kind: "matched",
                    pattern: "listening",
                    lines: ["listening on :3000"],
                },
            }),
            ev({
                type: "process",
                change: "exited",
                process: info("p1", { state: "exited", exitCode: 1 }),
            }),
            ev({
                type: "process_notice",
                notice: { process: info("p1"), kind: "exited", lines: ["boom"] },
            }),
        ]);
        expect(state.entries.map((e) => (e.kind === "notice" ? e.text : e.kind))).toEqual([
            "p1 `npm run dev` runs in the background (/ps shows it)",
            "p1 printed a watched line: listening on :3000",
            "p1 `npm run dev` ended: exit 1",
        ]);
    });
});

describe("a password request", () => {
    it("goes from the event to the masked field and its answer to secret_answer only", async () => {
        const listeners = new Set<HostListener>();
        const ops: EngineOp[] = [];
        const host = {
            subscribe(listener: HostListener) {
                listeners.add(listener);
                return () => void listeners.delete(listener);
            },
            submit: async (op: EngineOp) => {
                ops.push(op);
                return { ok: true } as never;
            },
        };
        const bridge = createApprovalBridge();
        const records: ResolvedReviewRecord[] = [];
        bridge.onResolved((record) => records.push(record));
        const warnings: string[] = [];
        const off = answerSecretRequests(host, bridge, (text) => warnings.push(text));
        const process = info("p3", { command: "sudo -k true", tty: true });
        for (const listener of listeners) {
            listener({ type: "secret_request", requestId: "s1", process, prompt: "Password:" });
        }
        const pending = bridge.current();
        expect(pending).toMatchObject({ kind: "secret", prompt: "Password:" });
        if (pending?.kind !== "secret") throw new Error("no password field");
        pending.resolve("hunter2");
        await expect
            .poll(() => ops)
            .toEqual([{ type: "secret_answer", requestId: "s1", secret: "hunter2" }]);
        expect(records).toHaveLength(1);
        expect(JSON.stringify(records)).not.toContain("hunter2");
        expect(records[0]).toMatchObject({ kind: "secret", status: "answered" });

        // Ctrl+C while it waits: declined, and the process hears null.
        for (const listener of listeners) {
            listener({ type: "secret_request", requestId: "s2", process, prompt: "Password:" });
        }
        bridge.cancelAll();
        await expect
            .poll(() => ops.at(-1))
            .toEqual({
                type: "secret_answer",
                requestId: "s2",
                secret: null,
            });
        expect(records.at(-1)).toMatchObject({ status: "declined" });
        expect(warnings).toEqual([]);
        off();
    });
});

describe("a turn the engine starts for a notice", () => {
    it("makes the chat busy: Ctrl+C cancels it, and what is typed meanwhile goes after it", async () => {
        const listeners = new Set<HostListener>();
        const ops: EngineOp[] = [];
        const emit = (event: Parameters<HostListener>[0]) => {
            for (const listener of listeners) listener(event);
        };
        const host = {
            subscribe(listener: HostListener) {
                listeners.add(listener);
                return () => void listeners.delete(listener);
            },
            submit: async (op: EngineOp) => {
                ops.push(op);
                return (op.type === "prompt" ? runResult("success") : { cancelled: true }) as never;
            },
        };
        const controller = createAppController({ host, bridge: createApprovalBridge() });
        const start = {
            type: "run_start" as const,
            sessionId: "s",
            model: "m",
            mode: "agent" as const,
            tools: [],
            cwd: "/r",
        };
        emit(start);
        expect(controller.isBusy()).toBe(true);
        controller.submit("and then this", [], "agent");
        expect(controller.queued()?.text).toBe("and then this");
        expect(ops).toEqual([]);
        emit({ type: "run_end", result: runResult("success") });
        await controller.idle();
        expect(ops.map((op) => (op.type === "prompt" ? op.text : op.type))).toEqual([
            "and then this",
        ]);
        expect(controller.isBusy()).toBe(false);

        emit(start);
        expect(controller.cancel()).toBe(true);
        expect(ops.at(-1)).toEqual({ type: "cancel" });
        emit({ type: "run_end", result: runResult("cancelled") });
        expect(controller.isBusy()).toBe(false);
        expect(controller.cancel()).toBe(false);
        controller.dispose();
    });
});
