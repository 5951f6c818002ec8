/**
 * Slash commands typed in the editor act on the ACP session: `/mode` moves
 * the session's mode (the editor's menu follows) with words for the editor,
 * `/help` lists what runs here, and a skill only the user may invoke runs
 * with its instructions although the model's skill tool cannot load it.
 * Through the built CLI (`node scripts/build.mjs` first).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAcpTestbed } from "../kit/acp-testbed";

const APP = "export const limit = 10;\n";
const DEPLOY_SKILL = [
    "---",
    "name: deploy",
    "description: Deploy the app to an environment",
    "disable-model-invocation: true",
    "---",
    "Run the smoke checks first, then tag the release as deploy-<environment>.",
    "",
].join("\n");
const bed = useAcpTestbed({
    "src/app.ts": APP,
    ".north/skills/deploy/SKILL.md": DEPLOY_SKILL,
});

describe("/mode in the editor", () => {
    it("accept-edits becomes the session's mode: the editor is told, and the next edit is not asked", async () => {
        bed.server.enqueue(
            {
                toolCalls: [
                    {
                        id: "toolu_edit",
                        name: "edit_replace_exact",
                        input: {
                            path: "src/app.ts",
                            old_text: "limit = 10",
                            new_text: "limit = 20",
                        },
                    },
                ],
            },
            { text: "Raised." }
        );
        const { acp, sessionId } = await bed.session();
        const set = await acp.prompt(sessionId, "/mode accept-edits");
        expect(set.stopReason).toBe("end_turn");
        const said = acp.text(sessionId);
        expect(said).toContain("Mode: Accept edits. Edits are applied without review");
        expect(said).not.toContain("--allow-edits");
        expect(acp.updates(sessionId)).toContainEqual({
            sessionUpdate: "current_mode_update",
            currentModeId: "accept-edits",
        });
        // Only the command ran: nothing went to the model.
        expect(bed.server.requests).toHaveLength(0);

        await acp.prompt(sessionId, "raise the limit");
        expect(acp.permissionRequests).toHaveLength(0);
        expect(readFileSync(join(bed.repo, "src/app.ts"), "utf8")).toBe(
            "export const limit = 20;\n"
        );
    });

    it("without a mode says the current one and how to switch, in the editor's words", async () => {
        const { acp, sessionId } = await bed.session();
        await acp.prompt(sessionId, "/mode");
        expect(acp.text(sessionId)).toContain(
            "Mode: Agent. Every tool; each edit and command is asked first"
        );
        expect(acp.text(sessionId)).toContain("the editor's mode menu");
    });

    it("/help lists what runs here, without the chat's keys", async () => {
        const { acp, sessionId } = await bed.session();
        await acp.prompt(sessionId, "/help");
        const help = acp.text(sessionId);
        expect(help).toContain("/mode [ask|agent|accept-edits|plan]");
        expect(help).not.toContain("Tab switches mode");
        expect(help).not.toMatch(/^\/(new|resume|rewind|learn)\b/m);
    });
});

describe("other commands in the editor's words", () => {
    it("/model names the current model and the editor's menu; /memory edit and /learn say what to do here", async () => {
        const { acp, sessionId } = await bed.session();
        await acp.prompt(sessionId, "/model");
        expect(acp.text(sessionId)).toMatch(/Model: .+\. Switch with the editor's model menu/);
        await acp.prompt(sessionId, "/memory edit");
        expect(acp.text(sessionId)).toContain(
            "here, open the MEMORY.md that /memory lists in your editor"
        );
        await acp.prompt(sessionId, "/learn");
        expect(acp.text(sessionId)).toContain(
            "✗ /learn is not available in the editor: run /learn in North's chat (`north`) in this project instead."
        );
        expect(bed.server.requests).toHaveLength(0);
    });
});

describe("a skill only the user may invoke", () => {
    it("runs with its instructions in the prompt, since the model's skill tool cannot load it", async () => {
        bed.server.enqueue({ text: "Smoke checks first, then the tag." });
        const { acp, sessionId } = await bed.session();
        const answer = await acp.prompt(sessionId, "/deploy staging");
        expect(answer.stopReason).toBe("end_turn");
        const sent = JSON.stringify(bed.server.requests[0]!.body);
        expect(sent).toContain(
            "Run the smoke checks first, then tag the release as deploy-<environment>."
        );
        expect(sent).toContain("staging");
        expect(acp.toolCalls(sessionId)).toEqual([]);
        expect(acp.text(sessionId)).toBe("Smoke checks first, then the tag.");
    });
});
