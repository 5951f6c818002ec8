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
