/**
 * Reading the whole story (issue 36, parts 6 and 1): Ctrl+O opens the
 * transcript view at the latest folded entry with everything unfolded,
 * searchable, and Esc comes back to the chat as it was; fold hints say where
 * the hidden lines are; paste chips open with their own key; leaving the
 * chat leaves a compact transcript in the normal screen (or not, by
 * setting), and with --no-alt-screen no busy hint. Needs `npm run build` first.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    answerReview,
    type NorthPtySession,
    type PtyNorth,
    REVIEW_READY,
    startNorthSession,
} from "../../kit/pty";

const TIMEOUT = 90_000;
const CTRL_O = "\x0f";
const CTRL_T = "\x14";
const ESC = "\x1b";
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

let session: NorthPtySession | undefined;
const dirs: string[] = [];
afterEach(async () => {
    await session?.dispose();
    session = undefined;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const shell = (command: string) => ({
    toolCalls: [{ name: "shell_run", input: { command } }],
});

/** Index of the first screen row that holds `text` (-1 when none). */
const rowIndex = (screen: string, text: string | RegExp): number =>
    screen
        .split("\n")
        .findIndex((row) => (typeof text === "string" ? row.includes(text) : text.test(row)));

/** The normal screen's buffer, scrollback included, once the alternate screen is left. */
function normalBuffer(north: PtyNorth): string {
    const buffer = north.term.buffer.normal;
    const rows: string[] = [];
    for (let i = 0; i < buffer.length; i++) {
        rows.push(buffer.getLine(i)?.translateToString(true) ?? "");
    }
    return rows.join("\n");
}

function configDirWith(settings: Record<string, unknown>): string {
    const dir = mkdtempSync(join(tmpdir(), "north-story-config-"));
    dirs.push(dir);
    writeFileSync(join(dir, "config.json"), JSON.stringify(settings));
    return dir;
}

/** Runs a command whose long output folds, and waits for the answer after it. */
async function foldedCommand(s: NorthPtySession): Promise<void> {
    const { north, server, submit } = s;
    // The word is in the output only, not in the command's title or its review.
    server.enqueue(shell("printf 'needle%sword\\n' -; seq 1 40"), { text: "Counted." });
    await submit("count to forty");
    await north.waitForText("Run this command?");
    await answerReview(north, { option: 1 });
    await north.waitForText("Counted.");
    await north.waitForText(/earlier lines above/);
}

describe("the transcript view", () => {
    it(
        "says the hidden lines are above a tail; Ctrl+O shows them, / finds a word, Esc comes back with the draft",
        async () => {
            session = await startNorthSession({ rows: 40 });
            const { north } = session;
            await foldedCommand(session);
            const chat = north.screenText();
            // The hint sits on top of the tail it folds, under the status line of the command.
            const hint = rowIndex(chat, "… 37 earlier lines above · Ctrl+O transcript");
            expect(hint).toBeGreaterThan(-1);
            expect(hint).toBeLessThan(rowIndex(chat, /^\s+40$/));
            expect(hint).toBeGreaterThan(rowIndex(chat, "exit 0"));
            expect(chat).not.toMatch(/^\s+needle-word$/m);
            expect(chat).not.toMatch(/^\s+12$/m);

            north.type("my draft");
            await north.waitForText("❯ my draft");
            north.type(CTRL_O);
            await north.waitForText("Transcript ·");
            // Opened at the folded entry: its whole output, from its first line.
            const view = north.screenText();
            expect(view.split("\n")[0]).toContain("⚡ Running printf");
            expect(view).toMatch(/^\s+needle-word$/m);
            expect(view).toMatch(/^\s+12$/m);
            expect(view).not.toContain("my draft");

            north.type("G");
            await north.waitForText("end · following");
            north.type("/needle-word");
            await north.waitForText("/needle-word▏");
            north.type("\r");
            await north.waitForText("match 1 ");
            expect(north.screenText()).toMatch(/^\s+needle-word$/m);
            north.type("/nowhere-at-all\r");
            await north.waitForText('no match for "nowhere-at-all"');

            north.type(ESC); // the search's marks
            await north.waitFor(
                () => !north.screenText().includes("no match"),
                10_000,
                "the search closed"
            );
            north.type(ESC); // the view
            await north.waitForText("❯ my draft");
            expect(north.screenText()).not.toContain("Transcript ·");
            expect(north.screenText()).toContain("earlier lines above");
        },
        TIMEOUT
    );

    it(
        "opens at the end when nothing is folded, and Ctrl+O again leaves it",
        async () => {
            session = await startNorthSession({ rows: 30 });
            const { north, server, submit } = session;
            server.enqueue({ text: "A short answer." });
            await submit("hello");
            await north.waitForText("A short answer.");
            north.type(CTRL_O);
            await north.waitForText("Transcript · all shown");
            expect(north.screenText()).toContain("A short answer.");
            north.type(CTRL_O);
            await north.waitForText("Enter to send");
            expect(north.screenText()).not.toContain("Transcript ·");
        },
        TIMEOUT
    );

    it(
        "opens a paste chip with Ctrl+T, its own key, as the chip's hint says",
        async () => {
            session = await startNorthSession();
            const { north } = session;
            const pasted = Array.from({ length: 12 }, (_, i) => `log line ${i}`).join("\n");
            north.type(`see ${PASTE_START}${pasted}${PASTE_END}`);
            await north.waitForText("❯ see [Pasted 12 lines]");
            expect(north.screenText()).toContain("Ctrl+T opens the paste");
            north.type(CTRL_T);
            await north.waitForText("log line 11");
        },
        TIMEOUT
    );
});

