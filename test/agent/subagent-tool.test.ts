import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../../src/agent/approvals";
import type { EngineEvent } from "../../src/agent/events";
import { AgentSession } from "../../src/agent/session";
import { childTools, createSubagents } from "../../src/agent/subagent-tool";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import type { Provider, StreamRequest } from "../../src/providers/types";
import { createToolRegistry } from "../../src/tools/registry";
import type { AnyToolDefinition } from "../../src/tools/types";
import { ScriptedProvider, type ScriptedReply, call, text } from "../kit/scripted-provider";
import { toolInput } from "../../src/tools/tool-input";

const sonnet = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!;

function fakeTool(name: string, readOnly: boolean, aliases: string[] = []): AnyToolDefinition {
    return {
        name,
        description: name,
        input: toolInput((z) => z.object({ path: z.string() })),
        approvalPolicy: readOnly ? "none" : "shell",
        readOnly,
        hookAliases: aliases,
        approval: (input: { path: string }) => ({
            summary: `touch ${input.path}`,
            rememberKey: name,
        }),
        execute: async (input: { path: string }) => ({ ok: true, data: { touched: input.path } }),
    };
}

describe("childTools", () => {
    const parent = createToolRegistry([
        fakeTool("read_file", true, ["Read"]),
        fakeTool("shell_run", false, ["Bash"]),
        fakeTool("edit_replace_exact", false, ["Edit"]),
        createSubagents({ agents: [] }).tool,
    ]);
    const names = (granted?: string[]) =>
        childTools(parent, granted)
            .tools.list()
            .map((t) => t.name);

    it("offers the read-only tools by default, never task", () => {
        expect(names()).toEqual(["read_file"]);
    });

    it("maps Claude Code's names, reports unknown ones, and never grants task", () => {
        expect(names(["Read", "Edit", "Task"])).toEqual(["read_file", "edit_replace_exact"]);
        expect(childTools(parent, ["Bash", "Frobnicate"]).unknown).toEqual(["Frobnicate"]);
        expect(names(["task"])).toEqual([]);
    });

    it("offers the process tools with shell_run only, and never without it", () => {
        const processTool = (name: string): AnyToolDefinition => ({
            ...fakeTool(name, false),
            offeredWith: "shell_run",
        });
        const withProcesses = createToolRegistry([
            fakeTool("read_file", true, ["Read"]),
            fakeTool("shell_run", false, ["Bash"]),
            processTool("process_read"),
            processTool("process_stop"),
        ]);
        const granted = (list?: string[]) =>
            childTools(withProcesses, list)
                .tools.list()
                .map((t) => t.name);
        expect(granted()).toEqual(["read_file"]);
        expect(granted(["Bash"])).toEqual(["shell_run", "process_read", "process_stop"]);
        expect(granted(["Read", "process_read"])).toEqual(["read_file"]);
    });
});

describe("a task through the session", () => {
    it("asks the parent's approver, labelled with the task, and adds the child's spend to the run", async () => {
        const usage = { inputTokens: 100 };
        const provider = new ScriptedProvider([
            {
                blocks: [
                    call("t1", "task", {
                        description: "touch it",
                        prompt: "touch a",
                        agent: "toucher",
                    }),
                ],
                usage,
            },
            { blocks: [call("c1", "shell_run", { path: "a" })], usage },
            { blocks: [text("touched a")], usage },
            { blocks: [text("done")], usage },
        ]);
        const subagents = createSubagents({
            agents: [
                {
                    name: "toucher",
                    description: "touches",
                    tools: ["Bash"],
                    prompt: "Be brief.",
                    file: "x.md",
                },
            ],
        });
        const tools = createToolRegistry([fakeTool("shell_run", false, ["Bash"]), subagents.tool]);
        const asked: ApprovalRequest[] = [];
        const session = new AgentSession({
            sessionId: "task01",
            repoRoot: "/repo",
            model: sonnet,
            providerFor: async () => provider,
            tools,
            approver: async (request) => {
                asked.push(request);
                return { outcome: "approve" };
            },
            subagents,
        });
        const events: EngineEvent[] = [];
        session.subscribe((e) => events.push(e));
        const result = await session.run("go", { mode: "agent" });
        expect(result.subtype).toBe("success");
        expect(asked.map((r) => r.summary)).toEqual(['task "touch it": touch a']);
        // The child's request: its own transcript, the definition's prompt, no task tool.
        const childRequest = provider.requests[1]!;
        expect(childRequest.system).toContain("Be brief.");
        expect(childRequest.tools.map((t) => t.name)).toEqual(["shell_run"]);
        expect(JSON.stringify(childRequest.messages)).not.toContain('"go"');
        expect(JSON.stringify(provider.requests[3]!.messages)).toContain("touched a");
        const progress = events.filter((e) => e.type === "task_progress");
        expect(progress.map((e) => e.step)).toEqual(["turn", "tool_call", "tool_result", "turn"]);
        expect(progress.every((e) => e.id === "t1")).toBe(true);
        // Four responses of 100 tokens in, the child's two included, in the run and the session.
        expect(result.usage.inputTokens).toBe(400);
        expect(session.state().totalUsage.inputTokens).toBe(400);
        expect(result.costUsd).toBe(session.state().totalCostUsd);
    });
});

