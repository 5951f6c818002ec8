/**
 * Edits report what the language servers say they introduced: the view
 * before is taken while the review is open, the view after within a budget;
 * a slow server makes the result say "pending" and its late answer still
 * comes out; a failing or absent server changes nothing about the edit.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ApprovalRequest, Approver } from "../../src/agent/approvals";
import { createNoStandingApprovals } from "../../src/agent/approvals";
import { type DiagnosticsNote, EditDiagnostics } from "../../src/agent/edit-diagnostics";
import type { EngineEvent } from "../../src/agent/events";
import { NorthFileRouter, settleNorthFiles } from "../../src/agent/north-file-turn";
import { type ToolExecutorDeps, executeToolCall } from "../../src/agent/tool-executor";
import type { ToolCallBlock } from "../../src/providers/types";
import { silentLogger } from "../../src/storage/logger";
import { createEditTools, createToolRegistry } from "../../src/tools/index";
import type { ToolResult } from "../../src/tools/types";
import { BAD_MESSAGE, FakeLanguageService } from "../kit/fake-language-service";
import { type TempRepo, makeRepo } from "../tools/fixtures";

const APP = "export const a = 1;\nexport const b = 2;\n";

let repo: TempRepo;
let languages: FakeLanguageService;
beforeEach(async () => {
    repo = await makeRepo({ "app.ts": APP, "notes.md": "# notes\n" });
    languages = new FakeLanguageService(".ts");
});
afterEach(async () => {
    vi.useRealTimers();
    await repo.cleanup();
});

const approveAll: Approver = async () => ({ outcome: "approve" });

interface Run {
    result: Promise<ToolResult>;
    events: EngineEvent[];
    diagnostics: EditDiagnostics | undefined;
}

let callId = 0;
function edit(
    input: Record<string, unknown>,
    options: {
        approver?: Approver;
        signal?: AbortSignal;
        withServer?: boolean;
        name?: string;
        /** Edits accepted without review (no approver in the way). */
        autoAccept?: boolean;
    } = {}
): Run {
    const tools = createToolRegistry(createEditTools());
    const events: EngineEvent[] = [];
    const diagnostics =
        options.withServer === false ? undefined : new EditDiagnostics(languages, repo.root);
    const name = options.name ?? "edit_replace_exact";
    const block: ToolCallBlock = {
        type: "tool_call",
        id: `c${++callId}`,
        name,
        input,
        rawInput: JSON.stringify(input),
    };
    const deps: ToolExecutorDeps = {
        tools,
        approver: options.approver ?? approveAll,
        settings: options.autoAccept
            ? { ...createNoStandingApprovals(), isEditsAutoAccepted: () => true }
            : createNoStandingApprovals(),
        repoRoot: repo.root,
        logger: silentLogger,
        emit: (event) => events.push(event),
        editDiagnostics: diagnostics,
    };
    const result = executeToolCall(
        block,
        new Set(tools.list().map((t) => t.name)),
        options.signal ?? new AbortController().signal,
        deps
    );
    return { result, events, diagnostics };
}

function noteOf(result: ToolResult): DiagnosticsNote | undefined {
    expect(result.ok).toBe(true);
    return (result as { data: { diagnostics?: DiagnosticsNote } }).data.diagnostics;
}

const appPath = (): string => path.join(repo.root, "app.ts");
const introduceBad = {
    path: "app.ts",
    old_text: "export const b = 2;",
    new_text: "export const b = BAD;",
};

