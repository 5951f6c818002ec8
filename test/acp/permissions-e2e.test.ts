/**
 * Approvals drawn by the editor: each review North would show in the chat is a
 * session/request_permission on the tool call it concerns, answered here by
 * the SDK's client — allow once, reject (nothing changes and the model hears
 * that the user refused), allow always (its label names the scope, and the
 * same command is not asked about again) — and the approval modes as
 * session modes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAcpTestbed } from "../kit/acp-testbed";
import { anthropicToolResultTexts } from "../kit/fake-llm-server";

const APP = "export const limit = 10;\n";
const bed = useAcpTestbed({ "src/app.ts": APP });

const editLimit = (id: string) => ({
    id,
    name: "edit_replace_exact",
    input: { path: "src/app.ts", old_text: "limit = 10", new_text: "limit = 20" },
});
const shell = (id: string, command: string) => ({ id, name: "shell_run", input: { command } });

describe("reject", () => {
    it("leaves the file alone, fails the call, and tells the model the user refused", async () => {
        bed.server.enqueue(
            { toolCalls: [editLimit("toolu_edit")] },
            { text: "Understood, I left it." }
        );
        const { acp, sessionId } = await bed.session({ permissions: ["reject_once"] });
        expect((await acp.prompt(sessionId, "raise the limit")).stopReason).toBe("end_turn");
        expect(readFileSync(join(bed.repo, "src/app.ts"), "utf8")).toBe(APP);
        expect(acp.permissionRequests).toHaveLength(1);
        const [edit] = acp.toolCalls(sessionId);
        expect(edit!.status).toBe("failed");
        // ACP carries no reason: the model hears a refusal and that the user may say why next.
        const told = anthropicToolResultTexts(bed.server.requests[1]!)[0]!;
        expect(told).toMatch(/user (rejected|refused|denied)/i);
        expect(told).toMatch(/next (prompt|message)/i);
    });

    it("refuses a command the same way: it does not run", async () => {
        bed.server.enqueue(
            { toolCalls: [shell("toolu_touch", "touch created-by-command")] },
            { text: "Skipped." }
        );
        const { acp, sessionId } = await bed.session({ permissions: ["reject_once"] });
        await acp.prompt(sessionId, "create the file");
        expect(() => readFileSync(join(bed.repo, "created-by-command"))).toThrow();
        expect(acp.toolCalls(sessionId)[0]!.status).toBe("failed");
        expect(anthropicToolResultTexts(bed.server.requests[1]!)[0]).toMatch(
            /user (rejected|refused|denied)/i
        );
    });
});

describe("allow always", () => {
    it("names its scope in the option, and the same command is not asked about again", async () => {
        const command = "echo standing-answer";
        bed.server.enqueue(
            { toolCalls: [shell("toolu_1", command)] },
            { toolCalls: [shell("toolu_2", command)] },
            { text: "Ran it twice." }
        );
        const acp = await bed.start({ permissions: ["hold"] });
        await acp.initialize();
        const { sessionId } = await acp.newSession(bed.repo);
        const turn = acp.prompt(sessionId, "run it twice");
        const asked = await acp.waitForPermissionRequest(1);
        const always = asked.request.options.filter((o) => o.kind === "allow_always");
        expect(always.length).toBeGreaterThan(0);
        // The editor draws the buttons, so the label is the safeguard: it names what and where.
        const exact = always.find((o) => o.name.includes(command));
        expect(exact, JSON.stringify(always)).toBeDefined();
        expect(exact!.name).toMatch(/this project|~\/\.north|session/);
        acp.answerHeld(0, { outcome: "selected", optionId: exact!.optionId });
        expect((await turn).stopReason).toBe("end_turn");
        expect(acp.permissionRequests).toHaveLength(1);
        const calls = acp.toolCalls(sessionId);
        expect(calls.map((c) => c.status)).toEqual(["completed", "completed"]);
        const results = anthropicToolResultTexts(bed.server.requests[2]!);
        expect(results.join("\n")).toContain("standing-answer");

        // Kept where the label said (the user's own settings): a new editor session does not ask either.
        bed.server.enqueue({ toolCalls: [shell("toolu_3", command)] }, { text: "Ran it again." });
        const later = await bed.session();
        expect((await later.acp.prompt(later.sessionId, "once more")).stopReason).toBe("end_turn");
        expect(later.acp.permissionRequests).toHaveLength(0);
        expect(later.acp.toolCalls(later.sessionId)[0]!.status).toBe("completed");
    });

    it("lets an edit review accept all edits this session: the next edit is not asked", async () => {
        bed.server.enqueue(
            { toolCalls: [editLimit("toolu_a")] },
            {
                toolCalls: [
                    {
                        id: "toolu_b",
                        name: "edit_replace_exact",
                        input: {
                            path: "src/app.ts",
                            old_text: "limit = 20",
                            new_text: "limit = 30",
                        },
                    },
                ],
            },
            { text: "Both edits made." }
        );
        const { acp, sessionId } = await bed.session({ permissions: ["allow_always"] });
        expect((await acp.prompt(sessionId, "raise it twice")).stopReason).toBe("end_turn");
        expect(acp.permissionRequests).toHaveLength(1);
        expect(readFileSync(join(bed.repo, "src/app.ts"), "utf8")).toBe(
            "export const limit = 30;\n"
        );
        // Accepting all edits is a mode change the editor shows.
        await acp.waitForUpdate(
            sessionId,
            (u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "accept-edits"
        );
    });
});

describe("modes", () => {
    it("accept-edits set from the editor applies edits without asking", async () => {
        bed.server.enqueue({ toolCalls: [editLimit("toolu_edit")] }, { text: "Done." });
        const { acp, sessionId } = await bed.session({ permissions: [] });
        await acp.agent.request("session/set_mode", { sessionId, modeId: "accept-edits" });
        await acp.waitForUpdate(
            sessionId,
            (u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "accept-edits"
        );
        await acp.prompt(sessionId, "raise the limit");
        expect(acp.permissionRequests).toHaveLength(0);
        expect(readFileSync(join(bed.repo, "src/app.ts"), "utf8")).toBe(
            "export const limit = 20;\n"
        );
    });

    it("ask mode refuses an edit without asking: read-only tools only", async () => {
        bed.server.enqueue(
            { toolCalls: [editLimit("toolu_edit")] },
            { text: "I can only describe it." }
        );
        const { acp, sessionId } = await bed.session({ permissions: [] });
        await acp.agent.request("session/set_mode", { sessionId, modeId: "ask" });
        await acp.prompt(sessionId, "raise the limit");
        expect(acp.permissionRequests).toHaveLength(0);
        expect(readFileSync(join(bed.repo, "src/app.ts"), "utf8")).toBe(APP);
    });
});
