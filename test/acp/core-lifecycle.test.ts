/**
 * A session's life beyond one prompt, driven by the SDK's client against the
 * built `north acp`: session/load draws the saved conversation again before
 * it answers; an editor that goes away mid-turn leaves a whole, loadable
 * conversation; an untrusted project's configuration is asked about in the
 * editor before the first prompt's work.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { useAcpTestbed } from "../kit/acp-testbed";

const bed = useAcpTestbed({ "notes.txt": "remember the milk\n" });

async function savedConversation(): Promise<string> {
    bed.server.enqueue(
        { toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
        { text: "It says milk." }
    );
    const acp = await bed.start({ permissions: [] });
    await acp.initialize();
    const { sessionId } = await acp.newSession(bed.repo);
    await acp.prompt(sessionId, "what do the notes say?");
    await acp.close();
    return sessionId;
}

function textOf(updates: readonly SessionUpdate[], kind: SessionUpdate["sessionUpdate"]): string {
    let text = "";
    for (const update of updates) {
        if (update.sessionUpdate !== kind || !("content" in update)) continue;
        const content = update.content;
        if (content && !Array.isArray(content) && "text" in content) text += content.text;
    }
    return text;
}

describe("session/load", () => {
    it("replays the conversation as updates before it answers, then continues it", async () => {
        const sessionId = await savedConversation();
        const acp = await bed.start();
        await acp.initialize();
        const loaded = await acp.agent.request("session/load", {
            sessionId,
            cwd: bed.repo,
            mcpServers: [],
        });
        expect(loaded.modes?.currentModeId).toBe("agent");
        // Everything was drawn by the time the answer came.
        const replayed = [...acp.updates(sessionId)];
        expect(textOf(replayed, "user_message_chunk")).toContain("what do the notes say?");
        expect(textOf(replayed, "agent_message_chunk")).toContain("It says milk.");
        const read = acp.toolCalls(sessionId).find((c) => c.kind === "read");
        expect(read).toMatchObject({ status: "completed" });
        expect(read?.title).toContain("notes.txt");
        const order = replayed.map((u) => u.sessionUpdate);
        expect(order.indexOf("user_message_chunk")).toBeLessThan(order.indexOf("tool_call"));

        bed.server.enqueue({ text: "You asked about the notes." });
        const answer = await acp.prompt(sessionId, "what did I ask?");
        expect(answer.stopReason).toBe("end_turn");
        const sent = JSON.stringify(bed.server.requests.at(-1)!.body);
        expect(sent).toContain("remember the milk");
        expect(sent).toContain("what did I ask?");
    });

    it("loading a session again on the same connection reopens it, without forking it from itself", async () => {
        const sessionId = await savedConversation();
        const acp = await bed.start();
        await acp.initialize();
        const load = () =>
            acp.agent.request("session/load", { sessionId, cwd: bed.repo, mcpServers: [] });
        await load();
        await load();
        expect(acp.text(sessionId)).not.toContain("open in another North process");
        bed.server.enqueue({ text: "Still here." });
        expect((await acp.prompt(sessionId, "again")).stopReason).toBe("end_turn");
        const saved = readdirSync(join(bed.home, "data", "conversations")).filter((f) =>
            f.endsWith(".jsonl")
        );
        expect(saved).toEqual([`${sessionId}.jsonl`]);
    });

    it("refuses a conversation of another project, and one that does not exist", async () => {
        const sessionId = await savedConversation();
        const acp = await bed.start();
        await acp.initialize();
        const other = join(bed.home, "other-project");
        mkdirSync(other);
        await expect(
            acp.agent.request("session/load", { sessionId, cwd: other, mcpServers: [] })
        ).rejects.toMatchObject({ code: -32602 });
        await expect(
            acp.agent.request("session/load", {
                sessionId: "ffffff",
                cwd: bed.repo,
                mcpServers: [],
            })
        ).rejects.toMatchObject({ code: -32002 });
    });
});

describe("an editor that goes away", () => {
    it("mid-turn: North exits, and the conversation is whole and loads again", async () => {
        bed.server.enqueue({ fault: "endless", text: "streaming " });
        const acp = await bed.start();
        await acp.initialize();
        const { sessionId } = await acp.newSession(bed.repo);
        void acp.prompt(sessionId, "tell me a long story").catch(() => undefined);
        await acp.waitForUpdate(sessionId, (u) => u.sessionUpdate === "agent_message_chunk");
        const exit = await acp.close();
        expect(exit.code).toBe(0);

        const log = readFileSync(
            join(bed.home, "data", "conversations", `${sessionId}.jsonl`),
            "utf8"
        );
        expect(log.endsWith("\n")).toBe(true);
        for (const line of log.trimEnd().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
        expect(log).toContain("tell me a long story");

        const again = await bed.start();
        await again.initialize();
        await again.agent.request("session/load", { sessionId, cwd: bed.repo, mcpServers: [] });
        expect(textOf(again.updates(sessionId), "user_message_chunk")).toContain(
            "tell me a long story"
        );
    });
});

describe("an untrusted project's configuration", () => {
    const withHook = (): void => {
        mkdirSync(join(bed.repo, ".north"), { recursive: true });
        writeFileSync(
            join(bed.repo, ".north", "settings.json"),
            JSON.stringify({
                hooks: {
                    SessionStart: [{ hooks: [{ type: "command", command: "touch started" }] }],
                },
            })
        );
    };

    it("is asked about on a call titled for it, listing what would run; refused, it does not run", async () => {
        withHook();
        bed.server.enqueue({ text: "Hi." });
        const acp = await bed.start({ permissions: ["reject_once"] });
        await acp.initialize();
        const { sessionId } = await acp.newSession(bed.repo);
        expect((await acp.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
        const [asked] = acp.permissionRequests;
        expect(asked?.request.toolCall.title).toBe("Trust this project's configuration");
        expect(JSON.stringify(asked?.request.toolCall.content)).toContain("touch started");
        expect(asked?.request.options.map((o) => o.kind)).toEqual([
            "allow_once",
            "allow_always",
            "reject_once",
        ]);
        expect(existsSync(join(bed.repo, "started"))).toBe(false);
        // The call it is asked on was drawn first, and ends refused.
        const trustCall = acp
            .toolCalls(sessionId)
            .find((c) => c.toolCallId === asked?.request.toolCall.toolCallId);
        expect(trustCall).toMatchObject({
            title: "Trust this project's configuration",
            status: "failed",
        });
    });

    it("trusted once in the editor, its hook runs", async () => {
        withHook();
        bed.server.enqueue({ text: "Hi." });
        const acp = await bed.start({ permissions: ["allow_once"] });
        await acp.initialize();
        const { sessionId } = await acp.newSession(bed.repo);
        await acp.prompt(sessionId, "hello");
        expect(acp.permissionRequests).toHaveLength(1);
        expect(acp.toolCalls(sessionId)[0]).toMatchObject({ status: "completed" });
        expect(existsSync(join(bed.repo, "started"))).toBe(true);
    });

    it("with north acp --trust, nothing is asked and its hook runs", async () => {
        withHook();
        bed.server.enqueue({ text: "Hi." });
        const acp = await bed.start({ args: ["--trust"] });
        await acp.initialize();
        const { sessionId } = await acp.newSession(bed.repo);
        await acp.prompt(sessionId, "hello");
        expect(acp.permissionRequests).toHaveLength(0);
        expect(existsSync(join(bed.repo, "started"))).toBe(true);
    });
});

describe("a session's prompts and directories", () => {
    it("takes one prompt at a time: a second while one runs is an error, and the first still answers", async () => {
        bed.server.enqueue({
            toolCalls: [{ id: "toolu_ls", name: "shell_run", input: { command: "ls" } }],
        });
        const acp = await bed.start({ permissions: ["hold"] });
        await acp.initialize();
        const { sessionId } = await acp.newSession(bed.repo);
        const first = acp.prompt(sessionId, "list the files");
        await acp.waitForPermissionRequest(1);
        await expect(acp.prompt(sessionId, "and another thing")).rejects.toMatchObject({
            code: -32600,
        });
        await acp.cancel(sessionId);
        expect((await first).stopReason).toBe("cancelled");
    });

    it("additionalDirectories are readable like --add-dir, and one that does not exist is refused", async () => {
        const extra = join(bed.home, "shared-docs");
        mkdirSync(extra);
        writeFileSync(join(extra, "guide.md"), "use tabs\n");
        bed.server.enqueue(
            { toolCalls: [{ name: "read_file", input: { path: join(extra, "guide.md") } }] },
            { text: "Tabs." }
        );
        const acp = await bed.start();
        await acp.initialize();
        const { sessionId } = await acp.newSession(bed.repo, { additionalDirectories: [extra] });
        await acp.prompt(sessionId, "what does the guide say?");
        expect(acp.toolCalls(sessionId)[0]).toMatchObject({ status: "completed" });
        expect(JSON.stringify(bed.server.requests[1]!.body)).toContain("use tabs");
        await expect(
            acp.newSession(bed.repo, { additionalDirectories: [join(bed.home, "missing")] })
        ).rejects.toMatchObject({ code: -32602 });
    });
});
