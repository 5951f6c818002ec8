/**
 * `session/load` draws a saved conversation again (issue 34, part 2): the
 * user's prompts and images, the model's text and thinking, each tool call
 * once with its result's status, title, kind, locations and content, the
 * to-do list as a plan, in the order they happened.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { replayUpdates } from "../../src/cli/acp/replay";
import type { Message } from "../../src/providers/types";
import { builtinDisplays } from "../ui/helpers";
import { invalidOf } from "../kit/acp-schema";
import { createViewRecorder } from "../../src/agent/conversation-log";
import type { EngineEvent } from "../../src/agent/events";
import type { ConversationLog } from "../../src/storage/conversations";
import { computeFileDiff } from "../../src/tools/editing/diff";

const deps = { repoRoot: "/home/me/project", toolDisplays: builtinDisplays };

function call(id: string, name: string, input: unknown) {
    return { type: "tool_call" as const, id, name, input, rawInput: JSON.stringify(input) };
}

function result(toolCallId: string, content: string, isError = false) {
    return { type: "tool_result" as const, toolCallId, content, isError };
}

/** Each update as one short line: what the editor would draw, in order. */
function outline(updates: SessionUpdate[]): string[] {
    return updates.map((u) => {
        switch (u.sessionUpdate) {
            case "user_message_chunk":
            case "agent_message_chunk":
            case "agent_thought_chunk":
                return `${u.sessionUpdate}: ${u.content.type === "text" ? u.content.text : u.content.type}`;
            case "tool_call":
                return `tool_call ${u.toolCallId} ${u.kind} ${u.status} ${u.title}`;
            case "plan":
                return `plan ${u.entries.map((e) => `${e.content}=${e.status}`).join(", ")}`;
            default:
                return u.sessionUpdate;
        }
    });
}

const conversation: Message[] = [
    {
        role: "user",
        content: [
            { type: "text", text: "Why does the build fail?" },
            {
                type: "image",
                mediaType: "image/png",
                data: "iVBORw0KGgo=",
                name: "error.png",
                bytes: 8,
            },
        ],
    },
    {
        role: "assistant",
        content: [
            { type: "thinking", thinking: "Check the config first.", signature: "sig" },
            { type: "text", text: "Let me look." },
            call("t1", "read_file", { path: "tsconfig.json", range: { start: 3 } }),
            call("t2", "shell_run", { command: "npm run build" }),
            call("t3", "todo_write", {
                items: [
                    { content: "Fix tsconfig", status: "in_progress" },
                    { content: "Rebuild", status: "pending" },
                ],
            }),
        ],
    },
    {
        role: "user",
        content: [
            result("t1", '{"content":"3: \\"strict\\": true"}'),
            result("t2", "exit 2: error TS2322", true),
            result("t3", "2 items"),
            { type: "text", text: "[North] a note for the model" },
        ],
    },
    {
        role: "assistant",
        content: [
            call("t4", "edit_replace_exact", { path: "src/a.ts", old_text: "a", new_text: "b" }),
        ],
    },
    // The conversation was saved while t4 waited: it has no result.
    { role: "user", content: "Carry on" },
    { role: "assistant", content: [{ type: "text", text: "Checking." }] },
    // North's own messages to the model are not the user's.
    {
        role: "user",
        content: [
            { type: "text", text: "[North] NORTH_FILE a.md: written (2 lines) and accepted." },
        ],
    },
    { role: "user", content: "[Stop hook] the tests are not run yet" },
    { role: "assistant", content: [{ type: "text", text: "Done." }] },
];

