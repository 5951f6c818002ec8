/**
 * The accept-edits mode: edits land without review, everything else is as in
 * agent (commands asked, ask rules and protected configuration reviewed); an
 * edit review's "accept edits for the rest of this session" switches the run
 * to it and says so with a `mode_change` event, saving nothing.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
    type ApprovalDecision,
    type ApprovalRequest,
    type Approver,
    createNoStandingApprovals,
} from "../../src/agent/approvals";
import type { EngineEvent } from "../../src/agent/events";
import { AgentSession, type ToolRunner } from "../../src/agent/session";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import { PermissionRules } from "../../src/tools/permissions/rules";
import { inputSchema, toolInput } from "../../src/tools/tool-input";
import type { AnyToolDefinition, PreparedWrite } from "../../src/tools/types";
import { ScriptedProvider, type ScriptedReply, call, text } from "../kit/scripted-provider";

const sonnet = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!;

let repo: string;
beforeEach(() => {
    repo = realpathSync(mkdtempSync(join(tmpdir(), "north-accept-edits-")));
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

/** A write tool whose prepared change records whether it landed. */
function editTool(applied: string[]): AnyToolDefinition {
    return {
        name: "edit_x",
        description: "edit",
        input: toolInput((z) => z.object({ path: z.string() })),
        approvalPolicy: "write",
        readOnly: false,
        hookAliases: ["Edit"],
        execute: async (input: { path: string }) => ({
            ok: true,
            data: {
                kind: "prepared_write",
                summary: `Editing ${input.path}`,
                diffs: [
                    {
                        path: input.path,
                        diff: "@@",
                        linesAdded: 1,
                        linesRemoved: 0,
                        isNewFile: true,
                    },
                ],
                apply: async () => {
                    applied.push(input.path);
                    return { ok: true, data: { applied: true } };
                },
            } satisfies PreparedWrite,
        }),
    };
}

const shellTool: AnyToolDefinition = {
    name: "shell_run",
    description: "run",
    input: toolInput((z) => z.object({ command: z.string() })),
    approvalPolicy: "shell",
    readOnly: false,
    approval: (input) => {
        const { command } = input as { command: string };
        return { summary: command, rememberKey: command, command };
    },
    execute: async () => ({ ok: true, data: { ran: true } }),
};

function runner(tools: AnyToolDefinition[]): ToolRunner {
    return {
        list: () => tools,
        schemas: () => tools.map((t) => ({ name: t.name, description: "", inputSchema: {} })),
        async execute(name, rawInput, ctx) {
            const found = tools.find((t) => t.name === name)!;
            return found.execute(inputSchema(found.input).parse(rawInput), ctx);
        },
    };
}

function setup(
    replies: ScriptedReply[],
    answer: (request: ApprovalRequest) => ApprovalDecision,
    rules?: { ask?: string[] }
) {
    const applied: string[] = [];
    const asked: string[] = [];
    const approver: Approver = async (request) => {
        asked.push(`${request.kind} ${request.command ?? request.diffs?.[0]?.path}`);
        return answer(request);
    };
    const permissionRules = new PermissionRules(
        { projectRoot: repo, home: "/nonexistent" },
        new Set(["Edit", "Bash"])
    );
    if (rules) permissionRules.addSource({ source: "settings.json", permissions: rules });
    const provider = new ScriptedProvider([...replies, { blocks: [text("done")] }]);
    const session = new AgentSession({
        sessionId: "s1",
        repoRoot: repo,
        model: sonnet,
        providerFor: async () => provider,
        tools: runner([editTool(applied), shellTool]),
        approver,
        approvalSettings: { ...createNoStandingApprovals(), permissionRules },
        sleep: async () => {},
        random: () => 0.5,
    });
    const modes: string[] = [];
    session.subscribe((e: EngineEvent) => {
        if (e.type === "mode_change") modes.push(e.mode);
    });
    return { session, applied, asked, modes };
}

const edit = (id: string, path: string) => ({ blocks: [call(id, "edit_x", { path })] });
const run = (id: string, command: string) => ({ blocks: [call(id, "shell_run", { command })] });

describe("accept-edits mode", () => {
    it("applies edits unreviewed; commands, ask rules and protected configuration are still asked", async () => {
        const { session, applied, asked } = setup(
            [
                edit("t1", "src/a.ts"),
                run("t2", "npm test"),
                edit("t3", "docs/b.md"),
                edit("t4", ".north/settings.json"),
            ],
            () => ({ outcome: "approve" }),
            { ask: ["Edit(./docs/**)"] }
        );
        await session.run("go", { mode: "accept-edits" });
        expect(asked).toEqual(["shell npm test", "write docs/b.md", "write .north/settings.json"]);
        expect(applied).toEqual(["src/a.ts", "docs/b.md", ".north/settings.json"]);
    });

    it("in agent mode every edit is reviewed", async () => {
        const { session, asked } = setup([edit("t1", "src/a.ts"), edit("t2", "src/b.ts")], () => ({
            outcome: "approve",
        }));
        await session.run("go", { mode: "agent" });
        expect(asked).toEqual(["write src/a.ts", "write src/b.ts"]);
    });
});

describe("an edit review's 'accept edits for the rest of this session'", () => {
    it("switches the run to accept-edits and tells the front-end; commands are still asked", async () => {
        const { session, applied, asked, modes } = setup(
            [edit("t1", "src/a.ts"), edit("t2", "src/b.ts"), run("t3", "make")],
            (request) =>
                request.kind === "write"
                    ? { outcome: "approve", remember: "all" }
                    : { outcome: "approve" }
        );
        await session.run("go", { mode: "agent" });
        expect(modes).toEqual(["accept-edits"]);
        expect(asked).toEqual(["write src/a.ts", "shell make"]);
        expect(applied).toEqual(["src/a.ts", "src/b.ts"]);
    });

    it("on protected configuration grants nothing beyond that edit", async () => {
        const { session, asked, modes } = setup(
            [edit("t1", ".north/settings.json"), edit("t2", "src/b.ts")],
            (request) =>
                request.protectedPaths
                    ? { outcome: "approve", remember: "all" }
                    : { outcome: "approve" }
        );
        await session.run("go", { mode: "agent" });
        expect(modes).toEqual([]);
        expect(asked).toEqual(["write .north/settings.json", "write src/b.ts"]);
    });
});
