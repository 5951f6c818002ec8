/**
 * /rewind and /fork in the chat, end to end: two prompts that each edit a
 * file, Esc Esc in the empty composer, the two pickers, and the file, the
 * transcript and the composer afterwards; then a fork that `north list`
 * names with its parent. Needs `npm run build` first.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runNorth } from "../../kit/run-north";
import { answerReview, type NorthPtySession, PICKER_READY, startNorthSession } from "../../kit/pty";

const TIMEOUT = 60_000;
const ESC = "\x1b";
const CTRL_U = "\x15";

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

const editTo = (from: number, to: number) => ({
    toolCalls: [
        {
            name: "edit_replace_exact",
            input: { path: "app.ts", old_text: `retries = ${from}`, new_text: `retries = ${to}` },
        },
    ],
});

/** The composer's text: its first row is the last one starting with ❯ (the transcript's are above). */
function composerText(screen: string): string {
    const row = screen
        .split("\n")
        .findLast((r) => /^\s*❯/.test(r))
        ?.trim();
    return row?.replace(/^❯\s*/, "") ?? "";
}

describe("rewind and fork in the chat", () => {
    it(
        "Esc Esc rewinds code and conversation to before prompt 2; /fork names both ids and north list shows the parent",
        async () => {
            session = await startNorthSession({
                files: { "app.ts": "export const retries = 3;\n" },
                rows: 40,
                cols: 160,
            });
            const { north, server, submit, repo, env } = session;
            const app = () => readFileSync(join(repo, "app.ts"), "utf8");
            server.enqueue(editTo(3, 4), { text: "Now four." }, editTo(4, 5), {
                text: "Now five.",
            });
            for (const [prompt, answer] of [
                ["make it four", "Now four."],
                ["make it five", "Now five."],
            ]) {
                await submit(prompt!);
                await north.waitForText("Yes, make this edit");
                await answerReview(north, { option: 1 });
                await north.waitForText(answer!);
            }
            expect(app()).toBe("export const retries = 5;\n");

            // Esc still cancels the picker; nothing changes.
            north.type(ESC);
            await north.waitForText("Esc again to rewind");
            north.type(ESC);
            await north.waitForText("Rewind to before which prompt?");
            await north.waitForText(PICKER_READY);
            north.type(ESC);
            await north.waitForText("Rewind cancelled; nothing was changed.");
            expect(app()).toBe("export const retries = 5;\n");

            north.type(ESC);
            await north.waitForText("Esc again to rewind");
            north.type(ESC);
            // Newest first: prompt 2 is highlighted, with the file it would restore.
            await north.waitForText(/› 2\. make it five +restores app\.ts/);
            expect(north.screenText()).toContain("1. make it four");
            await north.waitForText(PICKER_READY);
            north.type("\r");
            // Wait for the picker's last row, not its title: a frame can arrive in pieces.
            await north.waitForText(/› Restore code and conversation +restores app\.ts/);
            const choice = north.screenText();
            expect(choice).toContain("Before prompt 2: make it five");
            expect(choice).toContain("Files: app.ts");
            expect(choice).toContain(
                "Changes made by shell commands are not tracked: rewind does not undo them."
            );
            expect(choice).toMatch(/› Restore code and conversation +restores app\.ts/);
            await north.waitForText(PICKER_READY);
            north.type("\r");
            await north.waitForText("rewound to before prompt 2");
            // The prompt goes back into the composer after the result line.
            await north.waitFor(
                () => composerText(north.screenText()) === "make it five",
                10_000,
                "prompt 2 back in the composer"
            );

            expect(app()).toBe("export const retries = 4;\n");
            const screen = north.screenText();
            expect(screen).toContain("restored app.ts");
            expect(screen).toContain("Now four.");
            expect(screen).not.toContain("Now five.");
            expect(screen).not.toContain("[Cancelled]");
            // Prompt 2 is in the composer, not in the transcript (the result line quotes it once).
            expect(composerText(screen)).toBe("make it five");
            expect(screen.split("\n").filter((r) => /^\s*❯ make it five/.test(r))).toHaveLength(1);
            // The model's next request carries the rewound conversation.
            server.enqueue({ text: "Sent again." });
            north.type(" please\r");
            await north.waitForText("Sent again.");
            const sent = session.lastRequest();
            expect(sent).toContain("make it five please");
            expect(sent).toContain("Now four.");
            expect(sent).not.toContain("Now five.");

            north.type(CTRL_U);
            await submit("/fork");
            await north.waitForText(/Forked conversation \w+ into \w+/);
            const [, parent, child] =
                /Forked conversation (\w+) into (\w+); the original stays as it was: \/resume (\w+)/.exec(
                    north.screenText()
                ) ?? [];
            expect(parent).toBeTruthy();
            expect(child).not.toBe(parent);
            const listed = await runNorth(["list"], { env, cwd: repo });
            expect(listed.code).toBe(0);
            expect(listed.stdout).toMatch(new RegExp(`^${child} .*\\(fork of ${parent}\\)$`, "m"));
        },
        TIMEOUT
    );
});
