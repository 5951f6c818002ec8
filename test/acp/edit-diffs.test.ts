/**
 * Every edit North applies reaches the editor as a native diff (issue 34,
 * part 3), not only those it asked about: an edit applied without a review
 * (accept-edits mode) shows its file's old and new text, and session/load
 * in a later `north acp` draws the same edit again as the same diff.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { useAcpTestbed } from "../kit/acp-testbed";

const APP = "export const limit = 10;\nexport const name = 'app';\n";
const EDITED = "export const limit = 20;\nexport const name = 'app';\n";
const bed = useAcpTestbed({ "src/app.ts": APP });

const editLimit = {
    id: "toolu_edit",
    name: "edit_replace_exact",
    input: { path: "src/app.ts", old_text: "limit = 10", new_text: "limit = 20" },
};

const diffsOf = (content: ToolCallContent[] | null | undefined) =>
    (content ?? []).filter((c) => c.type === "diff");

describe("edits applied without a review", () => {
    it("show the whole file's old and new text, live and when the session is loaded again", async () => {
        bed.server.enqueue({ toolCalls: [editLimit] }, { text: "Raised." });
        const { acp, sessionId } = await bed.session({ permissions: [] });
        await acp.agent.request("session/set_mode", { sessionId, modeId: "accept-edits" });
        expect((await acp.prompt(sessionId, "raise the limit")).stopReason).toBe("end_turn");
        expect(acp.permissionRequests).toHaveLength(0);
        expect(readFileSync(join(bed.repo, "src/app.ts"), "utf8")).toBe(EDITED);

        const expected = {
            type: "diff",
            path: join(bed.repo, "src/app.ts"),
            oldText: APP,
            newText: EDITED,
        };
        const [live] = acp.toolCalls(sessionId);
        expect(live).toMatchObject({ toolCallId: "toolu_edit", kind: "edit", status: "completed" });
        expect(diffsOf(live!.content)).toEqual([expected]);
        expect(live!.locations).toEqual([{ path: join(bed.repo, "src/app.ts"), line: 1 }]);
        await acp.close();

        const again = await bed.start();
        await again.initialize();
        await again.agent.request("session/load", {
            sessionId,
            cwd: bed.repo,
            mcpServers: [],
        });
        const [replayed] = again.toolCalls(sessionId);
        expect(replayed).toMatchObject({
            toolCallId: "toolu_edit",
            kind: "edit",
            status: "completed",
        });
        expect(diffsOf(replayed!.content)).toEqual([expected]);
        expect(JSON.stringify(replayed)).not.toContain('\\"applied\\"');
        await again.close();
    });

    it("a NORTH_FILE block written in accept-edits mode shows its diff, and again on load", async () => {
        bed.server.enqueue(
            {
                text: [
                    'Here.\n<NORTH_FILE path="docs/notes.md">\n',
                    "# Notes\nhello\n</NORTH_FILE>\n",
                ],
            },
            { text: "Written." }
        );
        const { acp, sessionId } = await bed.session({ permissions: [] });
        await acp.agent.request("session/set_mode", { sessionId, modeId: "accept-edits" });
        expect((await acp.prompt(sessionId, "write the notes")).stopReason).toBe("end_turn");
        expect(acp.permissionRequests).toHaveLength(0);
        expect(readFileSync(join(bed.repo, "docs/notes.md"), "utf8")).toBe("# Notes\nhello\n");
        const expected = {
            type: "diff",
            path: join(bed.repo, "docs/notes.md"),
            oldText: null,
            newText: "# Notes\nhello\n",
        };
        const [live] = acp.toolCalls(sessionId);
        expect(live).toMatchObject({ kind: "edit", status: "completed" });
        expect(diffsOf(live!.content)).toEqual([expected]);
        await acp.close();

        const again = await bed.start();
        await again.initialize();
        await again.agent.request("session/load", { sessionId, cwd: bed.repo, mcpServers: [] });
        const [replayed] = again.toolCalls(sessionId);
        expect(replayed).toMatchObject({ kind: "edit", status: "completed" });
        expect(diffsOf(replayed!.content)).toEqual([expected]);
        await again.close();
    });
});
