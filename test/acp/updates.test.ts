/**
 * What the editor sees of a session's events (issue 34, part 3): streamed
 * text and thinking, tool calls with the chat's titles, their kinds and
 * locations, edits as native diffs built by the real edit tools, commands
 * with their output, plans, modes, usage, NORTH_FILE blocks, diagnostics and
 * stop reasons. Every payload is checked against the protocol's schema.
 */
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../../src/agent/approvals";
import type { EngineEvent, RunResult } from "../../src/agent/events";
import type { HostEvent } from "../../src/agent/protocol";
import { toolDisplaysOf } from "../../src/agent/tool-displays";
import { type TurnEnd, createUpdateTranslator } from "../../src/cli/acp/updates";
import { TOOL_KINDS } from "../../src/cli/acp/tool-call-view";
import { createBuiltinTools } from "../../src/tools/index";
import type { LanguageService } from "../../src/tools/lsp/types";
import type { ShellService } from "../../src/tools/shell-service";
import { createEditReplaceExactTool } from "../../src/tools/edit-replace-exact";
import { createEditCreateFileTool } from "../../src/tools/edit-create-file";
import { type PreparedWrite, isPreparedWrite } from "../../src/tools/types";
import { EMPTY_USAGE, type ProviderErrorKind } from "../../src/providers/types";
import { runResult } from "../ui/helpers";
import { invalidOf } from "../kit/acp-schema";

const builtins = createBuiltinTools({
    expandOutput: () => undefined,
    shell: {} as ShellService,
    languages: { hasServers: () => true } as LanguageService,
});
const toolDisplays = toolDisplaysOf({ list: () => builtins });

function repo(): string {
    return realpathSync(mkdtempSync(join(tmpdir(), "north-acp-updates-")));
}

function translator(repoRoot: string, cost: number | null = 0.0123) {
    return createUpdateTranslator({ repoRoot, toolDisplays, costUsd: () => cost });
}

/** Every update the events become, checked against the schema. */
function run(t: ReturnType<typeof translator>, events: HostEvent[]): SessionUpdate[] {
    const updates = events.flatMap((event) => t.translate(event));
    expect(invalidOf("SessionUpdate", updates)).toEqual([]);
    return updates;
}

const texts = (content: ToolCallContent[] | null | undefined): string[] =>
    (content ?? []).flatMap((c) =>
        c.type === "content" && c.content.type === "text" ? [c.content.text] : []
    );

async function prepared(
    repoRoot: string,
    tool: "replace" | "create",
    input: Record<string, unknown>
): Promise<PreparedWrite> {
    const definition =
        tool === "replace" ? createEditReplaceExactTool() : createEditCreateFileTool();
    const result = await definition.execute(input as never, {
        repoRoot,
        signal: new AbortController().signal,
    });
    if (!result.ok || !isPreparedWrite(result.data)) throw new Error(JSON.stringify(result));
    return result.data;
}

function writeRequest(
    id: string,
    toolName: string,
    input: unknown,
    write: PreparedWrite
): ApprovalRequest {
    return {
        id,
        kind: "write",
        toolName,
        toolCallId: `call-${id}`,
        input,
        summary: write.summary,
        diffs: write.diffs,
    };
}

