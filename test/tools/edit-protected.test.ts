import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalRequest, ApprovalSettings, Approver } from "../../src/agent/approvals";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import type { PreToolVerdict } from "../../src/agent/approval-requirement";
import { type ToolExecutorDeps, executeToolCall } from "../../src/agent/tool-executor";
import { reviewPreparedWrite } from "../../src/agent/write-review";
import { createPrintApprovalSettings, printModeApprover } from "../../src/headless/print-approvals";
import type { ToolCallBlock } from "../../src/providers/types";
import { silentLogger } from "../../src/storage/logger";
import { createEditTools, createToolRegistry } from "../../src/tools/index";
import type { PreparedWrite, ToolResult } from "../../src/tools/types";
import { toolOk } from "../../src/tools/types";
import { type TempRepo, makeRepo } from "./fixtures";

/** What every protected file holds at the start. */
const CONFIG = '{\n    "x": 1\n}\n';

let repo: TempRepo;
beforeEach(async () => {
    repo = await makeRepo({
        "app.ts": "export const retries = 3;\n",
        ".mcp.json": CONFIG,
        ".north/settings.json": CONFIG,
        ".claude/settings.json": CONFIG,
        "sub/.git/config": CONFIG,
    });
});
afterEach(async () => {
    await repo.cleanup();
});

/** The project answered "always" for edits: every edit is auto-accepted. */
function autoAccepting(): ApprovalSettings {
    return { ...createNoStandingApprovals(), isEditsAutoAccepted: () => true };
}

function recordingApprover(answer: "approve" | "deny"): Approver & { asked: ApprovalRequest[] } {
    const asked: ApprovalRequest[] = [];
    const approver: Approver = async (request) => {
        asked.push(request);
        return answer === "approve" ? { outcome: "approve" } : { outcome: "deny", reason: "no" };
    };
    return Object.assign(approver, { asked });
}

let callId = 0;
async function call(
    name: string,
    input: Record<string, unknown>,
    deps: Partial<ToolExecutorDeps> & Pick<ToolExecutorDeps, "approver" | "settings">
): Promise<ToolResult> {
    const tools = createToolRegistry(createEditTools());
    const block: ToolCallBlock = {
        type: "tool_call",
        id: `c${++callId}`,
        name,
        input,
        rawInput: JSON.stringify(input),
    };
    return executeToolCall(
        block,
        new Set(tools.list().map((t) => t.name)),
        new AbortController().signal,
        { tools, repoRoot: repo.root, logger: silentLogger, emit: () => {}, ...deps }
    );
}

const read = (rel: string) => fs.readFile(path.join(repo.root, rel), "utf8");

/** One call per write tool that puts `marker` into `file` (which holds CONFIG). */
function everyWriteTool(file: string, marker: string): [string, Record<string, unknown>][] {
    const x = '"x": 1';
    return [
        ["edit_create_file", { path: file, content: `${marker}\n`, overwrite: true }],
        ["edit_replace_exact", { path: file, old_text: x, new_text: marker }],
        ["edit_replace_block", { path: file, start_anchor: "{", end_anchor: "}", content: marker }],
        ["edit_insert_at_line", { path: file, line: 1, content: marker }],
        ["edit_by_anchor", { path: file, anchor: x, mode: "insert_after", content: marker }],
        ["edit_after_anchor", { path: file, anchor: x, content: marker }],
        ["edit_before_anchor", { path: file, anchor: x, content: marker }],
        [
            "edit_apply_batch",
            { edits: [{ tool: "edit_replace_exact", path: file, old_text: x, new_text: marker }] },
        ],
    ];
}

