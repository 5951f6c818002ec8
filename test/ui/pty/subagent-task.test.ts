/**
 * A `task` subagent in the chat: its entry shows the child's steps while it
 * runs, and Ctrl+C during it cancels the run without losing the conversation.
 * Needs `npm run build` first.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 30_000;

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

const child = (body: string): boolean =>
    body.includes("You are a subagent doing one task") && body.includes("TASK-C");

describe("a subagent task in the chat", () => {
    it(
        "shows the child's steps, and Ctrl+C cancels it while the chat carries on",
        async () => {
            session = await startNorthSession({ files: { "app.ts": "export const a = 1;\n" } });
            const { north, server, submit } = session;
            server.enqueue(
                {
                    toolCalls: [
                        {
                            id: "t1",
                            name: "task",
                            input: { description: "survey the app", prompt: "TASK-C: look" },
                        },
                    ],
                },
                { when: child, toolCalls: [{ name: "read_file", input: { path: "app.ts" } }] },
                { when: child, fault: "stall", ms: 60_000 }
            );
            await submit("survey it");
            await north.waitForText("task: survey the app");
            // The child read the file and its next request is in flight.
            await north.waitForText("↳");
            await north.waitFor(
                () => server.requests.length === 3,
                10_000,
                "the child's 2nd request"
            );
            expect(north.screenText()).toContain("app.ts");
            north.type("\x03");
            await north.waitForText("[Cancelled]");
            expect(north.hasExited()).toBe(false);

            server.enqueue({ text: "The survey was stopped." });
            await submit("what happened?");
            await north.waitForText("The survey was stopped.");
            const last = JSON.stringify(server.requests.at(-1)!.body);
            expect(last).toContain("the task was cancelled by the user");
            expect(last).toContain("what happened?");
        },
        TIMEOUT
    );
});
