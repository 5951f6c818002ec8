import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
    matchingHooks,
    parseHookSettings,
    runHooks,
    toolAliasesOf,
} from "../../src/agent/hooks/index";
import type { ApprovalRequest } from "../../src/agent/approvals";
import { executeToolCall } from "../../src/agent/tool-executor";
import { silentLogger } from "../../src/storage/logger";
import { createSkillTool } from "../../src/project/skills";
import { createBuiltinTools } from "../../src/tools/index";
import { createMcpManager, type McpManager } from "../../src/tools/mcp/manager";
import { createToolRegistry } from "../../src/tools/registry";
import type { LanguageService } from "../../src/tools/lsp/types";
import type { ShellService } from "../../src/tools/shell-service";
import type { AnyToolDefinition } from "../../src/tools/types";

const shell: ShellService = {
    run: async (command) => ({
        exitCode: 0,
        output: `ran ${command}`,
        timedOut: false,
        cancelled: false,
        truncated: false,
        droppedBytes: 0,
        durationMs: 1,
        cwd: ".",
    }),
    cwd: "/repo",
    dispose: () => undefined,
};
const builtins = (): AnyToolDefinition[] =>
    createBuiltinTools({
        expandOutput: () => undefined,
        shell,
        // Some language server found: the lsp tools are checked too.
        languages: { hasServers: () => true } as LanguageService,
    });

/** What a tool's approval policy requires of its definition; empty when nothing is missing. */
function policyGaps(tool: AnyToolDefinition): string[] {
    const gaps: string[] = [];
    if (typeof tool.display?.title !== "function") gaps.push("a display title");
    // Reading and stopping North's own background processes changes nothing the user did not approve.
    const ownsProcesses = tool.name === "process_read" || tool.name === "process_stop";
    if (!tool.readOnly && tool.approvalPolicy === "none" && !ownsProcesses)
        gaps.push("an approval policy");
    if (tool.approvalPolicy === "write") {
        if (!tool.hookAliases?.length) gaps.push("a hook alias (Edit/Write)");
        if (!tool.display?.resultSuffix) gaps.push("a result suffix (edit stats)");
    }
    if (tool.approvalPolicy === "shell" && typeof tool.approval !== "function") {
        gaps.push("an approval summary and remember key");
    }
    return gaps;
}

const FIXTURE = fileURLToPath(new URL("./mcp/fixtures/fake-server.mjs", import.meta.url));
const managers: McpManager[] = [];
afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.close()));
});

async function mcpTools(): Promise<AnyToolDefinition[]> {
    const manager = createMcpManager(
        [
            {
                name: "fake",
                scope: "project",
                source: "test",
                missingVars: [],
                transport: "stdio",
                command: process.execPath,
                args: [FIXTURE, "normal"],
                env: {},
            },
        ],
        { clientName: "north-test", version: "0.0.0" }
    );
    managers.push(manager);
    await manager.settled();
    return manager.tools() as AnyToolDefinition[];
}

describe("tool definitions carry what their policy needs", () => {
    it("every built-in and MCP tool has it", async () => {
        const tools = [...builtins(), ...(await mcpTools())];
        expect(tools.length).toBeGreaterThan(22);
        expect(tools.some((t) => t.approvalPolicy === "write")).toBe(true);
        expect(tools.filter((t) => t.approvalPolicy === "shell").length).toBeGreaterThan(1);
        const gaps = tools.flatMap((tool) => policyGaps(tool).map((gap) => `${tool.name}: ${gap}`));
        expect(gaps).toEqual([]);
    });

    it("the check names what a tool lacks", () => {
        const edit = builtins().find((t) => t.approvalPolicy === "write")!;
        const run = builtins().find((t) => t.approvalPolicy === "shell")!;
        const { hookAliases: _a, display: _d, ...bareEdit } = edit;
        const { approval: _p, ...bareRun } = run;
        expect(policyGaps(bareEdit as AnyToolDefinition)).toEqual([
            "a display title",
            "a hook alias (Edit/Write)",
            "a result suffix (edit stats)",
        ]);
        expect(policyGaps(bareRun as AnyToolDefinition)).toEqual([
            "an approval summary and remember key",
        ]);
    });
});

