/**
 * Background processes through a whole session as the chat builds it: the
 * model starts a real background process with shell_run, types into it with
 * process_send (each reviewed, here approved), the process exits while the
 * chat is idle, its notice waits and rides the next prompt; the run's result
 * lists the process; closing the session ends it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { answerApprovalsWith } from "../../src/agent/approval-answers";
import type { ApprovalRequest } from "../../src/agent/approvals";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import type { HostEvent } from "../../src/agent/protocol";
import { parseCliArgs } from "../../src/cli/args";
import { resolveReadyModel } from "../../src/cli/model-selection";
import { prepareSession } from "../../src/cli/session-setup";
import { type EngineSession, startSession } from "../../src/cli/session-start";
import { createProfileStore } from "../../src/storage/profile";
import { loadUserSettings } from "../../src/storage/settings/load";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome } from "../kit/run-north";
import { lastUserText } from "./process-host-kit";

let server: FakeLlmServer;
let home: string;
let repo: string;
let handle: EngineSession | undefined;

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    const isolated = isolatedHome();
    home = isolated.home;
    repo = mkdtempSync(join(tmpdir(), "north-proc-session-"));
    for (const [key, value] of Object.entries(isolated.env)) vi.stubEnv(key, value);
    vi.stubEnv("ANTHROPIC_API_KEY", "k");
    vi.stubEnv("ANTHROPIC_BASE_URL", server.anthropicBaseUrl);
    vi.stubEnv("OPENAI_API_KEY", "");
    server.requests.length = 0;
});
afterEach(() => {
    handle?.close();
    handle = undefined;
    vi.unstubAllEnvs();
    rmSync(home, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
    expect(server.remaining()).toBe(0);
});

const requestTexts = (): string[] => server.requests.map((r) => lastUserText(r.body));

async function start(reviewed: ApprovalRequest[]): Promise<EngineSession> {
    const args = parseCliArgs(["--path", repo]);
    if (!args.ok) throw new Error(args.error);
    const prepared = await prepareSession(
        args.args,
        () => undefined,
        async () => loadUserSettings
    );
    if (!prepared.ok) throw new Error(prepared.error);
    handle = await startSession(prepared, {
        version: "test",
        frontEnd: "interactive",
        logLevel: "error",
        mode: "agent",
        resolveModel: (name) => resolveReadyModel(prepared.catalogue, name, process.env),
        profiles: createProfileStore(join(home, "data"), prepared.repoRoot),
        approvalSettings: () => createNoStandingApprovals(),
        decideTrust: async () => "untrusted",
        warn: () => undefined,
    });
    answerApprovalsWith(handle.host, async (request) => {
        reviewed.push(request);
        return { outcome: "approve" };
    });
    return handle;
}

describe("a background process in a session", () => {
    it("is reviewed, typed into, and its exit reaches the next prompt while the chat was idle", async () => {
        const reviewed: ApprovalRequest[] = [];
        const { host } = await start(reviewed);
        const events: HostEvent[] = [];
        host.subscribe((event) => events.push(event));
        // It ends once the test says so (a file appears), after the run: the chat is idle then.
        const command =
            'echo waiting; read line; echo "got $line"; until [ -e done ]; do sleep 0.05; done; exit 3';
        server.enqueue(
            { toolCalls: [{ name: "shell_run", input: { command, background: true } }] },
            { toolCalls: [{ name: "process_send", input: { id: "p1", text: "go\n" } }] },
            { text: "sent it" }
        );
        const result = await host.submit({ type: "prompt", text: "start it and answer" });

        expect(result.subtype).toBe("success");
        expect(reviewed.map((r) => r.toolName)).toEqual(["shell_run", "process_send"]);
        expect(result.processes?.map((p) => [p.id, p.command])).toEqual([["p1", command]]);
        expect(requestTexts().join("\n")).not.toContain("[background]");
        writeFileSync(join(repo, "done"), "");
        // Idle now: the exit is announced and waits.
        await vi.waitFor(() => expect(host.state().processes.notices).toBe(1), { timeout: 15_000 });
        expect(events.some((e) => e.type === "process_notice")).toBe(true);
        expect(
            events.filter((e) => e.type === "process").map((e) => e.type === "process" && e.change)
        ).toEqual(["started", "exited"]);
        expect(host.state().processes.running).toBe(0);

        server.enqueue({ text: "it exited with 3" });
        await host.submit({ type: "prompt", text: "how did it end?" });
        const sent = lastUserText(server.requests.at(-1)!.body);
        expect(sent).toContain("how did it end?");
        expect(sent).toContain("[background] p1 `echo waiting; read line;");
        expect(requestTexts().filter((text) => text.includes("[background]"))).toHaveLength(1);
        expect(sent).toContain("exited with code 3");
        expect(sent).toContain("got go");
        expect(host.state().processes.notices).toBe(0);
    });

    it("moves a running command to the background on Ctrl+B; the call returns at once", async () => {
        const { host } = await start([]);
        const events: HostEvent[] = [];
        host.subscribe((event) => events.push(event));
        const command = "echo serving; until [ -e done ]; do sleep 0.05; done";
        server.enqueue(
            { toolCalls: [{ name: "shell_run", input: { command } }] },
            { text: "it runs in the background" }
        );
        const run = host.submit({ type: "prompt", text: "serve" });
        await vi.waitFor(
            () =>
                expect(
                    events.some((e) => e.type === "tool_output" && e.text.includes("serving"))
                ).toBe(true),
            { timeout: 15_000 }
        );
        expect(await host.submit({ type: "background_command" })).toEqual({ moved: ["p1"] });
        const result = await run;
        expect(result.subtype).toBe("success");
        expect(result.processes).toMatchObject([{ id: "p1", command, state: "running" }]);
        const toolResult = events.find((e) => e.type === "tool_result");
        expect(toolResult?.type === "tool_result" && toolResult.content).toContain("p1");
        expect(host.state().processes.running).toBe(1);
        writeFileSync(join(repo, "done"), "");
        await vi.waitFor(() => expect(host.state().processes.running).toBe(0), { timeout: 15_000 });
    });

    it("offers the process tools in agent mode only, beside shell_run", async () => {
        const { host } = await start([]);
        server.enqueue({ text: "a" }, { text: "b" });
        await host.submit({ type: "prompt", text: "hi" });
        await host.submit({ type: "prompt", text: "hi", mode: "ask" });
        const offered = server.requests.map((r) =>
            (r.body as { tools: Array<{ name: string }> }).tools.map((t) => t.name)
        );
        expect(offered[0]).toEqual(
            expect.arrayContaining(["shell_run", "process_read", "process_send", "process_stop"])
        );
        expect(offered[1]!.filter((name) => name.startsWith("process_"))).toEqual([]);
    });
});
