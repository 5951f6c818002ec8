import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseHookSettings } from "../../src/agent/hooks/index";
import { AgentSession } from "../../src/agent/session";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import type { AnyToolDefinition } from "../../src/tools/types";
import { ScriptedProvider, type ScriptedReply, call, text } from "../kit/scripted-provider";
import { toolInput } from "../../src/tools/tool-input";
import { createShellRunTool } from "../../src/tools/shell-run";
import type { ShellService } from "../../src/tools/shell-service";

/** What the real shell_run says about its calls: the review's summary and "always" key, its hook names. */
const { approval, hookAliases } = createShellRunTool({ cwd: "/repo" } as ShellService);

const sonnet = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!;
const dirs: string[] = [];
afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(hooks: Record<string, unknown>, replies: ScriptedReply[]) {
    const repo = mkdtempSync(join(tmpdir(), "north-hooks-engine-"));
    dirs.push(repo);
    const provider = new ScriptedProvider(replies);
    const ran: string[] = [];
    const shell: AnyToolDefinition = {
        name: "shell_run",
        description: "run",
        input: toolInput((z) => z.object({ command: z.string() })),
        approvalPolicy: "shell",
        readOnly: false,
        approval,
        hookAliases,
        execute: async (input: { command: string }) => {
            ran.push(input.command);
            return { ok: true, data: { exitCode: 0 } };
        },
    };
    const asked: string[] = [];
    const session = new AgentSession({
        sessionId: "hook01",
        repoRoot: repo,
        model: sonnet,
        providerFor: async () => provider,
        tools: {
            list: () => [shell],
            schemas: () => [{ name: "shell_run", description: "", inputSchema: {} }],
            execute: async (_n, input, ctx) => shell.execute(input, ctx),
        },
        approver: async (request) => {
            asked.push(request.command ?? "");
            return { outcome: "approve" };
        },
        hookSettings: parseHookSettings({ hooks }, "test").settings,
    });
    return { session, provider, ran, asked };
}

const hook = (command: string, matcher = "") => [
    { matcher, hooks: [{ type: "command", command }] },
];

describe("hooks in the engine", () => {
    it("PreToolUse exit 2 blocks the call and its stderr reaches the model", async () => {
        const { session, provider, ran } = setup(
            { PreToolUse: hook("echo 'no rm here' >&2; exit 2", "Bash") },
            [
                { blocks: [call("t1", "shell_run", { command: "rm -rf /" })] },
                { blocks: [text("ok")] },
            ]
        );
        await session.run("clean", { mode: "agent" });
        expect(ran).toEqual([]);
        expect(JSON.stringify(provider.requests[1]!.messages.at(-1))).toContain("no rm here");
    });

    it("PreToolUse permissionDecision allow skips the approval prompt", async () => {
        const allow = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`;
        const { session, ran, asked } = setup({ PreToolUse: hook(allow) }, [
            { blocks: [call("t1", "shell_run", { command: "ls" })] },
            { blocks: [text("ok")] },
        ]);
        await session.run("list", { mode: "agent" });
        expect(ran).toEqual(["ls"]);
        expect(asked).toEqual([]);
    });

    it("UserPromptSubmit adds context; PostToolUse context reaches the model; a Stop block sends it back once", async () => {
        const { session, provider } = setup(
            {
                UserPromptSubmit: hook("echo 'Today is a test day.'"),
                PostToolUse: hook(
                    `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint passed"}}'`
                ),
                Stop: hook(
                    `cat | grep -q '"stop_hook_active":false' && { echo 'run the tests first' >&2; exit 2; } || exit 0`
                ),
            },
            [
                { blocks: [call("t1", "shell_run", { command: "true" })] },
                { blocks: [text("done")] },
                { blocks: [text("tests ran")] },
            ]
        );
        const result = await session.run("go", { mode: "agent" });
        expect(result.text).toBe("tests ran");
        expect(JSON.stringify(provider.requests[0]!.messages)).toContain("Today is a test day.");
        expect(JSON.stringify(provider.requests[1]!.messages.at(-1))).toContain("lint passed");
        expect(JSON.stringify(provider.requests[2]!.messages.at(-1))).toContain(
            "run the tests first"
        );
        expect(provider.requests).toHaveLength(3);
    });

    it("UserPromptSubmit exit 2 blocks the prompt before any model call", async () => {
        const { session, provider } = setup(
            { UserPromptSubmit: hook("echo 'secrets detected' >&2; exit 2") },
            []
        );
        const result = await session.run("my password is hunter2", { mode: "agent" });
        expect(result.isError).toBe(true);
        expect(result.error).toContain("secrets detected");
        expect(provider.requests).toHaveLength(0);
        expect(session.messages).toHaveLength(0);
    });
});
