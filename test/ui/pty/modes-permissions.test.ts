/**
 * Modes and standing approvals you can see and undo: the mode is always in
 * the status line and Shift+Tab cycles ask → agent → accept edits → plan; an
 * edit review's "for the rest of the session" turns on accept edits (shown;
 * nothing saved in the repository); a command approved for good in the chat
 * is listed by /permissions with its file, removed there, and the next
 * identical command is asked again. Needs `npm run build` first.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { answerReview, type NorthPtySession, PICKER_READY, startNorthSession } from "../../kit/pty";

const TIMEOUT = 60_000;
const SHIFT_TAB = "\x1b[Z";
// The review menu's options: 1 yes once; 2 the standing answer (edits: for the session).
const ONCE = { option: 1 };
const STANDING = { option: 2 };

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

/** The status line: the last row with anything on it. */
function statusRow(s: NorthPtySession): string {
    return (
        s.north
            .screenText()
            .split("\n")
            .findLast((row) => row.trim() !== "") ?? ""
    );
}

async function waitForStatus(s: NorthPtySession, text: string): Promise<void> {
    await s.north.waitFor(
        () => statusRow(s).includes(text),
        15_000,
        `"${text}" in the status line`
    );
}

const shell = (command: string) => ({ name: "shell_run", input: { command } });
const write = (path: string, content: string) => ({
    name: "edit_create_file",
    input: { path, content },
});

describe("the mode in the status line", () => {
    it(
        "is always shown, even when narrow, and Shift+Tab cycles ask → agent → accept edits → plan",
        async () => {
            session = await startNorthSession({ cols: 120 });
            await waitForStatus(session, "agent");
            expect(statusRow(session)).not.toContain("accept edits on");
            session.north.type(SHIFT_TAB);
            await waitForStatus(session, "accept edits on");
            // Squeezed: the model and costs give way, the mode does not.
            session.north.resize(44, 30);
            await waitForStatus(session, "accept edits on");
            session.north.resize(120, 30);
            session.north.type(SHIFT_TAB);
            await waitForStatus(session, "plan");
            session.north.type(SHIFT_TAB);
            await waitForStatus(session, "ask");
            session.north.type(SHIFT_TAB);
            await waitForStatus(session, "agent");
            expect(statusRow(session)).not.toContain("accept edits on");
        },
        TIMEOUT
    );
});

describe("accept edits from an edit review", () => {
    it(
        "turns the mode on where it shows, lands the next edit unreviewed, saves nothing in the repository, and /permissions switches it back",
        async () => {
            session = await startNorthSession({ cols: 160 });
            const { north, server, submit, repo } = session;
            server.enqueue(
                { toolCalls: [write("one.txt", "1\n")] },
                { toolCalls: [write("two.txt", "2\n")] },
                { text: "Both written." }
            );
            await submit("write two files");
            await north.waitForText("one.txt");
            await answerReview(north, STANDING);
            await north.waitForText("Both written.");
            await waitForStatus(session, "accept edits on");
            expect(north.screenText()).toContain("Accept edits on");
            expect(readFileSync(join(repo, "two.txt"), "utf8")).toBe("2\n");
            expect(existsSync(join(repo, ".north"))).toBe(false);

            await submit("/permissions");
            await north.waitForText("mode: accept edits on");
            await north.waitForText(PICKER_READY);
            north.type("\r");
            await north.waitForText("Edits are reviewed again.");
            await waitForStatus(session, "agent");

            server.enqueue({ toolCalls: [write("three.txt", "3\n")] }, { text: "Third." });
            await submit("write a third");
            await north.waitForText("three.txt");
            expect(existsSync(join(repo, "three.txt"))).toBe(false);
            await answerReview(north, ONCE);
            await north.waitForText("Third.");
            expect(existsSync(join(repo, "three.txt"))).toBe(true);
        },
        TIMEOUT
    );
});

describe("a standing approval made in the chat", () => {
    it(
        "is listed by /permissions with its file, removed there, and the next identical command is asked again",
        async () => {
            session = await startNorthSession({ cols: 200 });
            const { north, server, submit, repo, env } = session;
            const store = join(env.NORTH_DATA_DIR!, "approvals.json");
            server.enqueue({ toolCalls: [shell("touch one.txt")] }, { text: "First." });
            await submit("touch it");
            await north.waitForText("don't ask again for `touch one.txt`");
            await answerReview(north, STANDING);
            await north.waitForText("First.");
            // Kept for the user, by project; no file in the repository.
            expect(JSON.parse(readFileSync(store, "utf8")).projects).toEqual({
                [realpathSync(repo)]: { allowedCommands: ["touch one.txt"] },
            });
            expect(existsSync(join(repo, ".north"))).toBe(false);

            // Held: the same command runs unasked.
            server.enqueue({ toolCalls: [shell("touch one.txt")] }, { text: "Second." });
            await submit("again");
            await north.waitForText("Second.");

            await submit("/permissions");
            await north.waitForText(`allow Bash(touch one.txt) (exact) - ${store}`);
            await north.waitForText(PICKER_READY);
            north.type("\r");
            await north.waitForText("Removed Bash(touch one.txt).");
            expect(JSON.parse(readFileSync(store, "utf8")).projects).toEqual({
                [realpathSync(repo)]: { allowedCommands: [] },
            });

            // Asked again at once.
            server.enqueue({ toolCalls: [shell("touch one.txt")] }, { text: "Third." });
            await submit("once more");
            await north.waitForText("don't ask again for `touch one.txt`");
            await answerReview(north, { refuse: "" });
            await north.waitForText("Third.");

            // The list no longer has it, and says nothing is in force.
            await submit("/permissions");
            await north.waitForText("No permission rules.");
        },
        TIMEOUT
    );
});
