/**
 * North killed with `kill -9` while a background process runs: through the
 * built CLI, the next North started in the same project stops the process
 * and says so once.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";
import { until } from "../tools/sandbox-kit";

let server: FakeLlmServer;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;
const stray: number[] = [];

/** Alive and not a zombie (pid 1 in a container may never reap an orphan). */
function running(pid: number): boolean {
    try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
    } catch {
        return false;
    }
}

beforeEach(async () => {
    server = await startFakeLlmServer();
    repo = realpathSync(mkdtempSync(join(tmpdir(), "north-leftovers-repo-")));
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
});

afterEach(async () => {
    for (const pid of stray.splice(0)) {
        try {
            process.kill(pid, "SIGKILL");
        } catch {
            // gone, as it should be
        }
    }
    await server.close();
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

const COMMAND = 'echo "pid $$"; exec sleep 1000';

describe.skipIf(process.platform !== "linux")("a North killed with kill -9", () => {
    it("leaves its background process to the next North in the project, which stops it and says so", async () => {
        server.enqueue(
            { toolCalls: [{ name: "shell_run", input: { command: COMMAND, background: true } }] },
            // North waits here until it is killed.
            {
                toolCalls: [
                    { name: "process_read", input: { id: "p1", wait: "exit", timeoutMs: 600_000 } },
                ],
            }
        );
        let killed = false;
        const first = runNorth(["-p", "start it", "--path", repo, "--allow-shell"], {
            env,
            onSpawn: (child) => {
                void until(
                    () => server.requests.length >= 2 && server.remaining() === 0,
                    60_000
                ).then(() => {
                    killed = child.kill("SIGKILL");
                });
            },
        });
        const run = await first;
        expect(killed).toBe(true);
        expect(run.signal).toBe("SIGKILL");
        const pid = Number(/pid (\d+)/.exec(JSON.stringify(server.requests[1]!.body))?.[1]);
        stray.push(pid);
        expect(running(pid)).toBe(true);

        server.enqueue({ text: "Hello." });
        const second = await runNorth(["-p", "hi", "--path", repo], { env });
        expect(second.code).toBe(0);
        expect(second.stderr).toContain(
            'Stopped 1 process left running by a North that ended abruptly: p1 `echo "pid $$"; exec sleep 1000`.'
        );
        expect(await until(() => !running(pid))).toBe(true);

        // Said once: the next start has nothing to report.
        server.enqueue({ text: "Hello again." });
        const third = await runNorth(["-p", "hi", "--path", repo], { env });
        expect(third.stderr).not.toContain("ended abruptly");
    });
});
