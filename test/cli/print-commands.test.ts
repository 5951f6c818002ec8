import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

let server: FakeLlmServer;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-pcmd-"));
    const isolated = isolatedHome();
    home = isolated.home;
    env = {
        ...isolated.env,
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        OPENAI_API_KEY: "o",
        OPENAI_BASE_URL: server.openaiBaseUrl,
    };
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

describe("slash commands in print mode", () => {
    it("/model switches provider for this run and the rest of the input goes to the model", async () => {
        server.enqueue({ text: "explained" });
        const run = await runNorth(["-p", "/model gpt-5.1 explain x", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("explained\n");
        expect(run.stderr).toContain("⚙ /model gpt-5.1");
        expect(server.requests[0]!.path).toBe("/v1/responses");
        const body = JSON.stringify(server.requests[0]!.body);
        expect(body).toContain('"model":"gpt-5.1"');
        expect(body).toContain("explain x");
        expect(body).not.toContain("/model");
    });

    it("an input of commands only never calls the model", async () => {
        const run = await runNorth(["-p", "/help", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(run.stdout).toContain("/summarize [--keep-last N]");
        expect(server.requests).toHaveLength(0);
    });

    it("an unknown alias is an error listing close aliases; nothing is sent", async () => {
        const run = await runNorth(["-p", "/model sonet-4-5 hello", "--path", repo], { env });
        expect(run.code).toBe(2);
        expect(run.stdout + run.stderr).toContain("sonnet-4-5");
        expect(server.requests).toHaveLength(0);
    });

    it("/rewind, /new and /fork are refused, naming what print mode offers instead; nothing is sent", async () => {
        const rewind = await runNorth(["-p", "/rewind 1", "--path", repo], { env });
        expect(rewind.code).toBe(2);
        expect(rewind.stdout + rewind.stderr).toContain(
            "/rewind works in the chat; from the shell: north rewind ID [--to N]"
        );
        // /new would only claim a new conversation: print mode keeps the one it started with.
        const fresh = await runNorth(["-p", "/new explain x", "--path", repo], { env });
        expect(fresh.code).toBe(2);
        expect(fresh.stdout + fresh.stderr).toContain("/new works in the chat");
        const fork = await runNorth(["-p", "/fork explain x", "--path", repo], { env });
        expect(fork.code).toBe(2);
        expect(fork.stdout + fork.stderr).toContain("--fork-session and --resume ID or --continue");
        expect(server.requests).toHaveLength(0);
    });

    it("/mode ask limits the request to read-only tools, and /export writes Markdown", async () => {
        server.enqueue({ text: "read only" });
        const run = await runNorth(["-p", "/mode ask look around", "--path", repo], { env });
        expect(run.code).toBe(0);
        const tools = (server.requests[0]!.body as { tools: Array<{ name: string }> }).tools.map(
            (t) => t.name
        );
        expect(tools).toContain("read_file");
        expect(tools).not.toContain("shell_run");
        const id = (await runNorth(["list"], { env })).stdout.split(" ")[0]!;
        const exported = await runNorth(["-p", "--resume", id, "/export notes.md"], { env });
        expect(exported.code).toBe(0);
        const markdown = readFileSync(join(repo, "notes.md"), "utf8");
        expect(markdown).toContain("look around");
        expect(markdown).toContain("read only");
    });
});
