/**
 * Background processes in print mode, through the built CLI and the fake
 * Anthropic server: a scripted model starts a Node program that never ends,
 * reads it, and the run ends; the program must be gone afterwards (nothing
 * outlives `north -p`), also when North is stopped by SIGTERM mid-run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { NORTH_BIN, isolatedHome, runNorth } from "../kit/run-north";

let server: FakeLlmServer;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;
/** Process groups a test saw start: killed afterwards whatever happened. */
const groups: number[] = [];

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-repo-"));
    writeFileSync(join(repo, "README.md"), "# demo\n");
    // Prints a line, then one every 50 ms, forever.
    writeFileSync(
        join(repo, "ticker.js"),
        "console.log('ready');\nsetInterval(() => console.log('tick'), 50);\n"
    );
    const isolated = isolatedHome();
    home = isolated.home;
    env = {
        ...isolated.env,
        ANTHROPIC_API_KEY: "test-key-123",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
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
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

const TICKER = "node ticker.js";

/**
 * Whether any process of the group still runs. A zombie does not count:
 * where nothing reaps orphans (a container without an init), a killed
 * program stays a zombie of pid 1.
 */
function groupAlive(pgid: number): boolean {
    for (const entry of readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        let stat: string;
        try {
            stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        } catch {
            continue; // ended while listing
        }
        // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(pgrp) === pgid && state !== "Z") return true;
    }
    return false;
}

function startAndRead(): void {
    server.enqueue(
        {
            toolCalls: [
                {
                    id: "toolu_start",
                    name: "shell_run",
                    input: { command: TICKER, background: true, watch: "^tick$" },
                },
            ],
        },
        {
            toolCalls: [
                {
                    id: "toolu_read",
                    name: "process_read",
                    input: { id: "p1", wait: { pattern: "tick" }, timeoutMs: 20_000 },
                },
            ],
        },
        { text: "The ticker runs." }
    );
}

const lines = (stdout: string) =>
    stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("background processes in print mode", () => {
    it("json: the result lists the process, stopped at the end of the run, and it is gone", async () => {
        startAndRead();
        const run = await runNorth(
            ["-p", "start the ticker", "--path", repo, "--allow-shell", "--output-format", "json"],
            { env }
        );
        expect(run.code).toBe(0);
        const result = JSON.parse(run.stdout) as {
            result: string;
            processes: Array<Record<string, unknown>>;
        };
        expect(result.result).toBe("The ticker runs.");
        expect(result.processes).toHaveLength(1);
        const [ticker] = result.processes;
        expect(ticker).toMatchObject({
            id: "p1",
            command: TICKER,
            state: "exited",
            stopped: true,
            origin: "toolu_start",
        });
        expect(typeof ticker!.pid).toBe("number");
        groups.push(ticker!.pid as number);
        expect(groupAlive(ticker!.pid as number)).toBe(false);
        // The model read the ticker's output.
        const third = JSON.stringify(server.requests[2]!.body);
        expect(third).toContain("tick");
    });

    it("stream-json: a process line when it starts and when the end of the run stops it, then the result", async () => {
        startAndRead();
        const run = await runNorth(
            [
                "-p",
                "start the ticker",
                "--path",
                repo,
                "--allow-shell",
                "--output-format",
                "stream-json",
            ],
            { env }
        );
        expect(run.code).toBe(0);
        const events = lines(run.stdout);
        const processLines = events.filter((e) => e.type === "process");
        expect(processLines.map((e) => e.change)).toEqual(["started", "exited"]);
        expect(processLines[0]).toMatchObject({
            process: { id: "p1", command: TICKER, state: "running" },
        });
        expect(processLines[1]).toMatchObject({
            process: { id: "p1", state: "exited", stopped: true },
        });
        const pid = (processLines[0]!.process as { pid: number }).pid;
        groups.push(pid);
        // The watched line: what the model hears at its next request.
        expect(events.find((e) => e.type === "process_notice")).toMatchObject({
            kind: "matched",
            pattern: "^tick$",
            lines: ["tick"],
            process: { id: "p1", state: "running" },
        });
        expect(groupAlive(pid)).toBe(false);
        // The exit comes before the result, which is last and lists the process.
        const result = events.at(-1)!;
        expect(result).toMatchObject({ type: "result", processes: [{ id: "p1", stopped: true }] });
        expect(events.indexOf(processLines[1]!)).toBeLessThan(events.length - 1);
    });

    it("text: the answer on stdout, the stopped process named on stderr", async () => {
        startAndRead();
        const run = await runNorth(["-p", "start the ticker", "--path", repo, "--allow-shell"], {
            env,
        });
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("The ticker runs.\n");
        expect(run.stderr).toContain(
            `north: the run ended, so North stopped its background process p1 (${TICKER})`
        );
    });

    it("SIGTERM mid-run: North exits 143 and the process is gone", async () => {
        server.enqueue(
            {
                toolCalls: [
                    {
                        id: "toolu_start",
                        name: "shell_run",
                        input: { command: TICKER, background: true },
                    },
                ],
            },
            {
                toolCalls: [
                    {
                        id: "toolu_wait",
                        name: "process_read",
                        input: { id: "p1", wait: "exit", timeoutMs: 60_000 },
                    },
                ],
            }
        );
        let pid: number | undefined;
        const run = await runNorth(
            [
                "-p",
                "start the ticker and wait",
                "--path",
                repo,
                "--allow-shell",
                "--output-format",
                "stream-json",
            ],
            {
                env,
                onSpawn: (child: ChildProcess) => {
                    let seen = "";
                    child.stdout!.on("data", (chunk: Buffer) => {
                        seen += chunk.toString("utf8");
                        // Stopped once the model waits on the running ticker.
                        if (pid === undefined && seen.includes('"name":"process_read"')) {
                            const started = lines(seen.slice(0, seen.lastIndexOf("\n"))).find(
                                (e) => e.type === "process"
                            );
                            pid = (started!.process as { pid: number }).pid;
                            groups.push(pid);
                            child.kill("SIGTERM");
                        }
                    });
                },
            }
        );
        expect(run.code).toBe(143);
        expect(pid).toBeDefined();
        expect(groupAlive(pid!)).toBe(false);
        const exited = lines(run.stdout).find((e) => e.type === "process" && e.change === "exited");
        expect(exited).toMatchObject({ process: { id: "p1", stopped: true } });
    });

    describe("a password prompt", () => {
        const ASKS = 'read -r pw; echo "got ${#pw} characters"';
        const SECRET = "hunter2-never-logged";

        function askTheUser(): void {
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
                        {
                            id: "toolu_ask",
                            name: "process_send",
                            input: { id: "p1", askUser: true },
                        },
                    ],
                }
            );
        }

        it("print mode declines it (nobody can type) and says so on stderr", async () => {
            askTheUser();
            server.enqueue({ text: "It needs a password." });
            const run = await runNorth(
                ["-p", "log in", "--path", repo, "--allow-shell", "--output-format", "json"],
                { env }
            );
            expect(run.code).toBe(0);
            expect(run.stderr).toContain("p1 (read -r pw;");
            expect(run.stderr).toContain(
                "print mode cannot ask anyone, so it was declined. Run it in the chat (north) to type it there."
            );
            const answered = JSON.stringify(server.requests[2]!.body);
            expect(answered).toContain("The user declined to answer; nothing was sent.");
        });

        it("stream-json input: a secret_request line, answered by a secret_response line; the password reaches the program only", async () => {
            askTheUser();
            server.enqueue(
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
            const child = spawn(
                process.execPath,
                [
                    NORTH_BIN,
                    "-p",
                    "--input-format",
                    "stream-json",
                    "--output-format",
                    "stream-json",
                    "--path",
                    repo,
                    "--allow-shell",
                ],
                { env, stdio: ["pipe", "pipe", "pipe"] }
            );
            let stdout = "";
            let stderr = "";
            child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
            const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
            child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
                const before = stdout;
                stdout += chunk;
                for (const line of stdout.slice(before.lastIndexOf("\n") + 1).split("\n")) {
                    if (!line.startsWith('{"type":"secret_request"')) continue;
                    const request = JSON.parse(line) as { id: string };
                    child.stdin!.write(
                        `${JSON.stringify({ type: "secret_response", id: request.id, secret: SECRET })}\n`
                    );
                }
                if (stdout.includes('"type":"result"')) child.stdin!.end();
            });
            child.stdin!.write(
                `${JSON.stringify({ type: "user", message: { role: "user", content: "log in" } })}\n`
            );
            expect(await exited).toBe(0);
            const events = lines(stdout);
            expect(events.find((e) => e.type === "secret_request")).toMatchObject({
                process: { id: "p1", command: ASKS },
            });
            // The program got it: the model reads its answer, never the password.
            const afterExit = JSON.stringify(server.requests[3]!.body);
            expect(afterExit).toContain(`got ${SECRET.length} characters`);
            for (const request of server.requests)
                expect(JSON.stringify(request.body)).not.toContain(SECRET);
            expect(stdout).not.toContain(SECRET);
            expect(stderr).not.toContain(SECRET);
            expect(events.at(-1)).toMatchObject({ type: "result", result: "Logged in." });
            // Nor in the conversation, the log or anything else North keeps.
            const kept = readdirSync(home, { recursive: true, withFileTypes: true })
                .filter((entry) => entry.isFile())
                .map((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8"));
            expect(kept.length).toBeGreaterThan(0);
            for (const text of kept) expect(text).not.toContain(SECRET);
        });
    });
});
