/**
 * The chat's background processes (issue 35, part 5) without a terminal:
 * `/ps`'s view lists them, shows one's output and stops one with a key; the
 * password field masks every character and hands the text to its answer only;
 * the status line counts them, in short where room is short.
 */
import { afterEach, describe, expect, it } from "vitest";
import { stripVTControlCharacters } from "node:util";
import type { ProcessInfo } from "../../src/tools/processes/types";
import type { ProcessesPort } from "../../src/ui/processes-port";
import { PROCESSES_HINT, ProcessesDialog } from "../../src/ui/reviews/processes-dialog";
import { SecretReview } from "../../src/ui/reviews/secret-review";
import { processesText, shownProcesses, statusParts } from "../../src/ui/status-line";
import { renderToFakeTerminal } from "./ink-harness";

const unmounts: Array<() => void> = [];
afterEach(() => {
    for (const unmount of unmounts.splice(0)) unmount();
});

function info(id: string, command: string, change: Partial<ProcessInfo> = {}): ProcessInfo {
    return {
        id,
        command,
        cwd: "/repo",
        tty: false,
        sandboxed: false,
        pid: 4242,
        state: "running",
        startedAt: Date.now() - 5_000,
        outputBytes: 2048,
        origin: "call-1",
        ...change,
    };
}

/** A table in memory behind the port, with what the view asked of it. */
function fakePort(
    processes: ProcessInfo[]
): ProcessesPort & { stopped: string[]; reads: string[] } {
    const listeners = new Set<() => void>();
    const port = {
        stopped: [] as string[],
        reads: [] as string[],
        list: async () => processes.map((p) => ({ ...p })),
        output: async (id: string) => {
            port.reads.push(id);
            return {
                ok: true as const,
                result: {
                    process: processes.find((p) => p.id === id)!,
                    text: `${id} line one\n${id} line two`,
                },
            };
        },
        stop: async (id: string) => {
            port.stopped.push(id);
            const at = processes.findIndex((p) => p.id === id);
            processes[at] = {
                ...processes[at]!,
                state: "exited",
                exitCode: null,
                signal: "SIGTERM",
                stopped: true,
            };
            for (const listener of listeners) listener();
            return { message: `${id} stopped` };
        },
        background: async () => [],
        subscribe(listener: () => void) {
            listeners.add(listener);
            return () => void listeners.delete(listener);
        },
    };
    return port;
}

describe("the processes view", () => {
    it("lists the processes, shows one's output, stops it with S and closes with Esc", async () => {
        const processes = [
            info("p1", "npm run dev"),
            info("p2", "npm test", { state: "exited", exitCode: 1 }),
        ];
        const port = fakePort(processes);
        let closed = false;
        const view = renderToFakeTerminal(
            <ProcessesDialog
                initial={processes}
                port={port}
                width={78}
                maxRows={16}
                active
                onClose={() => {
                    closed = true;
                }}
            />
        );
        unmounts.push(() => view.instance.unmount());
        await view.shows(PROCESSES_HINT);
        const frame = stripVTControlCharacters(view.lastFrame());
        expect(frame).toMatch(/› p1 {2}running {2}\d+s {2}2\.0 KB {2}npm run dev/);
        expect(frame).toMatch(/p2 {2}exit 1 {2}\d+s {2}2\.0 KB {2}npm test/);
        expect(frame).toContain("Processes (1 running)");

        await view.type("\r");
        await view.shows("p1 line two");
        expect(port.reads).toContain("p1");

        await view.type("s");
        await view.shows("p1 stopped");
        expect(port.stopped).toEqual(["p1"]);
        await view.shows("Processes (0 running)");

        // Down, then Enter: the second one's output instead of the first's.
        await view.type("\x1b[B");
        await view.type("\r");
        await view.shows("p2 line two");

        await view.type("\x1b");
        await expect.poll(() => closed, { timeout: 10_000 }).toBe(true);
    });
});

describe("the password field", () => {
    it("shows a • per character, never the text; Enter answers with it, Esc declines", async () => {
        const answers: Array<string | null> = [];
        const field = renderToFakeTerminal(
            <SecretReview
                process={info("p3", "sudo -k true", { tty: true })}
                prompt="[sudo] password for ann:"
                width={78}
                active
                onAnswer={(secret) => answers.push(secret)}
            />
        );
        unmounts.push(() => field.instance.unmount());
        await field.shows("[Enter] send");
        await field.type("h");
        await field.type("u");
        await field.type("n");
        await field.type("t");
        await field.type("e");
        await field.type("r");
        await field.type("2");
        await field.shows("•••••••");
        // Backspace takes the last one off.
        await field.type("\x7f");
        await field.type("2");
        const frames = stripVTControlCharacters(field.lastFrame());
        expect(frames).toContain("[sudo] password for ann:");
        expect(frames).toContain("p3 `sudo -k true` asks for a password");
        expect(frames).not.toMatch(/hunter/);
        await field.type("\r");
        await expect.poll(() => answers, { timeout: 10_000 }).toEqual(["hunter2"]);
    });

    it("declines with Esc", async () => {
        const answers: Array<string | null> = [];
        const field = renderToFakeTerminal(
            <SecretReview
                process={info("p4", "psql")}
                prompt="Password:"
                width={78}
                active
                onAnswer={(secret) => answers.push(secret)}
            />
        );
        unmounts.push(() => field.instance.unmount());
        await field.shows("[Esc] decline");
        await field.type("x");
        await field.type("\x1b");
        await expect.poll(() => answers, { timeout: 10_000 }).toEqual([null]);
    });
});

describe("the status line's processes", () => {
    const props = {
        width: 80,
        project: "north-pty-repo-abc123",
        scrolled: false,
        mode: "agent" as const,
        model: "Claude Sonnet 4",
        contextUsedTokens: 12_300,
        contextUsage: 0.06,
        sessionCostUsd: 0.0042,
        allTimeCostUsd: 1.5,
    };

    it("says how many run and wait, in short where room is short", () => {
        expect(processesText({ running: 1, notices: 0 }, false)).toBe("1 process");
        expect(processesText({ running: 2, notices: 1 }, false)).toBe("2 processes · 1 notice");
        expect(processesText({ running: 2, notices: 1 }, true)).toBe("ps 2 !1");
        expect(processesText({ running: 0, notices: 0 }, false)).toBe("");
        expect(processesText(undefined, false)).toBe("");
    });

    it("keeps the count at 80 columns, and the parts it showed without processes", () => {
        const none = statusParts(props);
        const withOne = { ...props, processes: { running: 1, notices: 1 } };
        expect(statusParts(withOne).session).toBe(none.session);
        expect(shownProcesses(withOne, statusParts(withOne))).not.toBe("");
        const narrow = { ...withOne, width: 40 };
        expect(shownProcesses(narrow, statusParts(narrow))).toBe("ps 1 !1");
    });
});