/** Serves each subagent (found by the tag in its prompt) from its own script; the parent from `parent`. */
function routedProvider(
    parent: ScriptedReply[],
    children: Record<string, ScriptedReply[]>
): Provider & { requests: StreamRequest[]; byTag: Record<string, ScriptedProvider> } {
    const main = new ScriptedProvider(parent);
    const byTag = Object.fromEntries(
        Object.entries(children).map(([tag, replies]) => [tag, new ScriptedProvider(replies)])
    );
    const requests: StreamRequest[] = [];
    return {
        api: "anthropic",
        requests,
        byTag,
        stream(request, signal) {
            requests.push(structuredClone(request));
            const first = JSON.stringify(request.messages[0]);
            const tag = Object.keys(byTag).find((t) => first.includes(t));
            return (tag ? byTag[tag]! : main).stream(request, signal);
        },
    };
}

const task = (id: string, tag: string, agent?: string) =>
    call(id, "task", {
        description: `do ${tag}`,
        prompt: `${tag}: do it`,
        ...(agent ? { agent } : {}),
    });

describe("the subagents.tools setting", () => {
    it("grants a default subagent its tools, which still ask the parent's approver", async () => {
        let ran = 0;
        const shell = { ...fakeTool("shell_run", false, ["Bash"]) };
        shell.execute = async (input: { path: string }) => {
            ran++;
            return { ok: true, data: { touched: input.path } };
        };
        const provider = routedProvider(
            [{ blocks: [task("t1", "TAG-S")] }, { blocks: [text("done")] }],
            {
                "TAG-S": [
                    { blocks: [call("c1", "shell_run", { path: "a" })] },
                    { blocks: [text("it was refused")] },
                ],
            }
        );
        const subagents = createSubagents({ agents: [], defaultTools: ["Bash"] });
        expect(subagents.tool.description).toContain("Without an agent its tools are: Bash.");
        const asked: string[] = [];
        const session = new AgentSession({
            sessionId: "task02",
            repoRoot: "/repo",
            model: sonnet,
            providerFor: async () => provider,
            tools: createToolRegistry([fakeTool("read_file", true), shell, subagents.tool]),
            approver: async (request) => {
                asked.push(request.summary);
                return { outcome: "deny" };
            },
            subagents,
        });
        const result = await session.run("go", { mode: "agent" });
        expect(result.subtype).toBe("success");
        const childRequest = provider.byTag["TAG-S"]!.requests[0]!;
        expect(childRequest.tools.map((t) => t.name)).toEqual(["shell_run"]);
        expect(asked).toEqual(['task "do TAG-S": touch a']);
        expect(ran).toBe(0);
    });

    it("warns about unknown names in the setting", async () => {
        const provider = routedProvider(
            [{ blocks: [task("t1", "TAG-U")] }, { blocks: [text("done")] }],
            { "TAG-U": [{ blocks: [text("nothing to do")] }] }
        );
        const subagents = createSubagents({ agents: [], defaultTools: ["Frob"] });
        const session = new AgentSession({
            sessionId: "task03",
            repoRoot: "/repo",
            model: sonnet,
            providerFor: async () => provider,
            tools: createToolRegistry([fakeTool("read_file", true), subagents.tool]),
            approver: async () => ({ outcome: "deny" }),
            subagents,
        });
        const warnings: string[] = [];
        session.subscribe((e) => {
            if (e.type === "warning") warnings.push(e.message);
        });
        await session.run("go", { mode: "agent" });
        expect(warnings).toContain("setting subagents.tools: unknown tools Frob ignored");
    });
});

