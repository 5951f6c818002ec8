/**
 * The engine's side of background processes (issue 35): notices reach the
 * model's next request once, wait while idle (or start a turn when the user
 * allowed it), the host's process ops, Ctrl+B, password answers that go to
 * the process only, and a resumed conversation's processes.
 */
import { readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { HostEvent } from "../../src/agent/protocol";
import { toolInput } from "../../src/tools/tool-input";
import type { AnyToolDefinition } from "../../src/tools/types";
import { toolOk } from "../../src/tools/types";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { FakeProcessTable } from "./fake-process-table";
import { type ProcessHost, effectTool, lastUserText, startProcessHost } from "./process-host-kit";

let server: FakeLlmServer;
const hosts: ProcessHost[] = [];
const dirs = new Set<string>();

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
afterEach(() => {
    for (const h of hosts.splice(0)) h.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    dirs.clear();
    expect(server.remaining()).toBe(0);
    server.requests.length = 0;
});

function start(options: Parameters<typeof startProcessHost>[1]): ProcessHost {
    const h = startProcessHost(server, options);
    hosts.push(h);
    dirs.add(h.dir);
    return h;
}

const requestTexts = (): string[] => server.requests.map((r) => lastUserText(r.body));

describe("process notices", () => {
    it("reach the next request once, with the exit status and last lines", async () => {
        const table = new FakeProcessTable();
        const build = table.start("npm run build");
        const tools = [
            effectTool("finish_build", () => {
                table.print(build.id, "error TS2322: nope", "Found 1 error.");
                table.exit(build.id, 1);
                table.start("npm run dev", "call-dev");
            }),
            effectTool("look", () => undefined),
        ];
        const { host } = start({ table, tools });
        server.enqueue(
            { toolCalls: [{ name: "finish_build", input: {} }] },
            { toolCalls: [{ name: "look", input: {} }] },
            { text: "done" }
        );
        const result = await host.submit({ type: "prompt", text: "build it" });

        const [first, second, third] = requestTexts();
        expect(first).not.toContain("[background]");
        expect(second).toContain("[background] p1 `npm run build` exited with code 1; last lines:");
        expect(second).toContain("Found 1 error.");
        expect(third).not.toContain("[background]");
        // Only the process this run started is its result's.
        expect(result.processes?.map((p) => [p.id, p.command])).toEqual([["p2", "npm run dev"]]);
        expect(host.state().processes).toEqual({ running: 1, notices: 0 });
    });

    it("wait while the chat is idle and ride the next prompt", async () => {
        const table = new FakeProcessTable();
        const { host, events } = start({ table });
        const dev = table.start("npm run dev");
        table.print(dev.id, "listening on :3000", "crashed: EADDRINUSE");
        table.exit(dev.id, 1);

        expect(events.map((e) => e.type)).toEqual(["process", "process", "process_notice"]);
        expect(host.state().processes).toEqual({ running: 0, notices: 1 });
        expect(server.requests).toHaveLength(0);

        server.enqueue({ text: "I see it crashed" }, { text: "ok" });
        await host.submit({ type: "prompt", text: "what happened?" });
        const [prompt] = requestTexts();
        expect(prompt).toContain("what happened?");
        expect(prompt).toContain("[background] p1 `npm run dev` exited with code 1");
        expect(prompt).toContain("crashed: EADDRINUSE");
        expect(host.state().processes.notices).toBe(0);

        await host.submit({ type: "prompt", text: "and now?" });
        expect(requestTexts()[1]).not.toContain("[background]");
    });

    it("start a turn while idle when the user allowed it, in agent mode only", async () => {
        const table = new FakeProcessTable();
        const { host, events } = start({ table, startTurnOnNotice: true });
        const tests = table.start("npm test -- --watch");
        table.print(tests.id, "1 failed");
        server.enqueue({ text: "a test failed; looking" });
        table.notify({ process: tests, kind: "matched", pattern: "failed", lines: ["1 failed"] });

        await vi.waitFor(() => expect(events.some((e) => e.type === "run_end")).toBe(true));
        const [turn] = requestTexts();
        expect(turn).toContain(
            "[background] p1 `npm test -- --watch` printed a line matching /failed/:"
        );
        expect(host.state().processes.notices).toBe(0);

        // In ask mode nothing can act on it: the notice waits.
        await host.submit({ type: "set_mode", mode: "ask" });
        table.exit(tests.id, 1);
        await new Promise((resolve) => setImmediate(resolve));
        expect(host.state()).toMatchObject({ running: false, processes: { notices: 1 } });
        expect(server.requests).toHaveLength(1);
    });
});

describe("process ops", () => {
    it("list, show and stop processes; an unknown id is an error", async () => {
        const table = new FakeProcessTable();
        const { host } = start({ table });
        const dev = table.start("npm run dev");
        table.print(dev.id, "ready in 300 ms");

        expect((await host.submit({ type: "processes" })).map((p) => p.id)).toEqual(["p1"]);
        const output = await host.submit({ type: "process_output", id: "p1" });
        expect(output.ok && output.result.text).toBe("ready in 300 ms");
        const missing = await host.submit({ type: "process_output", id: "p9" });
        expect(missing).toEqual({ ok: false, error: "no background process p9" });

        const stopped = await host.submit({ type: "stop_process", id: "p1" });
        expect(stopped.message).toContain("Stopped p1");
        expect(host.state().processes.running).toBe(0);
        expect((await host.submit({ type: "stop_process", id: "p9" })).isError).toBe(true);
    });

    it("moves a running command to the background (Ctrl+B) and answers with its process id", async () => {
        const table = new FakeProcessTable();
        const slow: AnyToolDefinition = {
            name: "slow_command",
            description: "a command that runs until moved",
            input: toolInput((z) => z.object({})),
            approvalPolicy: "none",
            readOnly: false,
            detachable: true,
            execute: (_input, ctx) =>
                new Promise((resolve) => {
                    ctx.detach?.addEventListener("abort", () => {
                        const moved = table.start("npm run dev", ctx.toolCallId);
                        resolve(toolOk(`moved to the background as ${moved.id}`));
                    });
                }),
        };
        const { host, events } = start({ table, tools: [slow] });
        server.enqueue({ toolCalls: [{ name: "slow_command", input: {} }] }, { text: "it runs" });
        expect(await host.submit({ type: "background_command" })).toEqual({ moved: [] });

        const run = host.submit({ type: "prompt", text: "start the server" });
        await vi.waitFor(() => expect(events.some((e) => e.type === "tool_call")).toBe(true));
        expect(await host.submit({ type: "background_command" })).toEqual({ moved: ["p1"] });
        const result = await run;
        expect(result.processes?.map((p) => p.id)).toEqual(["p1"]);
    });
});

describe("password prompts", () => {
    const SECRET = "hunter2-Zq8-secret";

    function filesUnder(dir: string): string[] {
        return readdirSync(dir).flatMap((name) => {
            const path = join(dir, name);
            return statSync(path).isDirectory() ? filesUnder(path) : [path];
        });
    }

    it("send the user's answer to the process only: not to the log, the conversation, events or the model", async () => {
        const table = new FakeProcessTable();
        const psql = table.start("psql -h db -U admin", "call-psql");
        const asking: AnyToolDefinition = {
            name: "ask_password",
            description: "asks the user for the program's password",
            input: toolInput((z) => z.object({})),
            approvalPolicy: "none",
            readOnly: false,
            async execute(_input, ctx) {
                const outcome = await ctx.requestSecret?.(
                    table.get(psql.id)!,
                    "Password for admin:"
                );
                return toolOk(`the user ${outcome === "sent" ? "answered" : "declined"}`);
            },
        };
        const h = start({ table, tools: [asking] });
        const { host, events } = h;
        host.subscribe((event: HostEvent) => {
            if (event.type !== "secret_request") return;
            void host.submit({ type: "secret_answer", requestId: event.requestId, secret: SECRET });
        });
        server.enqueue({ toolCalls: [{ name: "ask_password", input: {} }] }, { text: "logged in" });
        await host.submit({ type: "prompt", text: "connect to the database" });

        expect(table.secrets).toEqual([{ id: "p1", secret: SECRET }]);
        const request = events.find((e) => e.type === "secret_request");
        expect(request).toMatchObject({ process: { id: "p1" }, prompt: "Password for admin:" });
        expect(lastUserText(server.requests[1]!.body)).toContain("the user answered");

        // A program's own prompt (not the model's call) is answered the same way.
        table.promptForSecret(psql.id, "Password:");
        h.close();
        hosts.splice(hosts.indexOf(h), 1);
        expect(table.secrets).toHaveLength(2);

        const everywhere = [
            JSON.stringify(events),
            JSON.stringify(server.requests.map((r) => r.body)),
            ...filesUnder(h.dir).map((path) => readFileSync(path, "utf8")),
        ];
        expect(filesUnder(h.dir)).toContain(h.logPath);
        for (const text of everywhere) expect(text).not.toContain(SECRET);
    });

    it("a declined prompt reaches nothing; an unknown request is refused", async () => {
        const table = new FakeProcessTable();
        const { host, events } = start({ table });
        const sudo = table.start("sudo apt upgrade");
        table.promptForSecret(sudo.id, "[sudo] password:");
        const request = events.find((e) => e.type === "secret_request");
        if (request?.type !== "secret_request") throw new Error("no secret_request");
        expect(
            await host.submit({ type: "secret_answer", requestId: request.requestId, secret: null })
        ).toEqual({
            ok: true,
        });
        expect(table.secrets).toEqual([]);
        const again = await host.submit({
            type: "secret_answer",
            requestId: request.requestId,
            secret: "x",
        });
        expect(again.ok).toBe(false);
        expect(table.secrets).toEqual([]);
    });
});

describe("a resumed conversation", () => {
    it("knows its processes ended with the earlier North and re-runs nothing", async () => {
        const first = new FakeProcessTable();
        const tools = [
            effectTool("start_server", () => void first.start("npm run dev", "call-1")),
            effectTool("run_tests", () => {
                const tests = first.start("npm test", "call-2", 1_500);
                first.exit(tests.id, 0);
            }),
        ];
        const a = start({ table: first, tools });
        server.enqueue(
            { toolCalls: [{ name: "start_server", input: {} }] },
            { toolCalls: [{ name: "run_tests", input: {} }] },
            { text: "server up, tests pass" }
        );
        await a.host.submit({ type: "prompt", text: "start it and test" });
        const id = a.host.conversation.sessionId;
        a.close();
        hosts.splice(hosts.indexOf(a), 1);
        server.requests.length = 0;

        // A new North: its table is empty, nothing is started again.
        const second = new FakeProcessTable();
        const b = start({ table: second, tools, resume: id, dir: a.dir });
        const replayed = b.host.conversation.history.view
            .filter((r) => (r.event as { type?: string } | undefined)?.type === "process")
            .map((r) => {
                const { change, process } = r.event as {
                    change: string;
                    process: { id: string; state: string; stopped?: boolean };
                };
                return `${process.id} ${change} ${process.state}${process.stopped ? " stopped" : ""}`;
            });
        expect(replayed.at(-1)).toBe("p1 exited exited stopped");
        expect(second.list()).toEqual([]);

        server.enqueue({ text: "it is gone; start it again?" }, { text: "ok" });
        await b.host.submit({ type: "prompt", text: "is the server still up?" });
        const [note] = requestTexts();
        expect(note).toContain("This conversation was resumed");
        expect(note).toContain("p1 `npm run dev` was running; it ended with that North");
        expect(note).toContain("p2 `npm test` exited with code 0");
        await b.host.submit({ type: "prompt", text: "thanks" });
        expect(requestTexts()[1]).not.toContain("[background]");
    });

    it("in the same North (/new, then /resume) finds its process still running and says nothing", async () => {
        const table = new FakeProcessTable();
        const tools = [effectTool("start_server", () => void table.start("npm run dev", "call-1"))];
        const { host } = start({ table, tools });
        server.enqueue({ toolCalls: [{ name: "start_server", input: {} }] }, { text: "up" });
        await host.submit({ type: "prompt", text: "start it" });
        const id = host.conversation.sessionId;
        await host.submit({ type: "new_conversation" });
        const resumed = await host.submit({ type: "resume", id });
        expect(resumed.isError).toBeUndefined();
        server.requests.length = 0;

        server.enqueue({ text: "still up" });
        await host.submit({ type: "prompt", text: "still up?" });
        expect(requestTexts()[0]).not.toContain("[background]");
        expect(table.get("p1")?.state).toBe("running");
    });
});
