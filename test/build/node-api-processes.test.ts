/**
 * Background processes through the Node API, as a program that imports the
 * built package: their events in a run's stream, `processes` in results, the
 * session's list / output / stop, a password prompt answered by `secret`, and
 * `close()` ending what still runs.
 */
import { execFile } from "node:child_process";
import {
    existsSync,
    mkdirSync,
    readFileSync,
    readdirSync,
    rmSync,
    symlinkSync,
    writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome } from "../kit/run-north";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

let server: FakeLlmServer;
let home: string;
let repo: string;
let env: NodeJS.ProcessEnv;
const groups: number[] = [];

beforeAll(async () => {
    if (!existsSync(join(ROOT, "dist", "api.js"))) {
        throw new Error("dist/ is missing: run `node scripts/build.mjs` before this test");
    }
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    const isolated = isolatedHome();
    home = isolated.home;
    repo = join(home, "repo");
    mkdirSync(repo);
    writeFileSync(
        join(repo, "ticker.js"),
        "console.log('ready');\nsetInterval(() => console.log('tick'), 50);\n"
    );
    const app = join(home, "app");
    mkdirSync(join(app, "node_modules"), { recursive: true });
    symlinkSync(ROOT, join(app, "node_modules", "north-agent"), "dir");
    env = {
        ...isolated.env,
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        REPO: repo,
    };
    server.requests.length = 0;
});
afterEach(() => {
    for (const group of groups.splice(0)) {
        try {
            process.kill(-group, "SIGKILL");
        } catch {
            // gone, as it should be
        }
    }
    expect(server.remaining()).toBe(0);
    rmSync(home, { recursive: true, force: true });
});

/** Whether a process of the group still runs (a zombie of an init that does not reap is gone). */
function groupAlive(pgid: number): boolean {
    for (const entry of readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        let stat: string;
        try {
            stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        } catch {
            continue;
        }
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(pgrp) === pgid && state !== "Z") return true;
    }
    return false;
}

async function runProgram(source: string): Promise<Record<string, unknown>> {
    const file = join(home, "app", "program.mjs");
    writeFileSync(file, source);
    const { stdout } = await run(process.execPath, [file], { env, cwd: join(home, "app") });
    return JSON.parse(stdout) as Record<string, unknown>;
}

const startTicker = (id: string) => ({
    toolCalls: [{ id, name: "shell_run", input: { command: "node ticker.js", background: true } }],
});

interface Proc {
    id: string;
    pid: number;
    state: string;
    stopped?: boolean;
    origin: string;
}

describe("background processes through the Node API", () => {
    it("reports them in events and results, lists, reads and stops them; they outlive a run but not close()", async () => {
        server.enqueue(startTicker("toolu_one"), { text: "Started." }, startTicker("toolu_two"), {
            text: "Started another.",
        });
        const out = await runProgram(`
            import { createSession } from "north-agent";
            const session = await createSession({
                cwd: process.env.REPO,
                approve: async () => ({ decision: "approve" }),
            });
            const events = [];
            for await (const event of session.run("start the ticker")) {
                if (event.type === "process") events.push(event);
            }
            const listed = await session.processes();
            const output = await session.processOutput("p1", { mode: "tail", lines: 5 });
            const stopped = await session.stopProcess("p1");
            const unknown = await session.processOutput("p9").catch((error) => error.message);
            const second = await session.run("start another");
            const beforeClose = await session.processes();
            await session.close();
            console.log(JSON.stringify({ events, listed, output, stopped, unknown, second, beforeClose }));
        `);
        const events = out.events as Array<{ change: string; process: Proc }>;
        expect(events.map((e) => [e.change, e.process.id])).toEqual([["started", "p1"]]);
        expect(events[0]!.process).toMatchObject({ state: "running", origin: "toolu_one" });
        const listed = out.listed as Proc[];
        expect(listed).toMatchObject([{ id: "p1", state: "running" }]);
        groups.push(listed[0]!.pid);
        expect((out.output as { text: string }).text).toContain("ready");
        expect(out.stopped).toMatchObject({ id: "p1", state: "exited", stopped: true });
        expect(groupAlive(listed[0]!.pid)).toBe(false);
        expect(out.unknown).toMatch(/p9/);
        // The second run's result lists the process it started, still running at its end.
        const second = out.second as { result: string; processes: Proc[] };
        expect(second.result).toBe("Started another.");
        expect(second.processes).toMatchObject([{ id: "p2", state: "running" }]);
        const p2 = (out.beforeClose as Proc[]).find((p) => p.id === "p2")!;
        groups.push(p2.pid);
        expect(p2.state).toBe("running");
        // close() ended it.
        expect(groupAlive(p2.pid)).toBe(false);
    });

    it("secret() answers a password prompt; the password reaches the program only", async () => {
        const ASKS = 'read -r pw; echo "got ${#pw} characters"';
        server.enqueue(
            {
                toolCalls: [
                    {
                        id: "toolu_start",
                        name: "shell_run",
                        input: { command: ASKS, background: true },
                    },
                ],
            },
            {
                toolCalls: [
                    { id: "toolu_ask", name: "process_send", input: { id: "p1", askUser: true } },
                ],
            },
            {
                toolCalls: [
                    {
                        id: "toolu_read",
                        name: "process_read",
                        input: { id: "p1", wait: "exit", timeoutMs: 20_000 },
                    },
                ],
            },
            { text: "Logged in." }
        );
        const out = await runProgram(`
            import { createSession } from "north-agent";
            const asked = [];
            const session = await createSession({
                cwd: process.env.REPO,
                approve: async () => ({ decision: "approve" }),
                secret: async (request) => {
                    asked.push(request);
                    return "swordfish-42";
                },
            });
            const texts = [];
            for await (const event of session.run("log in")) texts.push(JSON.stringify(event));
            await session.close();
            console.log(JSON.stringify({ asked, texts }));
        `);
        expect(out.asked).toMatchObject([
            { type: "secret_request", process: { id: "p1", command: ASKS } },
        ]);
        expect(JSON.stringify(server.requests[3]!.body)).toContain("got 12 characters");
        for (const request of server.requests) {
            expect(JSON.stringify(request.body)).not.toContain("swordfish-42");
        }
        expect((out.texts as string[]).join("\n")).not.toContain("swordfish-42");
    });
});
