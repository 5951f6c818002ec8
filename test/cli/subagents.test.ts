import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, type ScriptedTurn, startFakeLlmServer } from "../kit/fake-llm-server";
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
    repo = mkdtempSync(join(tmpdir(), "north-task-repo-"));
    writeFileSync(join(repo, "app.ts"), "export const retries = 3;\nexport const timeout = 10;\n");
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

/** Served only to the subagent whose prompt carries `tag` (the parent's requests never match). */
const child =
    (tag: string) =>
    (body: string): boolean =>
        body.includes("You are a subagent doing one task") && body.includes(tag);

const task = (id: string, tag: string, extra: Record<string, unknown> = {}) => ({
    id,
    name: "task",
    input: { description: `look ${tag}`, prompt: `${tag}: find what you can`, ...extra },
});

const parentRequests = () =>
    server.requests
        .map((r) => JSON.stringify(r.body))
        .filter((b) => !b.includes("You are a subagent doing one task"));

async function print(prompt: string, flags: string[] = []) {
    return runNorth(["-p", prompt, "--path", repo, ...flags], { env });
}

describe("the task tool in print mode", () => {
    it("runs a read-only child whose report is the result; its progress and spend reach the parent", async () => {
        const usage = { input: 1000, output: 100 };
        server.enqueue(
            { toolCalls: [task("t1", "TASK-A")], usage },
            {
                when: child("TASK-A"),
                toolCalls: [{ name: "read_file", input: { path: "app.ts" } }],
                usage,
            },
            { when: child("TASK-A"), text: "retries is 3 in app.ts", usage },
            { text: "The child says 3.", usage }
        );
        const run = await print("how many retries?", ["--output-format", "stream-json"]);
        expect(run.code).toBe(0);
        const lines = run.stdout
            .trim()
            .split("\n")
            .map((l) => JSON.parse(l) as Record<string, unknown>);
        const progress = lines.filter((l) => l.type === "task_progress");
        expect(progress).toContainEqual(
            expect.objectContaining({ id: "t1", step: "tool_call", tool: "read_file" })
        );
        const result = lines.find((l) => l.type === "tool_result" && l.id === "t1")!;
        expect(result.ok).toBe(true);
        expect(String(result.content)).toContain("retries is 3 in app.ts");
        // The child offers read tools only, and no task of its own.
        const parentTools = (
            server.requests[0]!.body as { tools: Array<{ name: string }> }
        ).tools.map((t) => t.name);
        const childRequest = server.requests.find((r) => child("TASK-A")(JSON.stringify(r.body)))!;
        const offered = (childRequest.body as { tools: Array<{ name: string }> }).tools.map(
            (t) => t.name
        );
        expect(parentTools).toContain("task");
        expect(offered).toContain("read_file");
        expect(offered).not.toContain("task");
        expect(offered).not.toContain("shell_run");
        expect(offered).not.toContain("edit_replace_exact");
        const final = lines.at(-1)!;
        expect(final.type).toBe("result");
        // Four responses of 1,000 tokens in: the parent's two and the child's two.
        expect((final.usage as { input_tokens: number }).input_tokens).toBe(4000);
        expect(final.total_cost_usd as number).toBeGreaterThan(0);
    });

    it("tells the parent when the child's provider fails, and the parent carries on", async () => {
        server.enqueue(
            { toolCalls: [task("t1", "TASK-F")] },
            { when: child("TASK-F"), error: { status: 400, message: "child request rejected" } },
            { text: "The task failed, sorry." }
        );
        const run = await print("go", ["--output-format", "json"]);
        expect(run.code).toBe(0);
        expect(JSON.parse(run.stdout).result).toBe("The task failed, sorry.");
        const last = parentRequests().at(-1)!;
        expect(last).toContain("the subagent failed");
        expect(last).toContain("child request rejected");
    });

    it("stops a child at its turn limit and returns what it had, with a note", async () => {
        const looping: ScriptedTurn[] = Array.from({ length: 25 }, () => ({
            when: child("TASK-L"),
            text: "still looking",
            toolCalls: [{ name: "list_root", input: {} }],
        }));
        server.enqueue({ toolCalls: [task("t1", "TASK-L")] }, ...looping, { text: "ok" });
        const run = await print("go");
        expect(run.code).toBe(0);
        const last = parentRequests().at(-1)!;
        expect(last).toContain("still looking");
        expect(last).toContain("stopped at its limit of 25 turns");
    });

    it("runs two tasks of one turn and returns both results in call order", async () => {
        server.enqueue(
            { toolCalls: [task("ta", "TASK-A"), task("tb", "TASK-B")] },
            // B's answer is queued first: order must come from the calls, not the finish.
            { when: child("TASK-B"), text: "report from B" },
            { when: child("TASK-A"), text: "report from A" },
            { text: "both done" }
        );
        const run = await print("go", ["--output-format", "json"]);
        expect(run.code).toBe(0);
        const last = parentRequests().at(-1)!;
        expect(last.indexOf("report from A")).toBeGreaterThan(-1);
        expect(last.indexOf("report from A")).toBeLessThan(last.indexOf("report from B"));
        expect(last.indexOf('"tool_use_id":"ta"')).toBeLessThan(last.indexOf('"tool_use_id":"tb"'));
        expect(JSON.parse(run.stdout).tool_calls.map((c: { ok: boolean }) => c.ok)).toEqual([
            true,
            true,
        ]);
    });

    it("uses a .north/agents definition's tools; two parallel editors of one file lose nothing", async () => {
        mkdirSync(join(repo, ".north", "agents"), { recursive: true });
        writeFileSync(
            join(repo, ".north", "agents", "editor.md"),
            "---\nname: editor\ndescription: Changes constants\ntools: Read, Edit\n---\nChange only what you are asked.\n"
        );
        const edit = (from: string, to: string) => ({
            name: "edit_replace_exact",
            input: { path: "app.ts", old_text: from, new_text: to },
        });
        server.enqueue(
            {
                toolCalls: [
                    task("ta", "TASK-A", { agent: "editor" }),
                    task("tb", "TASK-B", { agent: "editor" }),
                ],
            },
            { when: child("TASK-A"), toolCalls: [edit("retries = 3", "retries = 5")] },
            { when: child("TASK-B"), toolCalls: [edit("timeout = 10", "timeout = 20")] },
            { when: child("TASK-A"), text: "A edited" },
            { when: child("TASK-B"), text: "B edited" },
            { text: "done" }
        );
        const run = await print("go", ["--allow-edits"]);
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe(
            "export const retries = 5;\nexport const timeout = 20;\n"
        );
        // The definition is listed to the parent, and its instructions reach the child.
        expect(parentRequests()[0]).toContain("editor: Changes constants");
        const childRequest = server.requests.find((r) => child("TASK-A")(JSON.stringify(r.body)))!;
        const body = JSON.stringify(childRequest.body);
        expect(body).toContain("Change only what you are asked.");
        const offered = (childRequest.body as { tools: Array<{ name: string }> }).tools.map(
            (t) => t.name
        );
        expect(offered).toContain("edit_replace_exact");
        expect(offered).toContain("read_file");
        expect(offered).not.toContain("shell_run");
    });

    it("grants a default child the tools of the user's subagents.tools, under the user's permission rules", async () => {
        mkdirSync(join(home, "config"), { recursive: true });
        writeFileSync(
            join(home, "config", "config.json"),
            JSON.stringify({
                subagents: { tools: ["Read", "Bash"] },
                permissions: { deny: ["Bash(rm:*)"] },
            })
        );
        writeFileSync(join(repo, "AGENTS.md"), "Always answer in haiku.\n");
        server.enqueue(
            { toolCalls: [task("t1", "TASK-S")] },
            {
                when: child("TASK-S"),
                toolCalls: [{ name: "shell_run", input: { command: "rm -f app.ts" } }],
            },
            { when: child("TASK-S"), text: "the rule refused it" },
            { text: "done" }
        );
        const run = await print("go", ["--allow-shell"]);
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, "app.ts"), "utf8")).toContain("retries = 3");
        const childBodies = server.requests
            .map((r) => JSON.stringify(r.body))
            .filter(child("TASK-S"));
        expect(childBodies[1]).toContain("denied by the permission rule Bash(rm:*)");
        // The project's AGENTS.md reaches the child as it reaches the parent.
        expect(childBodies[0]).toContain("Always answer in haiku.");
        const offered = (
            server.requests.find((r) => child("TASK-S")(JSON.stringify(r.body)))!.body as {
                tools: Array<{ name: string }>;
            }
        ).tools.map((t) => t.name);
        expect(offered).toContain("read_file");
        expect(offered).toContain("shell_run");
        expect(offered).not.toContain("edit_replace_exact");
    });

    it("refuses subagents.tools in a project's settings: a repository cannot widen its children", async () => {
        mkdirSync(join(repo, ".north"), { recursive: true });
        writeFileSync(
            join(repo, ".north", "settings.json"),
            JSON.stringify({ subagents: { tools: ["Bash"] } })
        );
        server.enqueue(
            { toolCalls: [task("t1", "TASK-P")] },
            { when: child("TASK-P"), text: "looked" },
            { text: "done" }
        );
        const run = await print("go", ["--trust"]);
        expect(run.code).toBe(0);
        expect(run.stderr).toContain('"subagents"');
        expect(run.stderr).toContain("a user setting");
        const childRequest = server.requests.find((r) => child("TASK-P")(JSON.stringify(r.body)))!;
        const offered = (childRequest.body as { tools: Array<{ name: string }> }).tools.map(
            (t) => t.name
        );
        expect(offered).not.toContain("shell_run");
    });

    it("stops a child when the session's spend reaches --max-budget-usd, and the parent says why", async () => {
        // Sonnet input at $3 per million: each turn of 10,000 tokens costs $0.03.
        const usage = { input: 10_000, output: 0 };
        const read = { name: "read_file", input: { path: "app.ts" } };
        server.enqueue(
            { toolCalls: [task("t1", "TASK-M")], usage },
            { when: child("TASK-M"), toolCalls: [read], usage },
            { when: child("TASK-M"), toolCalls: [read], usage }
        );
        const run = await print("go", [
            "--model",
            "sonnet-4",
            "--max-budget-usd",
            "0.1",
            "--output-format",
            "stream-json",
        ]);
        const lines = run.stdout
            .trim()
            .split("\n")
            .map((l) => JSON.parse(l) as Record<string, unknown>);
        // The child alone spent $0.06; with the parent's $0.03 the next request would pass $0.10.
        const taskResult = lines.find((l) => l.type === "tool_result" && l.id === "t1")!;
        expect(taskResult.ok).toBe(false);
        expect(String(taskResult.content)).toContain("because the session's budget was reached");
        const final = lines.at(-1)!;
        expect(final.subtype).toBe("error_max_budget_usd");
        expect(run.code).not.toBe(0);
        expect(server.requests).toHaveLength(3);
    });

    it("ignores an untrusted project's definitions and says so to the model", async () => {
        mkdirSync(join(repo, ".north", "agents"), { recursive: true });
        writeFileSync(
            join(repo, ".north", "agents", "editor.md"),
            "---\nname: editor\ndescription: Changes constants\ntools: Edit\n---\nx\n"
        );
        // Gated configuration makes the project need trust; print mode without --trust says no.
        writeFileSync(
            join(repo, ".north", "settings.json"),
            JSON.stringify({ permissions: { allow: ["Bash(ls:*)"] } })
        );
        server.enqueue(
            { toolCalls: [task("t1", "TASK-U", { agent: "editor" })] },
            { text: "no such agent" }
        );
        const run = await print("go");
        expect(run.code).toBe(0);
        expect(parentRequests()[0]).not.toContain("Changes constants");
        const last = parentRequests().at(-1)!;
        expect(last).toContain("no agent named");
        expect(last).toContain("none are defined");
    });
});