describe("protected configuration under edit auto-accept", () => {
    it("asks the approver for a protected file, and not for an ordinary one", async () => {
        const approver = recordingApprover("approve");
        const ordinary = await call(
            "edit_replace_exact",
            { path: "app.ts", old_text: "3", new_text: "5" },
            { approver, settings: autoAccepting() }
        );
        expect(ordinary.ok).toBe(true);
        expect(approver.asked).toHaveLength(0);
        expect(await read("app.ts")).toBe("export const retries = 5;\n");

        const guarded = await call(
            "edit_replace_exact",
            { path: ".mcp.json", old_text: '"x": 1', new_text: '"mcpServers": {}' },
            { approver, settings: autoAccepting() }
        );
        expect(guarded.ok).toBe(true);
        expect(approver.asked).toHaveLength(1);
        expect(approver.asked[0]!.protectedPaths).toEqual([".mcp.json"]);
        expect(await read(".mcp.json")).toBe('{\n    "mcpServers": {}\n}\n');
    });

    it("writes nothing to a protected file when the user rejects it, for every write tool", async () => {
        for (const file of [".mcp.json", ".north/settings.json", ".claude/settings.json"]) {
            for (const [tool, input] of everyWriteTool(file, '"PWNED"')) {
                const approver = recordingApprover("deny");
                const result = await call(tool, input, { approver, settings: autoAccepting() });
                expect(result.ok ? null : result.error.code, `${tool} ${file}`).toBe("denied");
                expect(approver.asked.map((r) => r.protectedPaths)).toEqual([[file]]);
                expect(await read(file)).toBe(CONFIG);
            }
        }
    });

    it("asks even when a PreToolUse hook says allow (which skips the review of other files)", async () => {
        const allow = async (): Promise<PreToolVerdict> => ({
            permission: { decision: "allow" },
        });
        const approver = recordingApprover("deny");
        const settings = createNoStandingApprovals();
        const ordinary = await call(
            "edit_replace_exact",
            { path: "app.ts", old_text: "3", new_text: "4" },
            { approver, settings, preToolUse: allow }
        );
        expect(ordinary.ok).toBe(true);
        expect(approver.asked).toHaveLength(0);
        const guarded = await call(
            "edit_create_file",
            { path: ".north/autoaccept.json", content: '{"shellAutoApprove":true}' },
            { approver, settings, preToolUse: allow }
        );
        expect(guarded.ok).toBe(false);
        expect(approver.asked).toHaveLength(1);
        await expect(fs.stat(path.join(repo.root, ".north/autoaccept.json"))).rejects.toThrow();
    });

    it("marks only the protected files of a batch, and a symlink to one", async () => {
        await fs.symlink(path.join(repo.root, ".mcp.json"), path.join(repo.root, "servers.json"));
        const approver = recordingApprover("deny");
        await call(
            "edit_apply_batch",
            {
                edits: [
                    { tool: "edit_replace_exact", path: "app.ts", old_text: "3", new_text: "6" },
                    {
                        tool: "edit_replace_exact",
                        path: "servers.json",
                        old_text: "1",
                        new_text: "2",
                    },
                ],
            },
            { approver, settings: autoAccepting() }
        );
        expect(approver.asked[0]!.protectedPaths).toEqual(["servers.json"]);
        expect(await read("app.ts")).toBe("export const retries = 3;\n");
        expect(await read(".mcp.json")).toBe(CONFIG);
    });

    it("never reaches a review for .git, whatever the tool", async () => {
        for (const [tool, input] of everyWriteTool("sub/.git/config", "fsmonitor = touch x")) {
            const approver = recordingApprover("approve");
            const result = await call(tool, input, { approver, settings: autoAccepting() });
            expect(result.ok ? null : result.error.code, tool).toBe("path_outside_repo");
            expect(approver.asked).toHaveLength(0);
        }
        expect(await read("sub/.git/config")).toBe(CONFIG);
    });
});

