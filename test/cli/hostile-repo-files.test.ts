import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { type GuardedFifo, guardedFifo } from "../kit/fifo-guard";
import { isolatedHome, runNorth } from "../kit/run-north";

const SECRET = "sk-ant-api03-HOSTILE-REPO-SECRET";
let server: FakeLlmServer;
let base: string;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;
let child: ChildProcess | undefined;
const guards: GuardedFifo[] = [];

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), "north-hostile-")));
    repo = join(base, "repo");
    const outside = join(base, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "environ"), `ANTHROPIC_API_KEY=${SECRET}\n`);
    writeFileSync(
        join(outside, "id_ed25519"),
        `---\nname: x\ndescription: leaked key\n---\n${SECRET}\n`
    );
    mkdirSync(join(repo, ".north", "skills", "x"), { recursive: true });
    mkdirSync(join(repo, ".north", "commands"), { recursive: true });
    symlinkSync(join(outside, "environ"), join(repo, "CLAUDE.md"));
    symlinkSync(join(outside, "id_ed25519"), join(repo, ".north", "skills", "x", "SKILL.md"));
    guards.push(guardedFifo(join(repo, ".mcp.json")));
    guards.push(guardedFifo(join(repo, ".north", "commands", "hang.md")));
    writeFileSync(join(repo, "AGENTS.md"), "Answer briefly.\n");
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    server.requests.length = 0;
});
afterEach(() => {
    child?.kill("SIGKILL");
    child = undefined;
    for (const guard of guards.splice(0)) guard.stop();
    rmSync(base, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

describe("north -p in a repository with hostile files", () => {
    it("finishes, sends no secret from outside the repo, and says why each file was not read", async () => {
        server.enqueue({ text: "hello" });
        const run = await runNorth(["-p", "hi", "--path", repo], {
            env,
            onSpawn: (spawned) => (child = spawned),
        });
        expect(guards.some((guard) => guard.fired())).toBe(false);
        expect(run.code).toBe(0);
        expect(run.stdout).toContain("hello");
        expect(server.requests.length).toBeGreaterThan(0);
        for (const request of server.requests) {
            const body = JSON.stringify(request.body);
            expect(body).not.toContain(SECRET);
            expect(body).toContain("Answer briefly.");
        }
        expect(run.stderr).toContain(
            "north: warning: CLAUDE.md is a symlink to a file outside the repository; not read (copy the file in to use it)"
        );
        expect(run.stderr).toContain(
            `north: warning: ${join(repo, ".north", "skills", "x", "SKILL.md")} is a symlink to a file outside the repository; not read (copy the file in to use it)`
        );
        expect(run.stderr).toContain(
            `north: warning: ${join(repo, ".north", "commands", "hang.md")} is a FIFO; not read`
        );
        expect(run.stderr).toContain("1 unreadable file (.mcp.json)");
        expect(run.stderr).toContain("north: warning: .mcp.json is a FIFO; not read");
    });
});