describe("a subagent's context", () => {
    it("gets the project's rules and profile, not memory, in a system prompt that stays the same across its turns", async () => {
        const provider = routedProvider(
            [{ blocks: [task("t1", "TAG-C")] }, { blocks: [text("done")] }],
            {
                "TAG-C": [
                    { blocks: [call("c1", "read_file", { path: "a" })] },
                    { blocks: [text("read it")] },
                ],
            }
        );
        const subagents = createSubagents({ agents: [] });
        const session = new AgentSession({
            sessionId: "task04",
            repoRoot: "/repo",
            model: sonnet,
            providerFor: async () => provider,
            tools: createToolRegistry([fakeTool("read_file", true), subagents.tool]),
            approver: async () => ({ outcome: "deny" }),
            context: {
                rules: "# AGENTS.md\nIndent with tabs.",
                profile: "A TypeScript CLI.",
                memory: "# Memory\nThe user likes short answers.",
            },
            subagents,
        });
        await session.run("go", { mode: "agent" });
        const [first, second] = provider.byTag["TAG-C"]!.requests;
        expect(first!.system).toContain("Indent with tabs.");
        expect(first!.system).toContain("# Project Profile\n\nA TypeScript CLI.");
        expect(first!.system).not.toContain("short answers");
        expect(first!.system).toContain("You are a subagent doing one task");
        expect(second!.system).toBe(first!.system);
    });
});

describe("--max-budget-usd with subagents", () => {
    it("stops a child when the session's total reaches the budget, and the parent is told why", async () => {
        let ran = 0;
        const reader = fakeTool("read_file", true);
        reader.execute = async (input: { path: string }) => {
            ran++;
            return { ok: true, data: { touched: input.path } };
        };
        // Sonnet input at $3 per million: 300k tokens $0.90, 10k tokens $0.03.
        const big = { inputTokens: 300_000 };
        const small = { inputTokens: 10_000 };
        const provider = routedProvider(
            [
                { blocks: [text("first answer")], usage: big },
                { blocks: [task("t1", "TAG-B")], usage: small },
            ],
            {
                "TAG-B": [
                    { blocks: [call("c1", "read_file", { path: "a" })], usage: small },
                    { blocks: [call("c2", "read_file", { path: "b" })], usage: small },
                    { blocks: [text("never sent")] },
                ],
            }
        );
        const subagents = createSubagents({ agents: [] });
        const session = new AgentSession({
            sessionId: "task05",
            repoRoot: "/repo",
            model: sonnet,
            providerFor: async () => provider,
            tools: createToolRegistry([reader, subagents.tool]),
            approver: async () => ({ outcome: "deny" }),
            maxBudgetUsd: 1,
            subagents,
        });
        expect((await session.run("one", { mode: "agent" })).subtype).toBe("success");
        const result = await session.run("two", { mode: "agent" });
        // The child's own spend ($0.06) is far below $1; the session's ($0.99) is not.
        expect(provider.byTag["TAG-B"]!.requests).toHaveLength(2);
        expect(ran).toBe(1);
        expect(result.subtype).toBe("error_max_budget_usd");
        const taskResult = JSON.stringify(session.messages.at(-1));
        expect(taskResult).toContain("because the session's budget was reached");
        expect(taskResult).toContain("--max-budget-usd");
        expect(session.state().totalCostUsd).toBeCloseTo(0.99, 6);
    });
});

