import {
    mkdirSync,
    mkdtempSync,
    readFileSync,
    readdirSync,
    rmSync,
    statSync,
    writeFileSync,
} from "node:fs";
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
    repo = mkdtempSync(join(tmpdir(), "north-conv-repo-"));
    writeFileSync(join(repo, "notes.txt"), "remember the milk\n");
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

const json = (text: string) => JSON.parse(text.trim()) as { session_id: string; result: string };

describe("saved conversations in print mode", () => {
    it("saves each conversation (0600) and resumes it by id with the whole transcript", async () => {
        server.enqueue(
            { toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
            { text: "It says milk." }
        );
        const first = await runNorth(
            ["-p", "what do the notes say?", "--path", repo, "--output-format", "json"],
            { env }
        );
        expect(first.code).toBe(0);
        const id = json(first.stdout).session_id;
        const logPath = join(home, "data", "conversations", `${id}.jsonl`);
        expect(statSync(logPath).mode & 0o777).toBe(0o600);
        const header = JSON.parse(readFileSync(logPath, "utf8").split("\n")[0]!);
        expect(header).toMatchObject({
            type: "header",
            version: 2,
            id,
            repoRoot: expect.any(String),
        });

        server.enqueue({ text: "You asked about the notes." });
        const second = await runNorth(
            ["-p", "what did I ask before?", "--resume", id, "--output-format", "json"],
            { env }
        );
        expect(second.code).toBe(0);
        expect(json(second.stdout).session_id).toBe(id);
        const sent = JSON.stringify(server.requests.at(-1)!.body);
        expect(sent).toContain("what do the notes say?");
        expect(sent).toContain("remember the milk");
        expect(sent).toContain("It says milk.");
        expect(sent).toContain("what did I ask before?");
    });

    it("--continue picks this project's latest conversation", async () => {
        server.enqueue({ text: "one" }, { text: "two" }, { text: "three" });
        await runNorth(["-p", "first", "--path", repo], { env });
        const other = mkdtempSync(join(tmpdir(), "north-other-"));
        await runNorth(["-p", "elsewhere", "--path", other], { env });
        const run = await runNorth(["-p", "again", "--continue", "--path", repo], { env });
        expect(run.code).toBe(0);
        const sent = JSON.stringify(server.requests.at(-1)!.body);
        expect(sent).toContain("first");
        expect(sent).not.toContain("elsewhere");
        rmSync(other, { recursive: true, force: true });
    });

    it("skips a torn last line with a warning and loads the rest", async () => {
        server.enqueue({ text: "saved answer" });
        const first = await runNorth(
            ["-p", "keep this", "--path", repo, "--output-format", "json"],
            { env }
        );
        const id = json(first.stdout).session_id;
        const logPath = join(home, "data", "conversations", `${id}.jsonl`);
        writeFileSync(logPath, readFileSync(logPath, "utf8") + '{"type":"entry_added","ts":"2026', {
            flag: "w",
        });
        server.enqueue({ text: "resumed" });
        const run = await runNorth(["-p", "next", "--resume", id], { env });
        expect(run.code).toBe(0);
        expect(run.stderr).toContain("warning");
        expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("saved answer");
    });

    it("rejects an unknown id and an id with path characters", async () => {
        const unknown = await runNorth(["-p", "x", "--resume", "abcdef"], { env });
        expect(unknown.code).toBe(2);
        expect(unknown.stderr).toContain("abcdef");
        const sneaky = await runNorth(["-p", "x", "--resume", "../x"], { env });
        expect(sneaky.code).toBe(2);
        expect(sneaky.stderr).toContain("invalid conversation id");
    });

    it("keeps answering when the data directory cannot be written, and says so", async () => {
        const blocker = join(home, "not-a-dir");
        writeFileSync(blocker, "");
        server.enqueue({ text: "still works" });
        const run = await runNorth(["-p", "hi", "--path", repo], {
            env: { ...env, NORTH_DATA_DIR: blocker },
        });
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("still works\n");
        expect(run.stderr).toContain("will not be saved");
    });

    it("north list shows saved conversations newest first", async () => {
        server.enqueue({ text: "a" }, { text: "b" });
        await runNorth(["-p", "the older prompt", "--path", repo], { env });
        await runNorth(["-p", "the newer prompt", "--path", repo], { env });
        const run = await runNorth(["list"], { env });
        expect(run.code).toBe(0);
        expect(run.stdout.indexOf("the newer prompt")).toBeLessThan(
            run.stdout.indexOf("the older prompt")
        );
        expect(
            readdirSync(join(home, "data", "conversations")).filter((f) => f.endsWith(".jsonl"))
        ).toHaveLength(2);
        mkdirSync(join(home, "x"), { recursive: true });
    });
});