describe("edit diagnostics", () => {
    it("puts the error an edit introduced in its result and emits the event", async () => {
        const run = edit(introduceBad);
        const note = noteOf(await run.result);
        expect(note).toEqual({
            summary: "1 error introduced by this edit",
            introduced: [`app.ts:2:18 error ${BAD_MESSAGE} (fake E1)`],
        });
        const event = run.events.find((e) => e.type === "diagnostics");
        expect(event).toMatchObject({
            type: "diagnostics",
            toolCallId: `c${callId}`,
            introduced: [{ path: "app.ts", line: 2, severity: "error", message: BAD_MESSAGE }],
            more: 0,
            fixed: 0,
            pending: false,
            baselineKnown: true,
        });
    });

    it("does not report an error that was there before and only moved", async () => {
        await repo.write("app.ts", "export const a = BAD;\nexport const b = 2;\n");
        const run = edit({
            path: "app.ts",
            old_text: "export const a = BAD;",
            new_text: "// first\n// second\nexport const a = BAD;",
        });
        expect(noteOf(await run.result)).toEqual({ summary: "no new errors or warnings" });
    });

    it("counts what the edit fixed", async () => {
        await repo.write("app.ts", "export const a = BAD;\nexport const b = 2;\n");
        const run = edit({ path: "app.ts", old_text: "= BAD;", new_text: "= 1;" });
        expect(noteOf(await run.result)).toEqual({ summary: "no new errors or warnings; 1 fixed" });
        expect(run.events.find((e) => e.type === "diagnostics")).toMatchObject({ fixed: 1 });
    });

    it("reports a caller file the server reported on before and after", async () => {
        await repo.write("use.ts", "import { b } from './app';\n");
        const usePath = path.join(repo.root, "use.ts");
        languages.alsoReported.push(usePath);
        // The edit's change breaks the caller (the fake sees the caller through its own rule).
        const run = edit(
            { path: "app.ts", old_text: "export const b = 2;", new_text: "export const b2 = 2;" },
            {
                approver: async () => {
                    await languages.callsMade(1);
                    await fs.writeFile(usePath, "import { b } from './app'; // BAD\n");
                    return { outcome: "approve" };
                },
            }
        );
        const note = noteOf(await run.result);
        expect(note?.introduced).toEqual([`use.ts:1:31 error ${BAD_MESSAGE} (fake E1)`]);
    });

    it("takes the view before the edit while the review is open, on the old text", async () => {
        const asked: number[] = [];
        const approver: Approver = async (_request: ApprovalRequest) => {
            await languages.callsMade(1);
            asked.push(languages.calls.length);
            return { outcome: "approve" };
        };
        const run = edit(introduceBad, { approver });
        await run.result;
        expect(asked).toEqual([1]);
        expect(languages.calls[0]!.texts.get(appPath())).toBe(APP);
        expect(languages.calls[1]!.texts.get(appPath())).toContain("BAD");
    });

    it("says the diagnostics are pending past the budget, then announces the late answer", async () => {
        vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
        const run = edit(introduceBad);
        await languages.callsMade(1);
        languages.hold = true;
        await languages.callsMade(2);
        await vi.advanceTimersByTimeAsync(5_000);
        const note = noteOf(await run.result);
        expect(note?.summary).toMatch(
            /^diagnostics pending: the language server did not answer within 5s/
        );
        expect(run.events.filter((e) => e.type === "diagnostics")).toMatchObject([
            { pending: true, introduced: [] },
        ]);
        languages.release();
        await vi.waitUntil(() => run.events.filter((e) => e.type === "diagnostics").length === 2);
        expect(run.events.at(-1)).toMatchObject({
            type: "diagnostics",
            pending: false,
            introduced: [{ line: 2, message: BAD_MESSAGE }],
        });
        const late = run.diagnostics!.takeLateNotes();
        expect(late).toHaveLength(1);
        expect(late[0]).toContain(`app.ts:2:18 error ${BAD_MESSAGE}`);
        expect(run.diagnostics!.takeLateNotes()).toEqual([]);
    });

    it("stops awaiting a pending answer when the run ends", async () => {
        vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
        const run = edit(introduceBad);
        await languages.callsMade(1);
        languages.hold = true;
        await languages.callsMade(2);
        await vi.advanceTimersByTimeAsync(5_000);
        expect(noteOf(await run.result)?.summary).toMatch(/^diagnostics pending/);
        run.diagnostics!.endRun();
        languages.release();
        await vi.advanceTimersByTimeAsync(70_000);
        expect(run.events.filter((e) => e.type === "diagnostics")).toHaveLength(1);
        expect(run.diagnostics!.takeLateNotes()).toEqual([]);
    });

    it("says when the views were incomplete, so older problems or unanswered files may hide", async () => {
        languages.complete = false;
        const run = edit(introduceBad);
        expect(noteOf(await run.result)).toEqual({
            summary: "1 error introduced by this edit",
            introduced: [`app.ts:2:18 error ${BAD_MESSAGE} (fake E1)`],
            note:
                "the language server had not reported on the file before the edit, so these may include problems that were there already; " +
                "not every language server answered after the edit",
        });
        expect(run.events.find((e) => e.type === "diagnostics")).toMatchObject({
            baselineKnown: false,
        });
    });

    it("applies the edit as usual when the service throws", async () => {
        languages.failWith = new Error("server exploded");
        const run = edit(introduceBad);
        const result = await run.result;
        expect(result.ok).toBe(true);
        expect(noteOf(result)).toBeUndefined();
        expect(await fs.readFile(appPath(), "utf8")).toContain("BAD");
        expect(run.events.some((e) => e.type === "diagnostics")).toBe(false);
    });

    it("leaves the result as it was where no server handles the file", async () => {
        const withService = await edit({
            path: "notes.md",
            old_text: "# notes",
            new_text: "# Notes BAD",
        }).result;
        await repo.write("notes.md", "# notes\n");
        const without = await edit(
            { path: "notes.md", old_text: "# notes", new_text: "# Notes BAD" },
            { withServer: false }
        ).result;
        expect(withService).toEqual(without);
        expect(languages.calls).toEqual([]);
    });

    it("stops waiting when the run is cancelled, the edit kept", async () => {
        const controller = new AbortController();
        const run = edit(introduceBad, { signal: controller.signal });
        await languages.callsMade(1);
        languages.hold = true;
        await languages.callsMade(2);
        controller.abort();
        const result = await run.result;
        expect(noteOf(result)).toBeUndefined();
        expect(await fs.readFile(appPath(), "utf8")).toContain("BAD");
    });

    it("writes nothing when the run is cancelled while the view before is awaited", async () => {
        const controller = new AbortController();
        languages.hold = true;
        // Auto-accepted: nothing but the wait for the view stands between the edit and the disk.
        const run = edit(introduceBad, { signal: controller.signal, autoAccept: true });
        await languages.callsMade(1);
        controller.abort();
        const result = await run.result;
        expect(result).toMatchObject({ ok: false, error: { code: "cancelled" } });
        expect(await fs.readFile(appPath(), "utf8")).toBe(APP);
    });

    it("stops the view before when the edit is rejected, and writes nothing", async () => {
        const run = edit(introduceBad, {
            approver: async () => ({ outcome: "deny", reason: "no" }),
        });
        const result = await run.result;
        expect(result.ok).toBe(false);
        expect(await fs.readFile(appPath(), "utf8")).toBe(APP);
        expect(languages.calls.length).toBeLessThanOrEqual(1);
    });

    it("gives a new file an empty before and asks only after it exists", async () => {
        const run = edit(
            { path: "fresh.ts", content: "export const c = BAD;\n" },
            { name: "edit_create_file" }
        );
        const note = noteOf(await run.result);
        expect(note?.introduced).toEqual([`fresh.ts:1:18 error ${BAD_MESSAGE} (fake E1)`]);
        expect(languages.calls).toHaveLength(1);
    });

    it("adds what a NORTH_FILE block introduced to its note", async () => {
        const router = new NorthFileRouter(repo.root);
        const events: EngineEvent[] = [];
        const emit = (event: EngineEvent): void => void events.push(event);
        await router.feed(
            '<NORTH_FILE path="app.ts">\nexport const a = 1;\nexport const b = BAD;\n</NORTH_FILE>\n',
            emit
        );
        const notes = await settleNorthFiles(router, 1, new AbortController().signal, {
            approver: approveAll,
            settings: createNoStandingApprovals(),
            repoRoot: repo.root,
            logger: silentLogger,
            emit,
            editDiagnostics: new EditDiagnostics(languages, repo.root),
        });
        expect(notes).toEqual([
            "[North] NORTH_FILE app.ts: written (2 lines) and accepted.\n" +
                "Diagnostics: 1 error introduced by this edit.\n" +
                `app.ts:2:18 error ${BAD_MESSAGE} (fake E1)`,
        ]);
        expect(languages.calls[0]!.texts.get(appPath())).toBe(APP);
        expect(events.filter((e) => e.type === "diagnostics")).toMatchObject([
            { toolCallId: "nf-1-0", pending: false },
        ]);
    });
});
