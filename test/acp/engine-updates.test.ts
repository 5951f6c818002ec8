/**
 * The translator fed by a real session (issue 34, part 3): the engine's own
 * event order for a read, a reviewed edit, a command and a NORTH_FILE block
 * becomes tool calls the editor can follow, each edit with its native diff,
 * the NORTH_FILE block under the id its review carries.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type ApprovalRequest, createNoStandingApprovals } from "../../src/agent/approvals";
import type { EngineEvent } from "../../src/agent/events";
import { AgentSession } from "../../src/agent/session";
import { toolDisplaysOf } from "../../src/agent/tool-displays";
import { replayUpdates } from "../../src/cli/acp/replay";
import { createUpdateTranslator } from "../../src/cli/acp/updates";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import { createEditTools, createReadTools, createToolRegistry } from "../../src/tools/index";
import { createShellRunTool } from "../../src/tools/shell-run";
import { createShellService } from "../../src/tools/shell-service";
import type { AnyToolDefinition } from "../../src/tools/types";
import { ScriptedProvider, call, text } from "../kit/scripted-provider";
import { invalidOf } from "../kit/acp-schema";

const sonnet = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!;

let repo: string;
beforeEach(() => {
    repo = realpathSync(mkdtempSync(join(tmpdir(), "north-acp-engine-")));
    writeFileSync(join(repo, "a.ts"), "export const a = 1;\n");
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

it("a read, a reviewed edit, a command and a NORTH_FILE block read in the editor as the engine ran them", async () => {
    const shell = createShellService(repo);
    const tools = createToolRegistry([
        ...createReadTools(),
        ...createEditTools(),
        createShellRunTool(shell) as AnyToolDefinition,
    ]);
    const provider = new ScriptedProvider([
        {
            blocks: [
                call("r1", "read_file", { path: "a.ts" }),
                call("e1", "edit_replace_exact", {
                    path: "a.ts",
                    old_text: "= 1",
                    new_text: "= 2",
                }),
                call("s1", "shell_run", { command: "echo built" }),
            ],
            stopReason: "tool_use",
        },
        {
            blocks: [
                text('Writing it.\n<NORTH_FILE path="notes.md">\n# Notes\nhello\n</NORTH_FILE>\n'),
            ],
        },
        { blocks: [text("Done.")] },
    ]);
    const asked: ApprovalRequest[] = [];
    const session = new AgentSession({
        sessionId: "s",
        repoRoot: repo,
        model: sonnet,
        providerFor: async () => provider,
        tools,
        approver: async (request) => {
            asked.push(request);
            return { outcome: "approve" };
        },
        approvalSettings: createNoStandingApprovals(),
        sleep: async () => {},
        random: () => 0.5,
    });
    const translator = createUpdateTranslator({
        repoRoot: repo,
        toolDisplays: toolDisplaysOf(tools),
        costUsd: () => null,
    });
    const updates: SessionUpdate[] = [];
    const events: EngineEvent[] = [];
    session.subscribe((event) => {
        events.push(event);
        updates.push(...translator.translate(event));
    });
    try {
        const result = await session.run("go", {
            mode: "agent",
            signal: new AbortController().signal,
        });
        expect(result.subtype).toBe("success");
        expect(translator.turnEnd(result)).toEqual({ stopReason: "end_turn" });
    } finally {
        shell.dispose();
    }
    expect(readFileSync(join(repo, "a.ts"), "utf8")).toBe("export const a = 2;\n");
    expect(readFileSync(join(repo, "notes.md"), "utf8")).toBe("# Notes\nhello\n");
    expect(invalidOf("SessionUpdate", updates)).toEqual([]);

    // Each call's life as the editor sees it: id, kind or status, in order.
    const lives = new Map<string, string[]>();
    for (const u of updates) {
        if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") continue;
        const life = lives.get(u.toolCallId) ?? [];
        life.push(u.sessionUpdate === "tool_call" ? `new ${u.kind}` : (u.status ?? "content"));
        lives.set(u.toolCallId, life);
    }
    expect(Object.fromEntries(lives)).toEqual({
        // Streaming started the call; its whole input set it running.
        r1: ["new read", "in_progress", "completed"],
        // Waiting on the review, then running once approved.
        e1: ["new edit", "in_progress", "pending", "in_progress", "completed"],
        // Its output while it ran.
        s1: ["new execute", "in_progress", "pending", "in_progress", "in_progress", "completed"],
        "nf-2-0.1": ["new edit", "pending", "in_progress", "completed"],
    });

    // Both reviews showed native diffs of the whole files, under the calls the editor knows.
    expect(asked.map((r) => r.toolCallId)).toEqual(["e1", "s1", "nf-2-0"]);
    const edit = translator.toolCallOf(asked[0]!);
    expect(edit.content).toEqual([
        {
            type: "diff",
            path: join(repo, "a.ts"),
            oldText: "export const a = 1;\n",
            newText: "export const a = 2;\n",
        },
    ]);
    const northFile = translator.toolCallOf(asked[2]!);
    expect(northFile).toMatchObject({
        toolCallId: "nf-2-0.1",
        kind: "edit",
        content: [
            {
                type: "diff",
                path: join(repo, "notes.md"),
                oldText: null,
                newText: "# Notes\nhello\n",
            },
        ],
    });
    const command = JSON.stringify(
        updates.filter((u) => "toolCallId" in u && u.toolCallId === "s1")
    );
    expect(command).toContain("$ echo built");
    expect(command).toContain("built");
    const said = updates
        .flatMap((u) =>
            u.sessionUpdate === "agent_message_chunk" && u.content.type === "text"
                ? [u.content.text]
                : []
        )
        .join("");
    expect(said).toContain("Done.");
    expect(said).not.toContain("hello");

    // Loaded again later, the saved conversation reads the same way.
    const replayed = replayUpdates(session.messages, {
        repoRoot: repo,
        toolDisplays: toolDisplaysOf(tools),
    });
    expect(invalidOf("SessionUpdate", replayed)).toEqual([]);
    const calls = replayed.flatMap((u) =>
        u.sessionUpdate === "tool_call" ? [`${u.kind} ${u.status} ${u.title}`] : []
    );
    expect(calls).toEqual([
        "read completed Reading a.ts",
        "edit completed Editing a.ts",
        "execute completed Running echo built",
        "edit completed Writing notes.md (2 lines)",
    ]);
    expect(JSON.stringify(replayed)).not.toContain("hello");
});