describe("replaying a saved conversation", () => {
    it("draws every message and call once, oldest first, as the protocol defines them", () => {
        const updates = replayUpdates(conversation, deps);
        expect(invalidOf("SessionUpdate", updates)).toEqual([]);
        expect(outline(updates)).toEqual([
            "user_message_chunk: Why does the build fail?",
            "user_message_chunk: image",
            "agent_thought_chunk: Check the config first.",
            "agent_message_chunk: Let me look.",
            "tool_call t1 read completed Reading tsconfig.json",
            "tool_call t2 execute failed Running npm run build",
            "tool_call t3 think completed Updating the to-do list",
            "plan Fix tsconfig=in_progress, Rebuild=pending",
            "tool_call t4 edit failed Editing src/a.ts",
            "user_message_chunk: Carry on",
            "agent_message_chunk: Checking.",
            "agent_message_chunk: Done.",
        ]);
    });

    it("a call keeps its locations, input and bounded result; an image keeps its bytes", () => {
        const updates = replayUpdates(conversation, deps);
        expect(updates[1]).toEqual({
            sessionUpdate: "user_message_chunk",
            content: { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        });
        const read = updates.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "t1");
        expect(read).toMatchObject({
            locations: [{ path: "/home/me/project/tsconfig.json", line: 3 }],
            rawInput: { path: "tsconfig.json", range: { start: 3 } },
        });
        const command = updates.find(
            (u) => u.sessionUpdate === "tool_call" && u.toolCallId === "t2"
        );
        const text = JSON.stringify(command);
        expect(text).toContain("$ npm run build");
        expect(text).toContain("error TS2322");
    });

    it("a NORTH_FILE block is the edit it was, not the file's text", () => {
        const updates = replayUpdates(
            [
                {
                    role: "assistant",
                    content: [
                        {
                            type: "text",
                            text: 'Here it is.\n<NORTH_FILE path="docs/a.md">\n# A\nbody\n</NORTH_FILE>\nDone.',
                        },
                    ],
                },
            ],
            deps
        );
        expect(invalidOf("SessionUpdate", updates)).toEqual([]);
        expect(outline(updates)).toEqual([
            "agent_message_chunk: Here it is.\n",
            "tool_call nf-saved-0-0-0 edit completed Writing docs/a.md (2 lines)",
            "agent_message_chunk: Done.",
        ]);
        expect(updates[1]).toMatchObject({ locations: [{ path: "/home/me/project/docs/a.md" }] });
        expect(JSON.stringify(updates)).not.toContain("body");
    });

    it("a long result is cut and says so", () => {
        const updates = replayUpdates(
            [
                { role: "assistant", content: [call("big", "read_file", { path: "big.txt" })] },
                { role: "user", content: [result("big", "y".repeat(200_000))] },
            ],
            deps
        );
        const text = JSON.stringify(updates[0]);
        expect(text.length).toBeLessThan(20_000);
        expect(text).toMatch(/more characters not shown/);
    });

    it("a 10 000-message conversation replays in order, one update per saved text", () => {
        const messages: Message[] = [];
        for (let i = 0; i < 5000; i++) {
            messages.push({ role: "user", content: `question ${i}` });
            messages.push({ role: "assistant", content: [{ type: "text", text: `answer ${i}` }] });
        }
        const updates = replayUpdates(messages, deps);
        expect(updates).toHaveLength(10_000);
        expect(outline(updates.slice(-2))).toEqual([
            "user_message_chunk: question 4999",
            "agent_message_chunk: answer 4999",
        ]);
    });
});

/** The view records a session writes for `events`, through the real recorder. */
function viewOf(events: EngineEvent[]): Array<Record<string, unknown>> {
    const records: Array<Record<string, unknown>> = [];
    const log = {
        append(event: { type: string; record?: Record<string, unknown> }) {
            if (event.type === "view" && event.record) records.push(event.record);
            return { ok: true };
        },
    } as unknown as ConversationLog;
    const recorder = createViewRecorder(log, () => undefined);
    for (const event of events) recorder.onEvent(event);
    recorder.flush();
    return records;
}

async function appliedEdit(
    id: string,
    path: string,
    oldText: string | null,
    newText: string
): Promise<EngineEvent> {
    const diff = await computeFileDiff(path, oldText, newText, `${deps.repoRoot}/${path}`);
    return { type: "write_applied", toolCallId: id, toolName: "edit_replace_exact", diffs: [diff] };
}

const editAnswer = (path: string) =>
    JSON.stringify({ applied: true, files: [{ path, linesAdded: 1, linesRemoved: 1 }] });

function editTurn(id: string, path: string): Message[] {
    return [
        {
            role: "assistant",
            content: [call(id, "edit_replace_exact", { path, old_text: "1", new_text: "2" })],
        },
        { role: "user", content: [result(id, editAnswer(path))] },
    ];
}

