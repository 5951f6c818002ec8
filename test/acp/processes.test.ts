/**
 * Background processes in the editor, end to end: the SDK's client drives the
 * built `north acp`. With the editor's terminals, a background pipe process
 * runs in one of them (shown in its own tool call, read by polling, no input)
 * and a tty one in North's own terminal; without them, North runs it and its
 * tool call shows its last lines when it ends. Password prompts are declined
 * with a message, and closing the connection leaves nothing running.
 */
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type AcpClient, acpEnv, startAcpClient, tempRepo } from "../kit/acp-client";
import {
    type FakeLlmServer,
    anthropicToolResultTexts,
    startFakeLlmServer,
} from "../kit/fake-llm-server";

let server: FakeLlmServer;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;
let acp: AcpClient | undefined;
const pids: number[] = [];

/** Says its pid, then ticks every 50 ms, forever. */
const TICKER =
    "console.log('ready pid=' + process.pid);\nsetInterval(() => console.log('tick'), 50);\n";

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    repo = realpathSync(tempRepo({ "ticker.js": TICKER }));
    ({ home, env } = acpEnv(server.anthropicBaseUrl));
    // The user's standing rules answer the reviews: approvals are not what these tests are about.
    mkdirSync(join(home, "config"), { recursive: true });
    writeFileSync(
        join(home, "config", "config.json"),
        JSON.stringify({ permissions: { allow: ["Bash(node:*)", "Bash(read:*)", "Bash(echo:*)"] } })
    );
    server.requests.length = 0;
});
afterEach(async () => {
    await acp?.close();
    acp = undefined;
    for (const pid of pids.splice(0)) {
        try {
            process.kill(pid, "SIGKILL");
        } catch {
            // gone, as it should be
        }
    }
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

async function session(options: { terminal?: boolean }) {
    acp = await startAcpClient({ env, cwd: repo, ...options });
    await acp.initialize();
    const { sessionId } = await acp.newSession(repo);
    return { acp, sessionId };
}

function isRunning(pid: number): boolean {
    try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return !/^\S+ \(.*\) [ZX]/.test(stat);
    } catch {
        return false;
    }
}

const startTicker = {
    toolCalls: [
        {
            id: "toolu_start",
            name: "shell_run",
            input: { command: "node ticker.js", background: true },
        },
    ],
};
const readTicks = {
    toolCalls: [
        {
            id: "toolu_read",
            name: "process_read",
            input: { id: "p1", wait: { pattern: "tick" }, timeoutMs: 20_000 },
        },
    ],
};

describe("background processes with the editor's terminals", () => {
    it("a pipe process runs in the editor's terminal, shown in its own tool call; it takes no input; a tty one runs in North's terminal; closing ends it", async () => {
        server.enqueue(
            startTicker,
            readTicks,
            { text: "It ticks." },
            {
                toolCalls: [
                    { id: "toolu_send", name: "process_send", input: { id: "p1", text: "hi\n" } },
                ],
            },
            {
                toolCalls: [
                    {
                        id: "toolu_tty",
                        name: "shell_run",
                        input: { command: "node -e 'setInterval(() => {}, 1000)'", tty: true },
                    },
                ],
            },
            { text: "Done." }
        );
        const { acp, sessionId } = await session({ terminal: true });
        expect((await acp.prompt(sessionId, "start the ticker")).stopReason).toBe("end_turn");

        const [terminal] = acp.editor.terminals;
        expect(terminal!.request.args).toContain("node ticker.js");
        expect(terminal!.released).toBe(false);
        const pid = Number(/ready pid=(\d+)/.exec(terminal!.output)![1]);
        pids.push(pid);
        const card = acp.toolCalls(sessionId).find((c) => c.toolCallId === "process-p1");
        expect(card).toMatchObject({
            kind: "execute",
            status: "in_progress",
            content: [{ type: "terminal", terminalId: terminal!.id }],
        });
        expect(card!.title).toContain("p1: node ticker.js");
        // The model read the output North polled from the editor's terminal.
        expect(anthropicToolResultTexts(server.requests[2]!).at(-1)).toContain("tick");

        expect(
            (await acp.prompt(sessionId, "type into it, then start a terminal program")).stopReason
        ).toBe("end_turn");
        expect(anthropicToolResultTexts(server.requests[4]!).at(-1)).toContain("takes no input");
        // The tty program runs in North's own terminal: no second editor terminal.
        expect(acp.editor.terminals).toHaveLength(1);
        const tty = acp.toolCalls(sessionId).find((c) => c.toolCallId === "process-p2");
        expect(tty).toMatchObject({ status: "in_progress" });
        expect(JSON.stringify(tty!.content)).toContain("in North's shell");

        // The editor goes away: nothing of the session runs on.
        await acp.close();
        await expect.poll(() => isRunning(pid), { timeout: 15_000 }).toBe(false);
    });
});

describe("background processes without the editor's terminals", () => {
    it("North runs it; its tool call shows where, then its last lines and status when it ends; a password prompt is declined with a message", async () => {
        server.enqueue(
            startTicker,
            readTicks,
            {
                toolCalls: [{ id: "toolu_stop", name: "process_stop", input: { id: "p1" } }],
            },
            {
                toolCalls: [
                    {
                        id: "toolu_ask_start",
                        name: "shell_run",
                        input: { command: "read -r pw; echo done", background: true },
                    },
                ],
            },
            {
                toolCalls: [
                    { id: "toolu_ask", name: "process_send", input: { id: "p2", askUser: true } },
                ],
            },
            { text: "Stopped it." }
        );
        const { acp, sessionId } = await session({});
        expect((await acp.prompt(sessionId, "start and stop the ticker")).stopReason).toBe(
            "end_turn"
        );
        expect(acp.editor.terminals).toEqual([]);
        const card = await acp.waitFor("the ticker's card to end", () =>
            acp
                .toolCalls(sessionId)
                .find((c) => c.toolCallId === "process-p1" && c.status !== "in_progress")
        );
        expect(card).toMatchObject({ kind: "execute", status: "completed" });
        expect(card.title).toBe("p1: node ticker.js (stopped)");
        expect(JSON.stringify(card.content)).toContain("tick");
        expect(card.rawOutput).toMatchObject({ stopped: true });

        expect(acp.text(sessionId)).toContain("p2 (read -r pw; echo done) asks for a password");
        expect(acp.text(sessionId)).toContain("run the command in a terminal of your own");
        expect(anthropicToolResultTexts(server.requests[5]!).at(-1)).toContain(
            "The user declined to answer; nothing was sent."
        );
    });

    it("closing the connection stops what runs", async () => {
        server.enqueue(startTicker, { text: "Started." });
        const { acp, sessionId } = await session({});
        expect((await acp.prompt(sessionId, "start the ticker")).stopReason).toBe("end_turn");
        const result = anthropicToolResultTexts(server.requests[1]!).at(-1)!;
        const pid = Number(/ready pid=(\d+)/.exec(result)![1]);
        pids.push(pid);
        expect(isRunning(pid)).toBe(true);
        await acp.close();
        await expect.poll(() => isRunning(pid), { timeout: 15_000 }).toBe(false);
    });

    it("a loaded session shows its processes as they ended; nothing is started again", async () => {
        server.enqueue(startTicker, { text: "Started." });
        const first = await session({});
        expect((await first.acp.prompt(first.sessionId, "start the ticker")).stopReason).toBe(
            "end_turn"
        );
        await first.acp.close();

        acp = await startAcpClient({ env, cwd: repo });
        await acp.initialize();
        await acp.agent.request("session/load", {
            sessionId: first.sessionId,
            cwd: repo,
            mcpServers: [],
        });
        const card = acp.toolCalls(first.sessionId).find((c) => c.toolCallId === "process-p1");
        expect(card).toMatchObject({ kind: "execute", status: "completed" });
        expect(card!.title).toBe("p1: node ticker.js (stopped)");
        expect(acp.editor.terminals).toEqual([]);
    });
});
