/**
 * The model's to-do list pinned above the composer (updated by each
 * todo_write, shown again on resume, folded when all done) and `#` notes
 * saved to project memory. Needs `npm run build` first.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    isAppReady,
    keysRead,
    PICKER_READY,
    type NorthPtySession,
    type PtyNorth,
    spawnNorthPty,
    startNorthSession,
} from "../../kit/pty";

const TIMEOUT = 90_000;

let session: NorthPtySession | undefined;
const extra: PtyNorth[] = [];
afterEach(async () => {
    for (const north of extra.splice(0)) north.kill();
    await session?.dispose();
    session = undefined;
});

const todo = (first: string, second: string) => ({
    toolCalls: [
        {
            name: "todo_write",
            input: {
                items: [
                    { content: "Find the retry logic", status: first },
                    { content: "Raise the limit", status: second },
                ],
            },
        },
    ],
});

/** The rows between the transcript and the composer's prompt. */
const screen = (north: PtyNorth): string => north.screenText();

describe("the to-do list and # notes in the chat", () => {
    it(
        "pins the list, updates it, keeps it on resume, folds it when done; # saves a note the next request sends",
        async () => {
            session = await startNorthSession({ env: { NO_COLOR: "1" }, rows: 40 });
            const { north, server, submit, env, repo } = session;

            server.enqueue(todo("in_progress", "pending"), { text: "Started." });
            await submit("raise the retry limit");
            await north.waitForText("Started.");
            await north.waitForText("◐ Find the retry logic");
            expect(screen(north)).toContain("☐ Raise the limit");
            expect(screen(north)).toContain("0/2 done");

            server.enqueue(todo("done", "in_progress"), { text: "Found it." });
            await submit("go on");
            await north.waitForText("Found it.");
            await north.waitForText("◐ Raise the limit");
            expect(screen(north)).toContain("☑ Find the retry logic");
            expect(screen(north)).not.toContain("☐ Raise the limit");

            await submit("# Use pnpm, not npm");
            // The note asks where it goes; project memory is the first choice.
            await north.waitForText("Save this note to");
            await north.waitForText(PICKER_READY);
            north.type("\r");
            await north.waitForText("Saved to project memory (.north/memory/MEMORY.md).");
            const index = join(repo, ".north", "memory", "MEMORY.md");
            expect(readFileSync(index, "utf8")).toBe("# Memory\n\n- Use pnpm, not npm\n");
            const requests = server.requests.length;

            server.enqueue({ text: "Noted." });
            await submit("what do you remember?");
            await north.waitForText("Noted.");
            expect(server.requests.length).toBe(requests + 1);
            expect(
                JSON.stringify((server.requests.at(-1)!.body as { system: unknown }).system)
            ).toContain("Use pnpm, not npm");
            await north.exit();

            const resumed = spawnNorthPty({
                args: ["--path", repo, "--continue"],
                env,
                cwd: repo,
                rows: 40,
            });
            extra.push(resumed);
            await resumed.waitFor(() => isAppReady(resumed), 20_000, "the status line");
            await keysRead(resumed);
            await resumed.waitForText("◐ Raise the limit");
            expect(screen(resumed)).toContain("☑ Find the retry logic");

            server.enqueue(todo("done", "done"), { text: "All done." });
            resumed.type("finish");
            await resumed.waitForText("finish");
            resumed.type("\r");
            await resumed.waitForText("All done.");
            await resumed.waitForText("☑ To-do list: all 2 done");
            expect(screen(resumed)).not.toContain("◐");
            expect(existsSync(index)).toBe(true);
        },
        TIMEOUT
    );
});
