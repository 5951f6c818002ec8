/**
 * `north acp` sessions as an editor sees them, driven by the SDK's own client
 * against the built CLI: a session is an ordinary North conversation (saved
 * from its first prompt, listed by `north list`, resumable), with its modes,
 * its model option and errors for what does not exist.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RequestError } from "@agentclientprotocol/sdk";
import { createConversationStore } from "../../src/storage/conversations";
import { useAcpTestbed } from "../kit/acp-testbed";
import { runNorth } from "../kit/run-north";

const bed = useAcpTestbed({ "notes.txt": "remember the milk\n" });

async function editor(options: { env?: NodeJS.ProcessEnv; args?: string[] } = {}) {
    const acp = await bed.start(options);
    await acp.initialize();
    return acp;
}

function conversationFiles(): string[] {
    return readdirSync(join(bed.home, "data", "conversations")).filter((f) => f.endsWith(".jsonl"));
}

async function rejection(promise: Promise<unknown>): Promise<RequestError> {
    try {
        await promise;
    } catch (error) {
        return error as RequestError;
    }
    throw new Error("expected a JSON-RPC error");
}

describe("north acp sessions", () => {
    it("says honestly what it offers at initialize", async () => {
        const acp = await bed.start();
        const init = await acp.initialize({ protocolVersion: 7 });
        expect(init.protocolVersion).toBe(1);
        expect(init.agentInfo).toMatchObject({ name: "north", title: "North" });
        expect(init.agentCapabilities).toMatchObject({
            loadSession: true,
            promptCapabilities: { image: true, audio: false, embeddedContext: true },
            mcpCapabilities: { http: true },
        });
        expect(init.agentCapabilities?.sessionCapabilities?.delete ?? undefined).toBeUndefined();
        expect(init.authMethods?.[0]?.description).toContain("ANTHROPIC_API_KEY");
        await acp.close();
    });

    it("a new session is a North conversation saved from its first prompt, seen by north list", async () => {
        bed.server.enqueue({ text: "It says milk." });
        const acp = await editor();
        const { sessionId, modes, configOptions } = await acp.newSession(bed.repo);
        expect(modes?.currentModeId).toBe("agent");
        expect(modes?.availableModes.map((m) => m.id)).toEqual([
            "ask",
            "agent",
            "accept-edits",
            "plan",
        ]);
        expect(configOptions?.[0]).toMatchObject({ id: "model", category: "model" });
        // Nothing is saved before the first prompt.
        expect(() => conversationFiles()).toThrow();

        const answer = await acp.prompt(sessionId, "what do the notes say?");
        expect(answer.stopReason).toBe("end_turn");
        expect(acp.text(sessionId)).toBe("It says milk.");
        const kinds = acp.updates(sessionId).map((u) => u.sessionUpdate);
        expect(kinds).toContain("usage_update");
        expect(acp.updates(sessionId)).toContainEqual(
            expect.objectContaining({
                sessionUpdate: "session_info_update",
                title: "what do the notes say?",
            })
        );
        expect(conversationFiles()).toEqual([`${sessionId}.jsonl`]);
        await acp.close();

        const listed = await runNorth(["list"], { env: bed.env, cwd: bed.repo });
        expect(listed.stdout).toContain(sessionId);
        expect(listed.stdout).toContain("what do the notes say?");
    });

    it("lists, resumes and closes sessions; the resumed one continues the conversation", async () => {
        bed.server.enqueue({ text: "first answer" });
        const first = await editor();
        const { sessionId } = await first.newSession(bed.repo);
        await first.prompt(sessionId, "shared start");
        await first.close();

        const acp = await editor();
        const listed = await acp.agent.request("session/list", { cwd: bed.repo });
        expect(listed.sessions).toEqual([
            expect.objectContaining({ sessionId, title: "shared start", cwd: expect.any(String) }),
        ]);
        const other = mkdtempSync(join(tmpdir(), "north-acp-other-"));
        const elsewhere = await acp.agent.request("session/list", { cwd: other });
        expect(elsewhere.sessions).toEqual([]);
        rmSync(other, { recursive: true, force: true });

        const resumed = await acp.agent.request("session/resume", {
            sessionId,
            cwd: bed.repo,
            mcpServers: [],
        });
        expect(resumed.modes?.currentModeId).toBe("agent");
        bed.server.enqueue({ text: "second answer" });
        const answer = await acp.prompt(sessionId, "and now?");
        expect(answer.stopReason).toBe("end_turn");
        const sent = JSON.stringify(bed.server.requests.at(-1)!.body);
        expect(sent).toContain("shared start");
        expect(sent).toContain("first answer");
        expect(sent).toContain("and now?");
        expect(conversationFiles()).toEqual([`${sessionId}.jsonl`]);

        await acp.agent.request("session/close", { sessionId });
        const closed = await rejection(acp.prompt(sessionId, "still there?"));
        expect(closed.code).toBe(-32002);
        await acp.close();
    });

    it("session/list pages through many conversations with a cursor, each listed once", async () => {
        const store = createConversationStore(join(bed.home, "data", "conversations"));
        for (let n = 1; n <= 55; n++) {
            store.start({ repoRoot: bed.repo, model: "m", firstPrompt: `prompt ${n}` }).close();
        }
        const acp = await editor();
        const first = await acp.agent.request("session/list", { cwd: bed.repo });
        expect(first.sessions).toHaveLength(50);
        expect(first.nextCursor).toEqual(expect.any(String));
        const second = await acp.agent.request("session/list", {
            cwd: bed.repo,
            cursor: first.nextCursor,
        });
        expect(second.sessions).toHaveLength(5);
        expect(second.nextCursor ?? undefined).toBeUndefined();
        const ids = [...first.sessions, ...second.sessions].map((s) => s.sessionId);
        expect(new Set(ids).size).toBe(55);
        const bad = await rejection(
            acp.agent.request("session/list", { cwd: bed.repo, cursor: "not-ours" })
        );
        expect(bad.code).toBe(-32602);
        await acp.close();
    });

    it("a conversation open in another North process is continued in a fork, and the editor is told", async () => {
        bed.server.enqueue({ text: "first answer" });
        const first = await editor();
        const { sessionId } = await first.newSession(bed.repo);
        await first.prompt(sessionId, "shared start");
        await first.close();

        // Another process holds the conversation (as the chat does while it is open).
        const holder = await editor();
        await holder.agent.request("session/resume", { sessionId, cwd: bed.repo, mcpServers: [] });

        const acp = await editor();
        await acp.agent.request("session/resume", { sessionId, cwd: bed.repo, mcpServers: [] });
        const told = acp.text(sessionId);
        expect(told).toContain(`Conversation ${sessionId} is open in another North process`);
        const forkId = /conversation ([0-9a-f]{6})\./.exec(told)?.[1];
        expect(forkId).toBeDefined();
        expect(forkId).not.toBe(sessionId);

        bed.server.enqueue({ text: "in the fork" });
        expect((await acp.prompt(sessionId, "from the editor")).stopReason).toBe("end_turn");
        const forkLog = readFileSync(
            join(bed.home, "data", "conversations", `${forkId}.jsonl`),
            "utf8"
        );
        expect(forkLog).toContain("from the editor");
        const original = readFileSync(
            join(bed.home, "data", "conversations", `${sessionId}.jsonl`),
            "utf8"
        );
        expect(original).not.toContain("from the editor");
        await acp.close();
        await holder.close();
    });

    it("session/load of an untrusted project answers first; trust is asked at the next prompt", async () => {
        mkdirSync(join(bed.repo, ".north"), { recursive: true });
        writeFileSync(
            join(bed.repo, ".north", "settings.json"),
            JSON.stringify({
                hooks: {
                    SessionStart: [{ hooks: [{ type: "command", command: "touch started" }] }],
                },
            })
        );
        bed.server.enqueue(
            { toolCalls: [{ id: "toolu_read", name: "read_file", input: { path: "notes.txt" } }] },
            { text: "It says milk." },
            { text: "Still milk." }
        );
        // Trusted for that process only: a new one asks again.
        const first = await editor({ args: ["--trust"] });
        const { sessionId } = await first.newSession(bed.repo);
        await first.prompt(sessionId, "what does notes.txt say?");
        await first.close();
        rmSync(join(bed.repo, "started"));

        const acp = await bed.start({ permissions: ["allow_once"] });
        await acp.initialize();
        await acp.agent.request("session/load", { sessionId, cwd: bed.repo, mcpServers: [] });
        // Answered without a question, and nothing of the project's configuration ran.
        expect(acp.permissionRequests).toHaveLength(0);
        expect(readdirSync(bed.repo)).not.toContain("started");
        // Replayed with the built-in tool's own title.
        expect(acp.toolCalls(sessionId)[0]).toMatchObject({
            kind: "read",
            status: "completed",
            title: expect.stringContaining("notes.txt"),
        });

        expect((await acp.prompt(sessionId, "and now?")).stopReason).toBe("end_turn");
        expect(acp.permissionRequests).toHaveLength(1);
        expect(acp.permissionRequests[0]!.request.toolCall.title).toBe(
            "Trust this project's configuration"
        );
        expect(readdirSync(bed.repo)).toContain("started");
        expect(acp.text(sessionId)).toContain("Still milk.");
    });

    it("set_mode answers with current_mode_update and the next prompt runs in that mode", async () => {
        bed.server.enqueue({ text: "read only" });
        const acp = await editor();
        const { sessionId } = await acp.newSession(bed.repo);
        await acp.agent.request("session/set_mode", { sessionId, modeId: "ask" });
        await acp.waitForUpdate(
            sessionId,
            (u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "ask"
        );
        await acp.prompt(sessionId, "look around");
        const tools = (bed.server.requests.at(-1)!.body as { tools?: Array<{ name: string }> })
            .tools;
        const names = (tools ?? []).map((t) => t.name);
        expect(names).toContain("read_file");
        expect(names).not.toContain("shell_run");
        const bad = await rejection(
            acp.agent.request("session/set_mode", { sessionId, modeId: "yolo" })
        );
        expect(bad.code).toBe(-32602);
        await acp.close();
    });

    it("the model is a config option: switching it changes the model asked; unknown ones are refused", async () => {
        const acp = await editor();
        const { sessionId, configOptions } = await acp.newSession(bed.repo);
        const option = configOptions?.[0];
        if (option?.type !== "select") throw new Error("the model option is a select");
        const values = (option.options as Array<{ value: string }>).map((o) => o.value);
        const other = values.find((v) => v !== option.currentValue);
        expect(other).toBeDefined();
        const switched = await acp.agent.request("session/set_config_option", {
            sessionId,
            configId: "model",
            value: other!,
        });
        expect(switched.configOptions[0]).toMatchObject({ currentValue: other });
        bed.server.enqueue({ text: "from the other model" });
        await acp.prompt(sessionId, "hello");
        expect((bed.server.requests.at(-1)!.body as { model: string }).model).toBe(
            other!.replace(/-thinking$/, "")
        );
        // A `/model` prompt switches too, and the editor's option follows.
        const first = option.currentValue;
        await acp.prompt(sessionId, `/model ${first}`);
        const followed = await acp.waitForUpdate(
            sessionId,
            (u) => u.sessionUpdate === "config_option_update"
        );
        expect(followed).toMatchObject({ configOptions: [{ id: "model", currentValue: first }] });
        const unknown = await rejection(
            acp.agent.request("session/set_config_option", {
                sessionId,
                configId: "model",
                value: "no-such-model",
            })
        );
        expect(unknown.code).toBe(-32602);
        const wrongOption = await rejection(
            acp.agent.request("session/set_config_option", {
                sessionId,
                configId: "temperature",
                value: "hot",
            })
        );
        expect(wrongOption.code).toBe(-32602);
        await acp.close();
    });

    it("advertises the slash commands after session/new, the project's Markdown commands too, and runs one as a prompt", async () => {
        mkdirSync(join(bed.repo, ".north", "commands"), { recursive: true });
        writeFileSync(
            join(bed.repo, ".north", "commands", "summarize-notes.md"),
            "---\ndescription: Summarize the notes file\n---\nSummarize notes.txt in one line.\n"
        );
        const acp = await editor();
        const { sessionId } = await acp.newSession(bed.repo);
        const advertised = await acp.waitForUpdate(
            sessionId,
            (u) => u.sessionUpdate === "available_commands_update"
        );
        if (advertised.sessionUpdate !== "available_commands_update")
            throw new Error("unreachable");
        const names = advertised.availableCommands.map((c) => c.name);
        expect(names).toContain("summarize-notes");
        expect(names).not.toContain("quit");

        bed.server.enqueue({ text: "Milk." });
        expect((await acp.prompt(sessionId, "/summarize-notes")).stopReason).toBe("end_turn");
        expect(JSON.stringify(bed.server.requests.at(-1)!.body)).toContain(
            "Summarize notes.txt in one line."
        );
        await acp.close();
    });

    it("a session that does not exist is an error, never a crash", async () => {
        const acp = await editor();
        const prompt = await rejection(acp.prompt("abcdef", "hello"));
        expect(prompt.code).toBe(-32002);
        const mode = await rejection(
            acp.agent.request("session/set_mode", { sessionId: "abcdef", modeId: "ask" })
        );
        expect(mode.code).toBe(-32002);
        const resume = await rejection(
            acp.agent.request("session/resume", {
                sessionId: "abcdef",
                cwd: bed.repo,
                mcpServers: [],
            })
        );
        expect(resume.code).toBe(-32002);
        const relative = await rejection(acp.newSession("some/project"));
        expect(relative.code).toBe(-32602);
        expect(relative.message).toContain("absolute");
        await acp.agent.notify("session/cancel", { sessionId: "abcdef" });
        // Still serving.
        const { sessionId } = await acp.newSession(bed.repo);
        expect(sessionId).toMatch(/^[0-9a-f]{6}$/);
        await acp.close();
    });

    it("without a provider key, authenticate and session/new say which variable to set", async () => {
        const { ANTHROPIC_API_KEY: _unused, ...noKey } = bed.env;
        const acp = await editor({ env: noKey });
        const auth = await rejection(acp.agent.request("authenticate", { methodId: "api-key" }));
        expect(auth.code).toBe(-32000);
        expect(auth.message).toContain("ANTHROPIC_API_KEY");
        const session = await rejection(acp.newSession(bed.repo));
        expect(session.code).toBe(-32000);
        expect(session.message).toContain("ANTHROPIC_API_KEY");
        await acp.close();
    });

    it("refuses flags that mean nothing to an editor, on stderr with exit 2", async () => {
        const run = await runNorth(["acp", "--allow-shell"], { env: bed.env, input: "" });
        expect(run.code).toBe(2);
        expect(run.stdout).toBe("");
        expect(run.stderr).toContain("--allow-shell");
    });
});