describe("NORTH_FILE blocks of parallel subagents", () => {
    it("are reviewed one at a time, as edits are, and both land", async () => {
        const repo = mkdtempSync(join(tmpdir(), "north-task-nf-"));
        try {
            const writer = {
                ...fakeTool("write_file", false, ["Write"]),
                approvalPolicy: "write" as const,
            };
            const block = (path: string, body: string) =>
                text(`<NORTH_FILE path="${path}">\n${body}\n</NORTH_FILE>`);
            const provider = routedProvider(
                [
                    { blocks: [task("t1", "TAG-1", "writer"), task("t2", "TAG-2", "writer")] },
                    { blocks: [text("done")] },
                ],
                {
                    "TAG-1": [
                        { blocks: [block("one.txt", "first")] },
                        { blocks: [text("wrote one")] },
                    ],
                    "TAG-2": [
                        { blocks: [block("two.txt", "second")] },
                        { blocks: [text("wrote two")] },
                    ],
                }
            );
            const subagents = createSubagents({
                agents: [
                    {
                        name: "writer",
                        description: "writes",
                        tools: ["Write"],
                        prompt: "",
                        file: "w.md",
                    },
                ],
            });
            let inFlight = 0;
            let most = 0;
            const asked: string[] = [];
            const session = new AgentSession({
                sessionId: "task06",
                repoRoot: repo,
                model: sonnet,
                providerFor: async () => provider,
                tools: createToolRegistry([writer, subagents.tool]),
                approver: async (request) => {
                    asked.push(request.summary);
                    inFlight++;
                    most = Math.max(most, inFlight);
                    // Give the other child every chance to ask meanwhile.
                    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
                    inFlight--;
                    return { outcome: "approve" };
                },
                subagents,
            });
            const result = await session.run("go", { mode: "agent" });
            expect(result.subtype).toBe("success");
            expect(asked).toHaveLength(2);
            expect(most).toBe(1);
            expect(readFileSync(join(repo, "one.txt"), "utf8")).toBe("first\n");
            expect(readFileSync(join(repo, "two.txt"), "utf8")).toBe("second\n");
        } finally {
            rmSync(repo, { recursive: true, force: true });
        }
    });
});

describe("subagents and the accept-edits mode", () => {
    it("a child's 'accept edits for the session' holds for the parent and reaches the front-end", async () => {
        const repo = mkdtempSync(join(tmpdir(), "north-task-accept-"));
        try {
            const writer = {
                ...fakeTool("write_file", false, ["Write"]),
                approvalPolicy: "write" as const,
            };
            const block = (path: string, body: string) =>
                text(`<NORTH_FILE path="${path}">\n${body}\n</NORTH_FILE>`);
            const provider = routedProvider(
                [
                    { blocks: [task("t1", "TAG-1", "writer")] },
                    { blocks: [block("parent.txt", "mine")] },
                    { blocks: [text("done")] },
                ],
                {
                    "TAG-1": [
                        { blocks: [block("one.txt", "first")] },
                        { blocks: [text("wrote one")] },
                    ],
                }
            );
            const subagents = createSubagents({
                agents: [
                    {
                        name: "writer",
                        description: "w",
                        tools: ["Write"],
                        prompt: "",
                        file: "w.md",
                    },
                ],
            });
            const asked: string[] = [];
            const session = new AgentSession({
                sessionId: "task07",
                repoRoot: repo,
                model: sonnet,
                providerFor: async () => provider,
                tools: createToolRegistry([writer, subagents.tool]),
                approver: async (request) => {
                    asked.push(request.summary);
                    return { outcome: "approve", remember: "all" };
                },
                subagents,
            });
            const modes: string[] = [];
            session.subscribe((e) => {
                if (e.type === "mode_change") modes.push(e.mode);
            });
            const result = await session.run("go", { mode: "agent" });
            expect(result.subtype).toBe("success");
            expect(modes).toEqual(["accept-edits"]);
            expect(asked).toHaveLength(1);
            expect(readFileSync(join(repo, "parent.txt"), "utf8")).toBe("mine\n");
        } finally {
            rmSync(repo, { recursive: true, force: true });
        }
    });
});