describe("replaying applied edits", () => {
    it("an applied edit is the native diff its view record kept: whole old and new text, at the changed line", async () => {
        const view = viewOf([
            await appliedEdit(
                "e1",
                "src/a.ts",
                "const a = 1;\nconst b = 1;\n",
                "const a = 1;\nconst b = 2;\n"
            ),
        ]);
        const updates = replayUpdates(editTurn("e1", "src/a.ts"), deps, view);
        expect(invalidOf("SessionUpdate", updates)).toEqual([]);
        expect(updates).toEqual([
            expect.objectContaining({
                sessionUpdate: "tool_call",
                toolCallId: "e1",
                status: "completed",
                content: [
                    {
                        type: "diff",
                        path: "/home/me/project/src/a.ts",
                        oldText: "const a = 1;\nconst b = 1;\n",
                        newText: "const a = 1;\nconst b = 2;\n",
                    },
                ],
                locations: [{ path: "/home/me/project/src/a.ts", line: 2 }],
            }),
        ]);
    });

    it("without a kept diff (a log from before, or another call's) an edit reads as its files' line counts, not JSON", async () => {
        const other = viewOf([await appliedEdit("e1", "src/other.ts", "1\n", "2\n")]);
        for (const view of [[], other]) {
            const updates = replayUpdates(editTurn("e1", "src/a.ts"), deps, view);
            expect(updates[0]).toMatchObject({
                content: [{ type: "content", content: { type: "text", text: "src/a.ts +1 −1" } }],
            });
            expect(JSON.stringify(updates)).not.toContain("applied");
        }
    });

    it("a file too large to keep whole replays as its exact unified diff; one whose diff was cut says so", async () => {
        const big = "x\n".repeat(20_000);
        const bigEdit = await appliedEdit("e1", "big.txt", big, `${big}y\n`);
        const everyLine = await appliedEdit("e2", "all.txt", big, big.replaceAll("x", "z"));
        const view = viewOf([bigEdit, everyLine]);
        // What the log keeps of them stays small.
        expect(JSON.stringify(view).length).toBeLessThan(40_000);
        const updates = replayUpdates(
            [...editTurn("e1", "big.txt"), ...editTurn("e2", "all.txt")],
            deps,
            view
        );
        const [first, second] = updates.map((u) => JSON.stringify(u));
        expect(first).not.toContain('"type":"diff"');
        expect(first).toContain("+y");
        expect(second).toContain("-x");
        expect(second).toContain("the rest of this diff was not kept");
    });

    it("a call id used twice gets its own write: the latest writes go to the calls still in the conversation", async () => {
        // The first e1 was summarised away; its view record remains.
        const view = viewOf([
            await appliedEdit("e1", "src/old.ts", "1\n", "2\n"),
            await appliedEdit("e1", "src/a.ts", "3\n", "4\n"),
        ]);
        const updates = replayUpdates(editTurn("e1", "src/a.ts"), deps, view);
        expect(updates[0]).toMatchObject({
            content: [
                { type: "diff", path: "/home/me/project/src/a.ts", oldText: "3\n", newText: "4\n" },
            ],
        });
    });

    it("a NORTH_FILE block the engine accepted replays as its diff; one refused to the same file shows none", async () => {
        const block = (body: string) => ({
            role: "assistant" as const,
            content: [
                {
                    type: "text" as const,
                    text: `<NORTH_FILE path="docs/a.md">\n${body}\n</NORTH_FILE>`,
                },
            ],
        });
        const note = (text: string): Message => ({
            role: "user",
            content: [{ type: "text", text }],
        });
        const messages: Message[] = [
            block("# A"),
            note("[North] NORTH_FILE docs/a.md: written (1 lines) and accepted."),
            block("# B"),
            note(
                "[North] NORTH_FILE docs/a.md: rejected (no); nothing was written, the file is as it was before."
            ),
        ];
        const landed = await computeFileDiff(
            "docs/a.md",
            null,
            "# A\n",
            `${deps.repoRoot}/docs/a.md`
        );
        const view = viewOf([
            {
                type: "write_applied",
                toolCallId: "nf-1-0",
                toolName: "north_file",
                diffs: [landed],
            },
        ]);
        const updates = replayUpdates(messages, deps, view);
        expect(invalidOf("SessionUpdate", updates)).toEqual([]);
        expect(updates[0]).toMatchObject({
            toolCallId: "nf-saved-0-0-0",
            status: "completed",
            content: [
                {
                    type: "diff",
                    path: "/home/me/project/docs/a.md",
                    oldText: null,
                    newText: "# A\n",
                },
            ],
        });
        expect(updates[1]).not.toHaveProperty("content");
    });

    it("a 10 000-message conversation of edits replays each as its diff", async () => {
        const messages: Message[] = [];
        const events: EngineEvent[] = [];
        for (let i = 0; i < 5000; i++) {
            messages.push(...editTurn(`e${i}`, `src/f${i % 50}.ts`));
            events.push(await appliedEdit(`e${i}`, `src/f${i % 50}.ts`, `${i}\n`, `${i + 1}\n`));
        }
        const updates = replayUpdates(messages, deps, viewOf(events));
        expect(updates).toHaveLength(5000);
        expect(updates[4999]).toMatchObject({
            toolCallId: "e4999",
            content: [{ type: "diff", oldText: "4999\n", newText: "5000\n" }],
        });
    });
});