describe("Claude Code hook matchers reach tools through their definitions", () => {
    const settings = parseHookSettings(
        {
            hooks: {
                PreToolUse: [
                    { matcher: "Edit", hooks: [{ type: "command", command: "echo edit" }] },
                    { matcher: "Write", hooks: [{ type: "command", command: "echo write" }] },
                    { matcher: "Bash", hooks: [{ type: "command", command: "echo bash" }] },
                    { matcher: "WebFetch", hooks: [{ type: "command", command: "echo web" }] },
                ],
            },
        },
        "test"
    ).settings;
    const fired = (name: string, aliases = toolAliasesOf({ list: builtins })): string[] =>
        matchingHooks(settings, "PreToolUse", name, aliases).map((m) => m.hook.command);

    it("`Edit` or `Write` fires for every write tool, `Bash` for the shell tool, `WebFetch` for web_fetch, nothing for reads", () => {
        const tools = builtins();
        for (const tool of tools) {
            const commands = fired(tool.name);
            if (tool.approvalPolicy === "write") {
                expect(commands.length, tool.name).toBe(1);
                expect(["echo edit", "echo write"], tool.name).toContain(commands[0]);
            } else if (tool.name === "web_fetch") {
                expect(commands, tool.name).toEqual(["echo web"]);
            } else if (tool.approvalPolicy === "shell") {
                expect(commands, tool.name).toEqual(["echo bash"]);
            } else {
                expect(commands, tool.name).toEqual([]);
            }
        }
        // Claude Code's split: Write creates a file, Edit changes one.
        const creators = tools.filter((t) => fired(t.name)[0] === "echo write");
        expect(creators.map((t) => t.display?.title({ path: "a.ts" }))).toEqual(["Creating a.ts"]);
    });

    it("a renamed tool keeps its matcher, and the skill tool answers to `Skill`", () => {
        const edit = builtins().find((t) => t.hookAliases?.includes("Edit"))!;
        const renamed = { ...edit, name: "edit_text_somehow" };
        const skill = createSkillTool([]) as unknown as AnyToolDefinition;
        const aliases = toolAliasesOf({ list: () => [renamed, skill] });
        expect(fired("edit_text_somehow", aliases)).toEqual(["echo edit"]);
        expect(fired("edit_text_somehow")).toEqual([]);
        expect(matchingHooks(settings, "PreToolUse", "skill", aliases)).toEqual([]);
        const skillHook = parseHookSettings(
            {
                hooks: {
                    PreToolUse: [{ matcher: "Skill", hooks: [{ type: "command", command: "x" }] }],
                },
            },
            "test"
        ).settings;
        expect(matchingHooks(skillHook, "PreToolUse", "skill", aliases)).toHaveLength(1);
    });

    it("a PreToolUse hook matching `Edit` blocks an edit tool's call", async () => {
        const edit = builtins().find((t) => t.hookAliases?.includes("Edit"))!;
        const blocking = parseHookSettings(
            {
                hooks: {
                    PreToolUse: [
                        {
                            matcher: "Edit",
                            hooks: [{ type: "command", command: "echo 'no edits' >&2; exit 2" }],
                        },
                    ],
                },
            },
            "test"
        ).settings;
        const outcome = await runHooks(
            blocking,
            "PreToolUse",
            { session_id: "s", tool_name: edit.name, tool_input: {}, tool_use_id: "t1" },
            { cwd: process.cwd(), toolAliases: toolAliasesOf({ list: builtins }) }
        );
        expect(outcome.block?.reason).toBe("no edits");
    });
});

describe("the shell review reads the tool's approval", () => {
    async function review(tool: AnyToolDefinition, input: Record<string, unknown>) {
        const requests: ApprovalRequest[] = [];
        const allowed: string[] = [];
        const registry = createToolRegistry([tool]);
        const result = await executeToolCall(
            {
                type: "tool_call",
                id: "c1",
                name: tool.name,
                input,
                rawInput: JSON.stringify(input),
            },
            new Set([tool.name]),
            new AbortController().signal,
            {
                tools: registry,
                approver: async (request) => {
                    requests.push(request);
                    return { outcome: "approve", remember: "exact" };
                },
                settings: {
                    isShellAutoApproved: () => false,
                    isCommandAllowed: (key) => allowed.includes(key),
                    allowCommand: (key) => void allowed.push(key),
                    approveAllCommandsForSession: () => undefined,
                    isEditsAutoAccepted: () => false,
                },
                repoRoot: process.cwd(),
                logger: silentLogger,
                emit: () => undefined,
            }
        );
        return { result, requests, allowed };
    }

    it("shell_run shows and remembers the command", async () => {
        const run = builtins().find((t) => t.approvalPolicy === "shell")!;
        const { result, requests, allowed } = await review(run, { command: "npm test" });
        expect(result.ok).toBe(true);
        expect(requests[0]).toMatchObject({ summary: "npm test", command: "npm test" });
        expect(allowed).toEqual(["npm test"]);
    });

    it("an MCP tool shows its arguments and remembers its name, without a command line", async () => {
        const echo = (await mcpTools()).find((t) => t.name === "mcp__fake__echo")!;
        const { result, requests, allowed } = await review(echo, { text: "hi" });
        expect(result.ok).toBe(true);
        expect(requests[0]?.summary).toBe('mcp__fake__echo {"text":"hi"}');
        expect(requests[0]?.command).toBeUndefined();
        expect(allowed).toEqual(["mcp__fake__echo"]);
    });
});