describe("streamed text", () => {
    it("the model's text and thinking are message and thought chunks, in order", () => {
        const updates = run(translator("/r"), [
            { type: "thinking_delta", text: "Let me look" },
            { type: "text_delta", text: "Hello" },
            { type: "text_delta", text: " there" },
        ]);
        expect(updates).toEqual([
            {
                sessionUpdate: "agent_thought_chunk",
                content: { type: "text", text: "Let me look" },
            },
            { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello" } },
            { sessionUpdate: "agent_message_chunk", content: { type: "text", text: " there" } },
        ]);
    });

    it("a retry, a warning and a finished summary are short lines the user reads", () => {
        const updates = run(translator("/r"), [
            {
                type: "retry",
                attempt: 1,
                maxAttempts: 3,
                delayMs: 2000,
                error: { kind: "overloaded", message: "Overloaded", retryable: true } as never,
            },
            { type: "warning", message: "NORTH_FILE a.ts: bad. Nothing was written." },
            { type: "summary", trigger: "auto", ok: true, removedMessages: 12, message: "" },
            { type: "state_changed" },
        ]);
        const lines = updates.map((u) =>
            u.sessionUpdate === "agent_message_chunk" && u.content.type === "text"
                ? u.content.text.trim()
                : ""
        );
        expect(lines).toEqual([
            "↻ Overloaded — retrying in 2.0s (1/3)",
            "⚠ NORTH_FILE a.ts: bad. Nothing was written.",
            "Summarised the conversation (12 earlier messages replaced).",
        ]);
    });
});

describe("tool calls", () => {
    it("a read shows its title with the path, kind read, and the file and line to follow", () => {
        const t = translator("/r");
        const input = { path: "src/a.ts", range: { start: 40, end: 60 } };
        const updates = run(t, [
            { type: "tool_call_start", id: "c1", name: "read_file" },
            { type: "tool_call", id: "c1", name: "read_file", input },
            {
                type: "tool_result",
                id: "c1",
                name: "read_file",
                ok: true,
                content: "40: const x = 1;",
                durationMs: 3,
            },
        ]);
        expect(updates[0]).toMatchObject({
            sessionUpdate: "tool_call",
            toolCallId: "c1",
            kind: "read",
            status: "pending",
            title: "read_file",
        });
        expect(updates[1]).toMatchObject({
            sessionUpdate: "tool_call_update",
            toolCallId: "c1",
            title: "Reading src/a.ts",
            kind: "read",
            status: "in_progress",
            rawInput: input,
            locations: [{ path: "/r/src/a.ts", line: 40 }],
        });
        expect(updates[2]).toMatchObject({
            sessionUpdate: "tool_call_update",
            toolCallId: "c1",
            status: "completed",
        });
        expect(texts((updates[2] as { content?: ToolCallContent[] }).content).join("")).toContain(
            "40: const x = 1;"
        );
    });

    it("a call whose input arrives whole is one tool_call, running", () => {
        const updates = run(translator("/r"), [
            { type: "tool_call", id: "c2", name: "search_text", input: { pattern: "TODO" } },
        ]);
        expect(updates).toHaveLength(1);
        expect(updates[0]).toMatchObject({
            sessionUpdate: "tool_call",
            kind: "search",
            status: "in_progress",
        });
    });

    it("a failed call is failed, with the error the model read", () => {
        const updates = run(translator("/r"), [
            { type: "tool_call", id: "c3", name: "read_file", input: { path: "nope.ts" } },
            {
                type: "tool_result",
                id: "c3",
                name: "read_file",
                ok: false,
                content: "nope.ts does not exist",
                error: { code: "not_found", message: "nope.ts does not exist" },
                durationMs: 1,
            },
        ]);
        expect(updates[1]).toMatchObject({ status: "failed" });
        expect(texts((updates[1] as { content?: ToolCallContent[] }).content).join("")).toContain(
            "nope.ts does not exist"
        );
    });

    it("a command shows its command line and output as it runs, the tail when long, and fails on a non-zero exit", () => {
        const t = translator("/r");
        const call: EngineEvent = {
            type: "tool_call",
            id: "s1",
            name: "shell_run",
            input: { command: "npm test" },
        };
        const first = run(t, [
            call,
            { type: "tool_output", id: "s1", name: "shell_run", text: "PASS a.test.ts\n" },
        ]);
        expect(first[0]).toMatchObject({
            sessionUpdate: "tool_call",
            kind: "execute",
            title: "Running npm test",
        });
        expect(texts((first[1] as { content?: ToolCallContent[] }).content)[0]).toContain(
            "$ npm test\nPASS a.test.ts"
        );
        const flood = `${"x".repeat(40_000)}\nLAST LINE\n`;
        const long = run(t, [{ type: "tool_output", id: "s1", name: "shell_run", text: flood }]);
        const shown = texts((long[0] as { content?: ToolCallContent[] }).content)[0]!;
        expect(shown).toContain("LAST LINE");
        expect(shown).toMatch(/… \(\d+ earlier characters not shown\)/);
        expect(shown.length).toBeLessThan(20_000);
        const done = run(t, [
            {
                type: "tool_result",
                id: "s1",
                name: "shell_run",
                ok: true,
                content: "{}",
                details: {
                    exitCode: 1,
                    output: "FAIL b.test.ts\n",
                    timedOut: false,
                    cancelled: false,
                    durationMs: 1500,
                },
                durationMs: 1500,
            },
        ]);
        expect(done[0]).toMatchObject({ status: "failed" });
        const result = texts((done[0] as { content?: ToolCallContent[] }).content)[0]!;
        expect(result).toContain("$ npm test");
        expect(result).toContain("exit 1");
        expect(result).toContain("FAIL b.test.ts");
    });

    it("every built-in tool has a kind, so a new tool cannot be forgotten", () => {
        const missing = builtins
            .map((tool) => tool.name)
            .filter((name) => !Object.hasOwn(TOOL_KINDS, name));
        expect(missing).toEqual([]);
        expect(builtins.length).toBeGreaterThan(25);
        expect(TOOL_KINDS.edit_apply_batch).toBe("edit");
        expect(TOOL_KINDS.shell_run).toBe("execute");
        expect(TOOL_KINDS.web_fetch).toBe("fetch");
    });

    it("calls still running when the prompt ends (cancelled) end as failed, not spinning", () => {
        const t = translator("/r");
        const updates = run(t, [
            { type: "run_start", sessionId: "s", model: "m", mode: "agent", tools: [], cwd: "/r" },
            { type: "tool_call", id: "s9", name: "shell_run", input: { command: "sleep 100" } },
            { type: "run_end", result: runResult("cancelled") },
        ]);
        expect(updates.at(-1)).toEqual({
            sessionUpdate: "tool_call_update",
            toolCallId: "s9",
            status: "failed",
        });
        expect(run(t, [{ type: "run_end", result: runResult("success") }])).toEqual([]);
    });

    it("an MCP call's permission shows what it would be called with", () => {
        const call = translator("/r").toolCallOf({
            id: "q1",
            kind: "shell",
            toolName: "mcp__github__create_issue",
            toolCallId: "m2",
            input: { title: "Crash on start" },
            summary: "github: create_issue",
        });
        expect(invalidOf("ToolCallUpdate", [call])).toEqual([]);
        expect(call).toMatchObject({
            toolCallId: "m2",
            kind: "other",
            status: "pending",
            title: "github: create_issue",
        });
        const shown = texts(call.content).join("");
        expect(shown).toContain("github: create_issue");
        expect(shown).toContain('"title": "Crash on start"');
    });

    it("a command's permission shows the command line, where it runs and the sandbox", () => {
        const call = translator("/r").toolCallOf({
            id: "q2",
            kind: "shell",
            toolName: "shell_run",
            toolCallId: "s3",
            input: { command: "rm -rf dist" },
            summary: "rm -rf dist",
            command: "rm -rf dist",
            cwd: "/r",
            sandbox: "writes to the project only",
        });
        expect(call).toMatchObject({ kind: "execute", title: "Running rm -rf dist" });
        const shown = texts(call.content).join("");
        expect(shown).toContain("$ rm -rf dist");
        expect(shown).toContain("in /r");
        expect(shown).toContain("Runs in the sandbox: writes to the project only");
    });

    it("a proposed plan's permission shows the plan on a mode switch call", () => {
        const call = translator("/r").toolCallOf({
            id: "q3",
            kind: "plan",
            toolName: "propose_plan",
            toolCallId: "p1",
            input: { plan: "1. Read\n2. Fix" },
            summary: "plan",
            plan: "1. Read\n2. Fix",
        });
        expect(invalidOf("ToolCallUpdate", [call])).toEqual([]);
        expect(call).toMatchObject({
            toolCallId: "p1",
            kind: "switch_mode",
            title: "Proposing a plan",
        });
        expect(texts(call.content)).toEqual(["1. Read\n2. Fix"]);
    });

    it("a subagent's reviewed call appears on its own and ends with the answer (its result stays in the task)", () => {
        const request: ApprovalRequest = {
            id: "q4",
            kind: "shell",
            toolName: "shell_run",
            toolCallId: "child-1",
            input: { command: "npm test" },
            summary: 'task "check": npm test',
            command: "npm test",
        };
        const updates = run(translator("/r"), [
            {
                type: "tool_call",
                id: "task-1",
                name: "task",
                input: { description: "check", prompt: "run the tests" },
            },
            { type: "approval_request", request },
            { type: "approval_decision", requestId: "q4", decision: { outcome: "approve" } },
        ]);
        expect(updates.slice(1)).toMatchObject([
            {
                sessionUpdate: "tool_call",
                toolCallId: "child-1",
                kind: "execute",
                status: "pending",
                title: "Running npm test",
            },
            { sessionUpdate: "tool_call_update", toolCallId: "child-1", status: "completed" },
        ]);
    });

    it("a result for a call never announced introduces it, finished", () => {
        const updates = run(translator("/r"), [
            {
                type: "tool_result",
                id: "x1",
                name: "find_files",
                ok: true,
                content: "a.ts",
                durationMs: 1,
            },
        ]);
        expect(updates).toMatchObject([
            { sessionUpdate: "tool_call", toolCallId: "x1", kind: "search", status: "completed" },
        ]);
    });

    it("an MCP tool is kind other and reads as its name", () => {
        const updates = run(translator("/r"), [
            { type: "tool_call", id: "m1", name: "mcp__github__list_issues", input: { repo: "x" } },
        ]);
        expect(updates[0]).toMatchObject({ kind: "other", title: "mcp__github__list_issues" });
    });
});

describe("edits", () => {
    it("a reviewed edit is a native diff of the whole file (absolute path, old and new text), kept once applied", async () => {
        const root = repo();
        writeFileSync(join(root, "a.ts"), "const a = 1;\nconst b = 2;\n");
        const input = { path: "a.ts", old_text: "const b = 2;", new_text: "const b = 3;" };
        const write = await prepared(root, "replace", input);
        const request = writeRequest("r1", "edit_replace_exact", input, write);
        const t = translator(root);
        const toolCall = t.toolCallOf(request);
        expect(invalidOf("ToolCallUpdate", [toolCall])).toEqual([]);
        expect(toolCall).toMatchObject({
            toolCallId: "call-r1",
            title: "Editing a.ts",
            kind: "edit",
            status: "pending",
            locations: [{ path: join(root, "a.ts"), line: 2 }],
            content: [
                {
                    type: "diff",
                    path: join(root, "a.ts"),
                    oldText: "const a = 1;\nconst b = 2;\n",
                    newText: "const a = 1;\nconst b = 3;\n",
                },
            ],
        });
        const updates = run(t, [
            { type: "tool_call", id: "call-r1", name: "edit_replace_exact", input },
            { type: "approval_request", request },
            { type: "approval_decision", requestId: "r1", decision: { outcome: "approve" } },
            {
                type: "tool_result",
                id: "call-r1",
                name: "edit_replace_exact",
                ok: true,
                content: "applied",
                details: {
                    applied: true,
                    files: [{ path: "a.ts", linesAdded: 1, linesRemoved: 1 }],
                },
                durationMs: 2,
            },
            {
                type: "diagnostics",
                toolCallId: "call-r1",
                introduced: [
                    {
                        path: "a.ts",
                        line: 2,
                        column: 7,
                        endLine: 2,
                        endColumn: 8,
                        severity: "error",
                        message: "Type 'number' is not assignable to type 'string'.",
                        source: "ts",
                        code: "2322",
                        server: "typescript",
                    },
                ],
                more: 0,
                fixed: 0,
                pending: false,
                baselineKnown: true,
            },
        ]);
        expect(updates.map((u) => [u.sessionUpdate, (u as { status?: string }).status])).toEqual([
            ["tool_call", "in_progress"],
            ["tool_call_update", "pending"],
            ["tool_call_update", "in_progress"],
            ["tool_call_update", "completed"],
            ["tool_call_update", undefined],
        ]);
        // Applied: the diff stays (no content replaces it); the title gains the line counts.
        expect(updates[3]).not.toHaveProperty("content");
        expect((updates[3] as { title?: string }).title).toMatch(/^Editing a\.ts.*1/);
        const diagnostics = (updates[4] as { content: ToolCallContent[] }).content;
        expect(diagnostics[0]).toMatchObject({ type: "diff", path: join(root, "a.ts") });
        expect(texts(diagnostics).join("")).toContain(
            "a.ts:2:7 error: Type 'number' is not assignable to type 'string'. (ts 2322)"
        );
    });

    it("an edit applied without a review (accept-edits) says which files changed and where", () => {
        const updates = run(translator("/r"), [
            {
                type: "tool_call",
                id: "e1",
                name: "edit_insert_at_line",
                input: { path: "src/b.ts", line: 7, content: "x" },
            },
            {
                type: "tool_result",
                id: "e1",
                name: "edit_insert_at_line",
                ok: true,
                content: '{"applied":true}',
                details: {
                    applied: true,
                    files: [{ path: "src/b.ts", linesAdded: 1, linesRemoved: 0 }],
                },
                durationMs: 1,
            },
        ]);
        expect(updates[0]).toMatchObject({
            kind: "edit",
            locations: [{ path: "/r/src/b.ts", line: 7 }],
        });
        expect(updates[1]).toMatchObject({
            status: "completed",
            locations: [{ path: "/r/src/b.ts" }],
        });
        expect(texts((updates[1] as { content?: ToolCallContent[] }).content)).toEqual([
            "src/b.ts +1 −0",
        ]);
    });

    it("a new file's diff has no old text", async () => {
        const root = repo();
        const input = { path: "src/new.ts", content: "export {};\n" };
        const write = await prepared(root, "create", input);
        const call = translator(root).toolCallOf(
            writeRequest("r2", "edit_create_file", input, write)
        );
        expect(call.content).toEqual([
            {
                type: "diff",
                path: join(root, "src/new.ts"),
                oldText: null,
                newText: "export {};\n",
            },
        ]);
    });

    it("a file over 1 MiB is shown as its unified diff in text, not whole", async () => {
        const root = repo();
        const big = `${"// filler line\n".repeat(80_000)}const z = 0;\n`;
        writeFileSync(join(root, "big.ts"), big);
        const input = { path: "big.ts", old_text: "const z = 0;", new_text: "const z = 1;" };
        const write = await prepared(root, "replace", input);
        expect(write.diffs[0]?.oldText).toBeUndefined();
        const call = translator(root).toolCallOf(
            writeRequest("r3", "edit_replace_exact", input, write)
        );
        expect(call.content?.[0]?.type).toBe("content");
        const text = texts(call.content).join("");
        expect(text).toContain("-const z = 0;");
        expect(text).toContain("+const z = 1;");
    });

    it("a NORTH_FILE block written to disk is an edit call at its file, settled once its turn is over", async () => {
        const root = repo();
        const t = translator(root);
        const updates = run(t, [
            { type: "run_start", sessionId: "s", model: "m", mode: "agent", tools: [], cwd: root },
            { type: "turn_start", turn: 1 },
            { type: "file_write", path: "docs/guide.md", linesWritten: 0, status: "writing" },
            { type: "file_write", path: "docs/guide.md", linesWritten: 12, status: "written" },
            { type: "turn_start", turn: 2 },
        ]);
        expect(updates).toEqual([
            {
                sessionUpdate: "tool_call",
                toolCallId: "nf-1-0.1",
                title: "Writing docs/guide.md (12 lines)",
                kind: "edit",
                status: "pending",
                rawInput: { path: "docs/guide.md" },
                locations: [{ path: join(root, "docs/guide.md") }],
            },
            { sessionUpdate: "tool_call_update", toolCallId: "nf-1-0.1", status: "completed" },
        ]);
        // The next prompt's first block has the same engine id, not the same editor id.
        const next = run(t, [
            { type: "run_start", sessionId: "s", model: "m", mode: "agent", tools: [], cwd: root },
            { type: "turn_start", turn: 1 },
            { type: "file_write", path: "b.md", linesWritten: 1, status: "written" },
        ]);
        expect(next[0]).toMatchObject({ toolCallId: "nf-1-0.2", title: "Writing b.md (1 line)" });
    });

    it("a refused NORTH_FILE block fails", () => {
        const t = translator("/r");
        const request: ApprovalRequest = {
            id: "q",
            kind: "write",
            toolName: "north_file",
            toolCallId: "nf-1-0",
            input: { path: "a.md" },
            summary: "Creating a.md",
            diffs: [],
        };
        const updates = run(t, [
            { type: "run_start", sessionId: "s", model: "m", mode: "agent", tools: [], cwd: "/r" },
            { type: "turn_start", turn: 1 },
            { type: "file_write", path: "a.md", linesWritten: 3, status: "written" },
            { type: "approval_request", request },
            {
                type: "approval_decision",
                requestId: "q",
                decision: { outcome: "deny", reason: "no" },
            },
        ]);
        expect(
            updates.map((u) => [
                u.sessionUpdate,
                (u as { toolCallId?: string }).toolCallId,
                (u as { status?: string }).status,
            ])
        ).toEqual([
            ["tool_call", "nf-1-0.1", "pending"],
            ["tool_call_update", "nf-1-0.1", "pending"],
            ["tool_call_update", "nf-1-0.1", "failed"],
        ]);
    });
});

describe("applied writes (write_applied)", () => {
    const applied = (id: string, name: string, write: PreparedWrite): EngineEvent => ({
        type: "write_applied",
        toolCallId: id,
        toolName: name,
        diffs: write.diffs,
    });
    const resultOf = (id: string): EngineEvent => ({
        type: "tool_result",
        id,
        name: "edit_replace_exact",
        ok: true,
        content: "applied",
        details: { applied: true, files: [{ path: "a.ts", linesAdded: 1, linesRemoved: 1 }] },
        durationMs: 1,
    });

    it("an edit applied without a review (accept-edits, a rule, a hook) shows its native diff, kept by its result", async () => {
        const root = repo();
        writeFileSync(join(root, "a.ts"), "const a = 1;\nconst b = 2;\n");
        const input = { path: "a.ts", old_text: "const b = 2;", new_text: "const b = 3;" };
        const write = await prepared(root, "replace", input);
        const updates = run(translator(root), [
            { type: "tool_call", id: "u1", name: "edit_replace_exact", input },
            applied("u1", "edit_replace_exact", write),
            resultOf("u1"),
        ]);
        expect(updates[1]).toEqual({
            sessionUpdate: "tool_call_update",
            toolCallId: "u1",
            content: [
                {
                    type: "diff",
                    path: join(root, "a.ts"),
                    oldText: "const a = 1;\nconst b = 2;\n",
                    newText: "const a = 1;\nconst b = 3;\n",
                },
            ],
            locations: [{ path: join(root, "a.ts"), line: 2 }],
        });
        // The result completes the call and leaves the diff where it is.
        expect(updates[2]).toMatchObject({ toolCallId: "u1", status: "completed" });
        expect(updates[2]).not.toHaveProperty("content");
    });

    it("a reviewed edit that lands adds no second copy of the diff the review showed", async () => {
        const root = repo();
        writeFileSync(join(root, "a.ts"), "const a = 1;\n");
        const input = { path: "a.ts", old_text: "const a = 1;", new_text: "const a = 2;" };
        const write = await prepared(root, "replace", input);
        const request = writeRequest("r1", "edit_replace_exact", input, write);
        const updates = run(translator(root), [
            { type: "tool_call", id: "call-r1", name: "edit_replace_exact", input },
            { type: "approval_request", request },
            { type: "approval_decision", requestId: "r1", decision: { outcome: "approve" } },
            applied("call-r1", "edit_replace_exact", write),
            resultOf("call-r1"),
        ]);
        expect(updates.map((u) => (u as { status?: string }).status)).toEqual([
            "in_progress",
            "pending",
            "in_progress",
            "completed",
        ]);
    });

    it("a subagent's unreviewed edit, which the editor never saw start, arrives finished with its diff", async () => {
        const root = repo();
        const input = { path: "new.ts", content: "export {};\n" };
        const write = await prepared(root, "create", input);
        const updates = run(translator(root), [applied("child-1", "edit_create_file", write)]);
        expect(updates).toEqual([
            {
                sessionUpdate: "tool_call",
                toolCallId: "child-1",
                title: "Creating new.ts",
                kind: "edit",
                status: "completed",
                content: [
                    {
                        type: "diff",
                        path: join(root, "new.ts"),
                        oldText: null,
                        newText: "export {};\n",
                    },
                ],
                locations: [{ path: join(root, "new.ts"), line: 1 }],
            },
        ]);
    });

    it("a NORTH_FILE block that lands unreviewed shows its diff and ends there", async () => {
        const root = repo();
        const write = await prepared(root, "create", { path: "b.md", content: "# B\n" });
        const t = translator(root);
        const updates = run(t, [
            { type: "run_start", sessionId: "s", model: "m", mode: "agent", tools: [], cwd: root },
            { type: "turn_start", turn: 1 },
            { type: "file_write", path: "b.md", linesWritten: 1, status: "written" },
            applied("nf-1-0", "north_file", write),
            { type: "turn_start", turn: 2 },
        ]);
        expect(updates.slice(1)).toEqual([
            {
                sessionUpdate: "tool_call_update",
                toolCallId: "nf-1-0.1",
                content: [
                    { type: "diff", path: join(root, "b.md"), oldText: null, newText: "# B\n" },
                ],
                locations: [{ path: join(root, "b.md"), line: 1 }],
                status: "completed",
            },
        ]);
    });
});

describe("plans, modes and usage", () => {
    it("the to-do list is a plan with every entry's status", () => {
        const updates = run(translator("/r"), [
            {
                type: "todo",
                items: [
                    { content: "Read the code", status: "done" },
                    { content: "Fix the bug", status: "in_progress" },
                    { content: "Run the tests", status: "pending" },
                ],
            },
        ]);
        expect(updates).toEqual([
            {
                sessionUpdate: "plan",
                entries: [
                    { content: "Read the code", priority: "medium", status: "completed" },
                    { content: "Fix the bug", priority: "medium", status: "in_progress" },
                    { content: "Run the tests", priority: "medium", status: "pending" },
                ],
            },
        ]);
    });

    it("a mode switch, from the engine or from set_mode, is the current mode", () => {
        const updates = run(translator("/r"), [
            { type: "mode_change", mode: "accept-edits" },
            { type: "mode_set", mode: "plan" },
        ]);
        expect(updates).toEqual([
            { sessionUpdate: "current_mode_update", currentModeId: "accept-edits" },
            { sessionUpdate: "current_mode_update", currentModeId: "plan" },
        ]);
    });

    it("the context figure is usage with the session's cost when known", () => {
        const event: EngineEvent = {
            type: "context",
            usedTokens: 12_000,
            limitTokens: 200_000,
            usage: 0.06,
        };
        expect(run(translator("/r", 0.42), [event])).toEqual([
            {
                sessionUpdate: "usage_update",
                used: 12_000,
                size: 200_000,
                cost: { amount: 0.42, currency: "USD" },
            },
        ]);
        expect(run(translator("/r", null), [event])).toEqual([
            { sessionUpdate: "usage_update", used: 12_000, size: 200_000 },
        ]);
    });
});

describe("how a turn ends", () => {
    const turnEnd = (
        stopReason: "end_turn" | "max_tokens" | "refusal" | "tool_use"
    ): EngineEvent => ({
        type: "turn_end",
        turn: 1,
        stopReason,
        usage: { ...EMPTY_USAGE },
        costUsd: 0,
    });

    const RUNAWAY =
        "the response was cut off: its text, thinking and tool arguments passed North's limit of 512,000 characters (a runaway or endless answer); ask for smaller steps";
    const failedWith = (errorKind: ProviderErrorKind, error: string): RunResult => ({
        ...runResult("error_during_execution", error),
        errorKind,
    });
    it.each<[string, RunResult, TurnEnd]>([
        ["a finished answer", runResult("success"), { stopReason: "end_turn" }],
        [
            "a cancelled run",
            runResult("cancelled", "cancelled by the user"),
            { stopReason: "cancelled" },
        ],
        [
            "the turn limit",
            runResult("error_max_turns", "stopped after 3 model turns (--max-turns)"),
            {
                stopReason: "max_turn_requests",
                note: "⚠ stopped after 3 model turns (--max-turns)",
            },
        ],
        [
            "a runaway answer North cut for its length",
            failedWith("response_too_large", RUNAWAY),
            { stopReason: "max_tokens", note: `⚠ ${RUNAWAY}` },
        ],
        [
            "a refused API key",
            failedWith("auth", "Anthropic API authentication failed (401)"),
            { error: "Anthropic API authentication failed (401)" },
        ],
        [
            "retries exhausted",
            failedWith("overloaded", "Anthropic API overloaded (529)"),
            { error: "Anthropic API overloaded (529)" },
        ],
        [
            "a conversation too large for the window",
            failedWith("context_length", "the conversation is too large for the model"),
            { error: "the conversation is too large for the model" },
        ],
        [
            "a hook that blocked the prompt",
            runResult(
                "error_during_execution",
                "the prompt was blocked by a UserPromptSubmit hook: no"
            ),
            { error: "the prompt was blocked by a UserPromptSubmit hook: no" },
        ],
        [
            "the budget",
            runResult("error_max_budget_usd", "stopped: this conversation has cost $1.0000"),
            { error: "stopped: this conversation has cost $1.0000" },
        ],
    ])("%s ends the turn the way v1 means", (_what, result, end) => {
        expect(translator("/r").turnEnd(result)).toEqual(end);
    });

    it("the last model turn's max_tokens or refusal is the stop reason; a new prompt starts afresh", () => {
        const t = translator("/r");
        run(t, [turnEnd("tool_use"), turnEnd("max_tokens")]);
        expect(t.turnEnd(runResult("success"))).toEqual({ stopReason: "max_tokens" });
        run(t, [
            { type: "run_start", sessionId: "s", model: "m", mode: "agent", tools: [], cwd: "/r" },
            turnEnd("refusal"),
        ]);
        expect(t.turnEnd(runResult("success"))).toEqual({ stopReason: "refusal" });
        run(t, [
            { type: "run_start", sessionId: "s", model: "m", mode: "agent", tools: [], cwd: "/r" },
            turnEnd("end_turn"),
        ]);
        expect(t.turnEnd(runResult("success"))).toEqual({ stopReason: "end_turn" });
    });
});