describe("print mode's permissions for protected files", () => {
    const flags = (allowEdits: boolean, allowConfigEdits: boolean) =>
        createPrintApprovalSettings(
            { allowEdits, allowConfigEdits, allowShell: false, allowedCommands: [] },
            autoAccepting() // a project that auto-accepts grants nothing here
        );
    const edit = { path: ".claude/settings.json", old_text: '"x": 1', new_text: '"hooks": {}' };

    it("refuses with --allow-edits alone and names the flag; --allow-config-edits alone is not enough either", async () => {
        for (const settings of [flags(true, false), flags(false, true), flags(false, false)]) {
            const result = await call("edit_replace_exact", edit, {
                approver: printModeApprover,
                settings,
            });
            expect(result.ok).toBe(false);
            if (result.ok) return;
            expect(result.error.code).toBe("denied");
            expect(result.error.message).toContain("--allow-edits --allow-config-edits");
            expect(result.error.message).toContain(".claude/settings.json");
        }
        expect(await read(".claude/settings.json")).toBe(CONFIG);
    });

    it("applies with both flags, and --allow-config-edits grants no ordinary edit", async () => {
        const both = await call("edit_replace_exact", edit, {
            approver: printModeApprover,
            settings: flags(true, true),
        });
        expect(both.ok).toBe(true);
        expect(await read(".claude/settings.json")).toBe('{\n    "hooks": {}\n}\n');
        const onlyConfig = createPrintApprovalSettings(
            { allowEdits: false, allowConfigEdits: true, allowShell: false, allowedCommands: [] },
            createNoStandingApprovals()
        );
        const ordinary = await call(
            "edit_replace_exact",
            { path: "app.ts", old_text: "3", new_text: "7" },
            { approver: printModeApprover, settings: onlyConfig }
        );
        expect(ordinary.ok ? null : ordinary.error.message).toContain("--allow-edits");
        expect(await read("app.ts")).toBe("export const retries = 3;\n");
    });
});

describe("reviewPreparedWrite (also NORTH_FILE's review)", () => {
    function fakeWrite(file: string): PreparedWrite & { applied: number; discarded: number } {
        const change = {
            kind: "prepared_write" as const,
            summary: `Editing ${file}`,
            diffs: [{ path: file, diff: "", linesAdded: 1, linesRemoved: 0, isNewFile: false }],
            applied: 0,
            discarded: 0,
            async apply() {
                change.applied++;
                return toolOk({ applied: true });
            },
            async discard() {
                change.discarded++;
            },
        };
        return change;
    }
    const origin = { toolName: "north_file", toolCallId: "nf-1", input: {} };
    const deps = (approver: Approver, settings: ApprovalSettings) => ({
        approver,
        settings,
        repoRoot: repo.root,
        logger: silentLogger,
        emit: () => {},
    });
    const signal = new AbortController().signal;

    it("refuses a block for .git before any review, and discards it", async () => {
        const change = fakeWrite("sub/.git/config");
        const approver = recordingApprover("approve");
        const result = await reviewPreparedWrite(
            change,
            origin,
            signal,
            deps(approver, autoAccepting())
        );
        expect(result.ok ? null : result.error.code).toBe("path_outside_repo");
        expect(approver.asked).toHaveLength(0);
        expect(change).toMatchObject({ applied: 0, discarded: 1 });
    });

    it("asks for a protected block under auto-accept, and discards it when rejected", async () => {
        const change = fakeWrite(".north/settings.json");
        const approver = recordingApprover("deny");
        await reviewPreparedWrite(change, origin, signal, deps(approver, autoAccepting()));
        expect(approver.asked[0]!.protectedPaths).toEqual([".north/settings.json"]);
        expect(change).toMatchObject({ applied: 0, discarded: 1 });
    });

    it("refuses when a link on the path turns to protected configuration while the review is open", async () => {
        await repo.write("plain.json", "{}\n");
        await fs.symlink(path.join(repo.root, "plain.json"), path.join(repo.root, "cfg.json"));
        const change = fakeWrite("cfg.json");
        const approver: Approver = async () => {
            await fs.rm(path.join(repo.root, "cfg.json"));
            await fs.symlink(path.join(repo.root, ".mcp.json"), path.join(repo.root, "cfg.json"));
            return { outcome: "approve" };
        };
        const result = await reviewPreparedWrite(
            change,
            origin,
            signal,
            deps(approver, createNoStandingApprovals())
        );
        expect(result.ok ? null : result.error.code).toBe("file_changed");
        expect(change).toMatchObject({ applied: 0, discarded: 1 });
    });
});
