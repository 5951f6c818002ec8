/**
 * An editor that goes away mid-turn (it quits, crashes, or closes the pipe):
 * North exits by itself, and the conversation is saved whole — `north list`
 * sees it, its log has no half-written line, and a new `north acp` loads it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAcpTestbed } from "../kit/acp-testbed";
import { startPacedLlmServer } from "../kit/paced-llm-server";
import { runNorth } from "../kit/run-north";

const bed = useAcpTestbed({ "src/app.ts": "export const app = 1;\n" });

/** Every conversation log line, parsed: throws on a half-written line. */
function conversationLog(sessionId: string): unknown[] {
    const dir = join(bed.home, "data", "conversations");
    const file = readdirSync(dir).find(
        (name) => name.startsWith(sessionId) && name.endsWith(".jsonl")
    );
    expect(file, `no log for ${sessionId} in ${readdirSync(dir).join(", ")}`).toBeDefined();
    const text = readFileSync(join(dir, file!), "utf8");
    expect(text.endsWith("\n")).toBe(true);
    return text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as unknown);
}

/** The session opens in a fresh `north acp`, replaying what was said. */
async function loadsInNewProcess(sessionId: string, prompt: string): Promise<void> {
    const again = await bed.start();
    await again.initialize();
    await again.agent.request("session/load", { sessionId, cwd: bed.repo, mcpServers: [] });
    const replayed = again.updates(sessionId);
    const userText = replayed
        .map((u) =>
            u.sessionUpdate === "user_message_chunk" && u.content.type === "text"
                ? u.content.text
                : ""
        )
        .join("");
    expect(userText).toContain(prompt);
}

describe("the editor disconnects mid-turn", () => {
    it("stdin closes while the model streams: North exits 0, the conversation is saved and loads again", async () => {
        // The model sends two words, then keeps its answer open until North hangs up.
        const paced = await startPacedLlmServer();
        let sessionId = "";
        let exit;
        try {
            paced.enqueue({ text: "streaming on and on", holdAfterChunks: 2 });
            const acp = await bed.start({
                env: { ...bed.env, ANTHROPIC_BASE_URL: paced.anthropicBaseUrl },
            });
            await acp.initialize();
            ({ sessionId } = await acp.newSession(bed.repo));
            const turn = acp.prompt(sessionId, "explain everything slowly");
            turn.catch(() => undefined);
            await acp.waitForUpdate(sessionId, (u) => u.sessionUpdate === "agent_message_chunk");
            exit = await acp.close();
        } finally {
            await paced.close();
        }
        expect(exit).toEqual({ code: 0, signal: null });

        conversationLog(sessionId);
        const listed = await runNorth(["list", "--path", bed.repo], { env: bed.env });
        expect(listed.code).toBe(0);
        expect(listed.stdout).toContain(sessionId);
        expect(listed.stdout).toContain("explain everything slowly");
        await loadsInNewProcess(sessionId, "explain everything slowly");
    });

    it("the editor's process dies (both pipes close) while a permission request is open: nothing runs", async () => {
        bed.server.enqueue({
            toolCalls: [
                { id: "toolu_touch", name: "shell_run", input: { command: "touch never-made" } },
            ],
        });
        const { acp, sessionId } = await bed.session({ permissions: ["hold"] });
        const turn = acp.prompt(sessionId, "make the file");
        turn.catch(() => undefined);
        await acp.waitForPermissionRequest(1);
        acp.child.stdout!.destroy();
        const exit = await acp.close();
        expect(exit.signal).toBeNull();
        expect(exit.code).toBe(0);
        expect(existsSync(join(bed.repo, "never-made"))).toBe(false);

        conversationLog(sessionId);
        await loadsInNewProcess(sessionId, "make the file");
    });

    it("the editor goes away while an edit waits for approval: the file is untouched", async () => {
        bed.server.enqueue({
            toolCalls: [
                {
                    id: "toolu_edit",
                    name: "edit_replace_exact",
                    input: { path: "src/app.ts", old_text: "app = 1", new_text: "app = 2" },
                },
            ],
        });
        const { acp, sessionId } = await bed.session({ permissions: ["hold"] });
        const turn = acp.prompt(sessionId, "change the app");
        turn.catch(() => undefined);
        await acp.waitForPermissionRequest(1);
        expect((await acp.close()).code).toBe(0);
        expect(readFileSync(join(bed.repo, "src/app.ts"), "utf8")).toBe("export const app = 1;\n");
        conversationLog(sessionId);
    });

    it("a session never prompted leaves no conversation behind", async () => {
        const { acp, sessionId } = await bed.session();
        await acp.close();
        const dir = join(bed.home, "data", "conversations");
        const saved = existsSync(dir)
            ? readdirSync(dir).filter((name) => name.startsWith(sessionId))
            : [];
        expect(saved).toEqual([]);
    });
});
