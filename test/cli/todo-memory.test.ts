import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
    repo = mkdtempSync(join(tmpdir(), "north-todo-repo-"));
    writeFileSync(join(repo, "app.ts"), "export const retries = 3;\n");
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

const systemOf = (index: number): string =>
    JSON.stringify((server.requests[index]!.body as { system?: unknown }).system);

const lines = (stdout: string): Array<Record<string, unknown>> =>
    stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("todo_write in print mode", () => {
    it("streams a todo event with the whole list; the model gets a short result", async () => {
        const items = [
            { content: "Find the retry logic", status: "done" },
            { content: "Raise the limit", status: "in_progress" },
        ];
        server.enqueue({ toolCalls: [{ name: "todo_write", input: { items } }] }, { text: "ok" });
        const run = await runNorth(
            ["-p", "plan it", "--path", repo, "--output-format", "stream-json"],
            { env }
        );
        expect(run.code).toBe(0);
        const events = lines(run.stdout);
        const todo = events.filter((e) => e.type === "todo");
        expect(todo).toEqual([{ type: "todo", items }]);
        const result = events.findIndex((e) => e.type === "tool_result");
        expect(events.findIndex((e) => e.type === "todo")).toBe(result + 1);
        const second = JSON.stringify(server.requests[1]!.body);
        expect(second).toContain("to-do list saved: 2 items, 1/2 done, 1 in progress");
    });

    it("an invalid status is refused with the allowed ones and no todo event", async () => {
        server.enqueue(
            {
                toolCalls: [
                    {
                        name: "todo_write",
                        input: { items: [{ content: "x", status: "completed" }] },
                    },
                ],
            },
            { text: "ok" }
        );
        const run = await runNorth(
            ["-p", "plan it", "--path", repo, "--output-format", "stream-json"],
            { env }
        );
        expect(run.code).toBe(0);
        const events = lines(run.stdout);
        expect(events.some((e) => e.type === "todo")).toBe(false);
        expect(events.find((e) => e.type === "tool_result")).toMatchObject({ ok: false });
        const second = JSON.stringify(server.requests[1]!.body);
        expect(second).toContain("items.0.status");
        expect(second).toContain("in_progress");
    });
});

describe("memory", () => {
    it("is sent in the system prompt, after North's instructions, the user's before the project's", async () => {
        mkdirSync(join(repo, ".north", "memory"), { recursive: true });
        writeFileSync(join(repo, ".north", "memory", "MEMORY.md"), "- Use pnpm, not npm\n");
        mkdirSync(join(home, "data", "memory"), { recursive: true });
        writeFileSync(join(home, "data", "memory", "MEMORY.md"), "- Answer in British English\n");
        server.enqueue({ text: "ok" }, { text: "ok again" });
        const first = await runNorth(["-p", "hi", "--path", repo], { env });
        expect(first.code).toBe(0);
        const system = systemOf(0);
        const at = (text: string) => system.indexOf(text);
        expect(at("You are North")).toBeGreaterThanOrEqual(0);
        expect(at("# Memory")).toBeGreaterThan(at("You are North"));
        expect(at("Answer in British English")).toBeGreaterThan(at("# Memory"));
        expect(at("Use pnpm, not npm")).toBeGreaterThan(at("Answer in British English"));
        // The same bytes every time: the prompt cache holds across requests.
        const again = await runNorth(["-p", "--continue", "more", "--path", repo], { env });
        expect(again.code).toBe(0);
        expect(systemOf(1)).toBe(system);
    });

    it("a 1 MB memory file is capped, marked and warned about", async () => {
        mkdirSync(join(repo, ".north", "memory"), { recursive: true });
        writeFileSync(join(repo, ".north", "memory", "MEMORY.md"), "- a fact\n".repeat(120_000));
        server.enqueue({ text: "ok" });
        const run = await runNorth(["-p", "hi", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(run.stderr).toContain("north: warning: memory file .north/memory/MEMORY.md is");
        expect(systemOf(0)).toContain("[memory truncated:");
        expect(systemOf(0).length).toBeLessThan(60_000);
    });

    it("remember is an edit of protected configuration: denied by default, saved with both flags", async () => {
        const call = { name: "remember", input: { note: "Deploys go through staging" } };
        server.enqueue({ toolCalls: [call] }, { text: "not saved" });
        const denied = await runNorth(["-p", "remember it", "--path", repo, "--allow-edits"], {
            env,
        });
        expect(denied.code).toBe(0);
        expect(JSON.stringify(server.requests[1]!.body)).toContain("denied");
        expect(() => readFileSync(join(repo, ".north", "memory", "MEMORY.md"))).toThrow();

        server.enqueue({ toolCalls: [call] }, { text: "saved" });
        const saved = await runNorth(
            ["-p", "remember it", "--path", repo, "--allow-edits", "--allow-config-edits"],
            { env }
        );
        expect(saved.code).toBe(0);
        expect(readFileSync(join(repo, ".north", "memory", "MEMORY.md"), "utf8")).toBe(
            "# Memory\n\n- Deploys go through staging\n"
        );
    });
});