describe("Esc means one thing at a time", () => {
    it(
        "in the transcript view Esc goes back and leaves a running command running",
        async () => {
            session = await startNorthSession({ rows: 30 });
            const { north, server, submit } = session;
            server.enqueue(shell("echo started-it; sleep 120"));
            await submit("run the slow thing");
            await north.waitForText("Run this command?");
            await answerReview(north, { option: 1 });
            await north.waitForText(/^ +started-it$/m, 20_000);
            north.type(CTRL_O);
            await north.waitForText("Transcript ·");
            north.type(ESC);
            await north.waitForText("Esc or Ctrl+C to cancel");
            expect(north.screenText()).not.toContain("Transcript ·");
            expect(north.screenText()).not.toContain("(cancelled)");
            // Now Esc is the chat's again: it interrupts.
            north.type(ESC);
            await north.waitForText("(cancelled)");
        },
        TIMEOUT
    );

    it(
        "over a review the view takes every key; Esc in the full-screen diff goes back to the review",
        async () => {
            session = await startNorthSession({ cols: 80, rows: 24 });
            const { north, server, submit, repo } = session;
            const content = Array.from({ length: 40 }, (_, i) => `const v${i} = ${i};`).join("\n");
            server.enqueue(
                { toolCalls: [{ name: "edit_create_file", input: { path: "forty.ts", content } }] },
                { text: "Made it." }
            );
            await submit("create forty.ts");
            await north.waitForText(REVIEW_READY);
            north.type(CTRL_O);
            await north.waitForText("Transcript ·");
            // Enter and 1 would answer the review under the view: here they do nothing.
            north.type("1");
            north.type("\r");
            north.type(ESC);
            await north.waitForText(REVIEW_READY);
            expect(existsSync(join(repo, "forty.ts"))).toBe(false);

            north.type("f");
            await north.waitForText("f back (or Esc)");
            north.type(ESC);
            await north.waitForText("f full screen");
            // Back in the review, still waiting: Esc did not refuse it or stop the run.
            expect(north.screenText()).toContain(REVIEW_READY);
            await answerReview(north, { option: 1 });
            await north.waitForText("Made it.");
            expect(existsSync(join(repo, "forty.ts"))).toBe(true);
        },
        TIMEOUT
    );
});

describe("leaving the chat", () => {
    it(
        "leaves a compact transcript in the normal screen before the resume hint",
        async () => {
            session = await startNorthSession({ rows: 40 });
            const { north } = session;
            await foldedCommand(session);
            await north.exit();
            await north.flush();
            const left = normalBuffer(north);
            expect(left).toContain("❯ count to forty");
            expect(left).toContain("● Counted.");
            expect(left).toContain("⚡ Running printf 'needle%sword\\n' -; seq 1 40");
            // Compact: the output stays folded away.
            expect(left).not.toMatch(/^\s+needle-word$/m);
            expect(left.indexOf("Counted.")).toBeLessThan(
                left.indexOf("Continue this conversation")
            );
        },
        TIMEOUT
    );

    it(
        "leaves only the resume hint with exitTranscript: false",
        async () => {
            session = await startNorthSession({
                env: { NORTH_CONFIG_DIR: configDirWith({ exitTranscript: false }) },
            });
            const { north, server, submit } = session;
            server.enqueue({ text: "Quiet answer." });
            await submit("hello there");
            await north.waitForText("Quiet answer.");
            await north.exit();
            await north.flush();
            const left = normalBuffer(north);
            expect(left).toContain("Continue this conversation");
            expect(left).not.toContain("Quiet answer.");
            expect(left).not.toContain("hello there");
        },
        TIMEOUT
    );

    it(
        "--no-alt-screen: the view works inline; /quit's last frame has no composer, busy hint or status line",
        async () => {
            session = await startNorthSession({ args: ["--no-alt-screen"] });
            const { north, server, submit } = session;
            server.enqueue({ text: "Inline answer." });
            await submit("inline please");
            await north.waitForText("Inline answer.");
            // The transcript view draws inside the frame here; Esc brings the chat back.
            north.type(CTRL_O);
            await north.waitForText("Transcript · all shown");
            north.type(ESC);
            await north.waitForText("Enter to send");
            expect(north.screenText()).not.toContain("Transcript ·");
            north.type("/quit");
            await north.waitForText("❯ /quit");
            north.type("\r");
            await north.exited;
            await north.flush();
            const left = normalBuffer(north);
            expect(left).toContain("Inline answer.");
            // Whatever /quit leaves, it is not written twice.
            expect(left.split("Bye.").length).toBeLessThanOrEqual(2);
            expect(left).not.toContain("Esc or Ctrl+C to cancel");
            expect(left).not.toContain("Enter to send");
            expect(left).toContain("Continue this conversation");
        },
        TIMEOUT
    );
});
