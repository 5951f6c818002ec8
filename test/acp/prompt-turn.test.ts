/**
 * A prompt turn as the editor sees it: streamed text and thoughts, each tool
 * call with its kind, title, location and content (a native diff for an edit,
 * the output for a command), todo_write as a plan, the attachments the user
 * gave reaching the model, and a stop reason per turn.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { useAcpTestbed } from "../kit/acp-testbed";
import { anthropicToolResultTexts } from "../kit/fake-llm-server";
import { pngImage } from "../kit/images";

const RETRY = "export function retry() {\n    const attempts = 3;\n    return attempts;\n}\n";
const bed = useAcpTestbed({ "src/retry.ts": RETRY, "README.md": "# demo\n" });

describe("text", () => {
    it("streams the answer as agent_message_chunk and thinking as agent_thought_chunk, ending end_turn", async () => {
        bed.server.enqueue({
            thinking: { text: "The user greets me.", signature: "sig-1" },
            text: "Hello from North, ready to help.",
        });
        const { acp, sessionId } = await bed.session();
        const answer = await acp.prompt(sessionId, "hi");
        expect(answer.stopReason).toBe("end_turn");
        expect(acp.text(sessionId)).toBe("Hello from North, ready to help.");
        const thoughts = acp
            .updates(sessionId)
            .map((u) =>
                u.sessionUpdate === "agent_thought_chunk" && u.content.type === "text"
                    ? u.content.text
                    : ""
            )
            .join("");
        expect(thoughts).toBe("The user greets me.");
        const sent = JSON.stringify(bed.server.requests[0]!.body);
        expect(sent).toContain("hi");
    });

    it("answers max_tokens when the model stops at its output limit", async () => {
        bed.server.enqueue({ text: "This answer was cut", stopReason: "max_tokens" });
        const { acp, sessionId } = await bed.session();
        const answer = await acp.prompt(sessionId, "write a long essay");
        expect(answer.stopReason).toBe("max_tokens");
        expect(acp.text(sessionId)).toContain("This answer was cut");
    });
    it("answers refusal when the model declines", async () => {
        bed.server.enqueue({ text: "I can't help with that.", stopReason: "refusal" });
        const { acp, sessionId } = await bed.session();
        const answer = await acp.prompt(sessionId, "do something it refuses");
        expect(answer.stopReason).toBe("refusal");
    });
});

describe("tool calls", () => {
    it("shows a read as a completed read call with its file and line, so the editor can follow", async () => {
        bed.server.enqueue(
            {
                toolCalls: [
                    {
                        id: "toolu_read",
                        name: "read_file",
                        input: { path: "src/retry.ts", range: { start: 2 } },
                    },
                ],
            },
            { text: "It retries three times." }
        );
        const { acp, sessionId } = await bed.session();
        expect((await acp.prompt(sessionId, "how often does it retry?")).stopReason).toBe(
            "end_turn"
        );
        const [read] = acp.toolCalls(sessionId);
        expect(read).toMatchObject({
            toolCallId: expect.any(String),
            kind: "read",
            status: "completed",
        });
        expect(read!.title).toContain("src/retry.ts");
        expect(read!.locations).toContainEqual(
            expect.objectContaining({ path: join(bed.repo, "src/retry.ts"), line: 2 })
        );
        // The model got the file.
        expect(anthropicToolResultTexts(bed.server.requests[1]!)[0]).toContain(
            "const attempts = 3;"
        );
        // The tool call was announced before it completed.
        const first = acp.updates(sessionId).find((u) => u.sessionUpdate === "tool_call");
        expect(first).toMatchObject({ sessionUpdate: "tool_call", toolCallId: read!.toolCallId });
        expect(acp.text(sessionId)).toBe("It retries three times.");
    });

    it("asks before an edit, then shows it as a diff with the old and new text, and the file changes", async () => {
        bed.server.enqueue(
            {
                toolCalls: [
                    {
                        id: "toolu_edit",
                        name: "edit_replace_exact",
                        input: {
                            path: "src/retry.ts",
                            old_text: "const attempts = 3;",
                            new_text: "const attempts = 5;",
                        },
                    },
                ],
            },
            { text: "Now it retries five times." }
        );
        const { acp, sessionId } = await bed.session({ permissions: ["allow_once"] });
        expect((await acp.prompt(sessionId, "retry five times")).stopReason).toBe("end_turn");

        expect(acp.permissionRequests).toHaveLength(1);
        const asked = acp.permissionRequests[0]!;
        expect(asked.request.sessionId).toBe(sessionId);
        const kinds = asked.request.options.map((o) => o.kind);
        expect(kinds[0]).toBe("allow_once");
        expect(kinds).toContain("reject_once");
        const [edit] = acp.toolCalls(sessionId);
        // The request concerns the edit's own tool call, already shown, so the editor draws the buttons on it.
        expect(asked.request.toolCall.toolCallId).toBe(edit!.toolCallId);
        const shownBefore = acp.updates(sessionId).slice(0, asked.updatesBefore);
        expect(shownBefore).toContainEqual(
            expect.objectContaining({ sessionUpdate: "tool_call", toolCallId: edit!.toolCallId })
        );
        // The user sees the diff while deciding.
        const proposed = JSON.stringify([asked.request.toolCall, ...shownBefore]);
        expect(proposed).toContain('"type":"diff"');
        expect(proposed).toContain("const attempts = 5;");
        expect(edit).toMatchObject({ kind: "edit", status: "completed" });
        const diff = edit!.content?.find((c) => c.type === "diff");
        expect(diff).toMatchObject({ type: "diff", path: join(bed.repo, "src/retry.ts") });
        expect(diff).toMatchObject({ oldText: RETRY, newText: RETRY.replace("= 3;", "= 5;") });
        expect(edit!.locations?.[0]).toMatchObject({
            path: join(bed.repo, "src/retry.ts"),
            line: 2,
        });
        expect(readFileSync(join(bed.repo, "src/retry.ts"), "utf8")).toBe(
            RETRY.replace("= 3;", "= 5;")
        );
    });

    it("shows a command as an execute call with its output", async () => {
        bed.server.enqueue(
            {
                toolCalls: [
                    {
                        id: "toolu_shell",
                        name: "shell_run",
                        input: { command: "echo hello-from-shell" },
                    },
                ],
            },
            { text: "It printed the greeting." }
        );
        const { acp, sessionId } = await bed.session({ permissions: ["allow_once"] });
        expect((await acp.prompt(sessionId, "say hello in the shell")).stopReason).toBe("end_turn");
        const [command] = acp.toolCalls(sessionId);
        expect(command).toMatchObject({ kind: "execute", status: "completed" });
        expect(command!.title).toContain("echo hello-from-shell");
        expect(JSON.stringify(command!.content)).toContain("hello-from-shell");
        expect(acp.permissionRequests[0]!.request.toolCall.toolCallId).toBe(command!.toolCallId);
        expect(anthropicToolResultTexts(bed.server.requests[1]!)[0]).toContain("hello-from-shell");
    });

    it("shows a read that fails as a failed call", async () => {
        bed.server.enqueue(
            {
                toolCalls: [
                    { id: "toolu_fail", name: "read_file", input: { path: "src/missing.ts" } },
                ],
            },
            { text: "There is no such file." }
        );
        const { acp, sessionId } = await bed.session();
        await acp.prompt(sessionId, "read the missing file");
        const [read] = acp.toolCalls(sessionId);
        expect(read).toMatchObject({ kind: "read", status: "failed" });
    });

    it("sends todo_write as a plan with each entry's status", async () => {
        bed.server.enqueue(
            {
                toolCalls: [
                    {
                        id: "toolu_todo",
                        name: "todo_write",
                        input: {
                            items: [
                                { content: "Read the retry code", status: "done" },
                                { content: "Raise the attempts", status: "in_progress" },
                                { content: "Run the tests", status: "pending" },
                            ],
                        },
                    },
                ],
            },
            { text: "Planned." }
        );
        const { acp, sessionId } = await bed.session();
        await acp.prompt(sessionId, "plan the change");
        const plan = await acp.waitForUpdate(sessionId, (u) => u.sessionUpdate === "plan");
        expect(plan).toMatchObject({
            sessionUpdate: "plan",
            entries: [
                { content: "Read the retry code", status: "completed" },
                { content: "Raise the attempts", status: "in_progress" },
                { content: "Run the tests", status: "pending" },
            ],
        });
    });
});

describe("what the user attaches", () => {
    it("keeps an attached file a Read rule denies from the model, and tells the user", async () => {
        mkdirSync(join(bed.home, "config"), { recursive: true });
        writeFileSync(
            join(bed.home, "config", "config.json"),
            JSON.stringify({ permissions: { deny: ["Read(.env)"] } })
        );
        bed.server.enqueue({ text: "Noted." });
        const { acp, sessionId } = await bed.session();
        const prompt: ContentBlock[] = [
            { type: "text", text: "check my settings" },
            {
                type: "resource",
                resource: { uri: `file://${join(bed.repo, ".env")}`, text: "API_TOKEN=hunter2" },
            },
        ];
        expect((await acp.prompt(sessionId, prompt)).stopReason).toBe("end_turn");
        const sent = JSON.stringify(bed.server.requests[0]!.body);
        expect(sent).toContain("check my settings");
        expect(sent).not.toContain("hunter2");
        expect(acp.text(sessionId)).toContain("Read(.env)");
    });

    it("passes embedded resources, resource links and images to the model", async () => {
        bed.server.enqueue({ text: "Seen them all." });
        const { acp, sessionId } = await bed.session();
        const png = pngImage(2, 2).toString("base64");
        const prompt: ContentBlock[] = [
            { type: "text", text: "compare these" },
            {
                type: "resource",
                resource: {
                    uri: `file://${join(bed.repo, "notes.md")}`,
                    mimeType: "text/markdown",
                    text: "UNSAVED-NOTES-TEXT",
                },
            },
            {
                type: "resource_link",
                uri: `file://${join(bed.repo, "src/retry.ts")}`,
                name: "retry.ts",
            },
            { type: "image", mimeType: "image/png", data: png },
        ];
        expect((await acp.prompt(sessionId, prompt)).stopReason).toBe("end_turn");
        const sent = JSON.stringify(bed.server.requests[0]!.body);
        expect(sent).toContain("compare these");
        expect(sent).toContain("UNSAVED-NOTES-TEXT");
        expect(sent).toContain("src/retry.ts");
        expect(sent).toContain(png);
    });

    it("sends a prompt of only an image without an empty text block, which the API refuses", async () => {
        bed.server.enqueue({ text: "A small square." });
        const { acp, sessionId } = await bed.session();
        const png = pngImage(2, 2).toString("base64");
        const answer = await acp.prompt(sessionId, [
            { type: "image", mimeType: "image/png", data: png },
        ]);
        expect(answer.stopReason).toBe("end_turn");
        expect(acp.text(sessionId)).toBe("A small square.");
        const body = bed.server.requests[0]!.body as {
            messages: Array<{ content: Array<{ type: string }> }>;
        };
        expect(body.messages[0]!.content.map((b) => b.type)).toEqual(["image"]);
    });
});

describe("turns", () => {
    it("reports the context used, its size and the cost after a turn, and titles the session once", async () => {
        bed.server.enqueue(
            { text: "One.", usage: { input: 1200, output: 30 } },
            { text: "Two.", usage: { input: 1500, output: 40 } }
        );
        const { acp, sessionId } = await bed.session();
        await acp.prompt(sessionId, "count to one");
        // The last figure of the turn: what the model was sent and what it cost.
        const usage = acp
            .updates(sessionId)
            .filter((u) => u.sessionUpdate === "usage_update")
            .at(-1);
        if (usage?.sessionUpdate !== "usage_update") throw new Error("no usage_update");
        expect(usage.used).toBeGreaterThan(0);
        expect(usage.size).toBeGreaterThan(usage.used);
        expect(usage.cost).toMatchObject({ currency: "USD" });
        expect(usage.cost!.amount).toBeGreaterThan(0);
        await acp.prompt(sessionId, "and to two");
        const titles = acp
            .updates(sessionId)
            .filter((u) => u.sessionUpdate === "session_info_update");
        expect(titles).toHaveLength(1);
        expect(titles[0]).toMatchObject({ title: expect.stringContaining("count to one") });
        const after = acp
            .updates(sessionId)
            .filter((u) => u.sessionUpdate === "usage_update")
            .at(-1);
        if (after?.sessionUpdate !== "usage_update") throw new Error("no usage_update");
        expect(after.cost!.amount).toBeGreaterThan(usage.cost!.amount);
    });

    it("answers max_turn_requests when the model keeps calling tools past North's turn limit", async () => {
        // North's limit is 100 model turns per prompt (agent/run-state.ts DEFAULT_MAX_TURNS).
        const turns = Array.from({ length: 100 }, (_, i) => ({
            toolCalls: [{ id: `toolu_${i}`, name: "list_root", input: {} }],
        }));
        bed.server.enqueue(...turns);
        const { acp, sessionId } = await bed.session();
        const answer = await acp.prompt(sessionId, "look around forever");
        expect(answer.stopReason).toBe("max_turn_requests");
        expect(bed.server.requests).toHaveLength(100);
        // The calls North ran completed; the last one, past the limit, never ran and is not left spinning.
        const calls = acp.toolCalls(sessionId);
        expect(calls).toHaveLength(100);
        expect(calls.slice(0, 99).every((c) => c.status === "completed")).toBe(true);
        expect(calls[99]!.status).toBe("failed");
    });

    it("keeps the conversation across two prompts of one session", async () => {
        bed.server.enqueue({ text: "First answer." }, { text: "Second answer." });
        const { acp, sessionId } = await bed.session();
        await acp.prompt(sessionId, "first question");
        await acp.prompt(sessionId, "second question");
        const second = JSON.stringify(bed.server.requests[1]!.body);
        expect(second).toContain("first question");
        expect(second).toContain("First answer.");
        expect(second).toContain("second question");
        expect(acp.text(sessionId)).toContain("First answer.");
        expect(acp.text(sessionId)).toContain("Second answer.");
    });
});
