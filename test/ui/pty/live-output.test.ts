/**
 * Commands in the transcript (issue 18, parts 5 and 8): a running command's
 * output is drawn live with its elapsed time; a finished one shows its last
 * lines under "… N earlier lines above", Ctrl+O's transcript view shows the rest; a failed or cancelled
 * command never reads as a success; thinking folds to one line once the
 * answer starts and the transcript view shows it whole. Needs `npm run build` first.
 */
import { afterEach, describe, expect, it } from "vitest";
import { answerReview, type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 90_000;
const CTRL_O = "\x0f";
const ESC = "\x1b";

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

const shell = (command: string) => ({
    toolCalls: [{ name: "shell_run", input: { command } }],
});

/** The transcript row that holds `text`, trimmed. */
function rowWith(screen: string, text: string): string {
    return (
        screen
            .split("\n")
            .find((row) => row.includes(text))
            ?.trim() ?? ""
    );
}

describe("commands in the transcript", () => {
    it(
        "streams a running command's output with its elapsed time; a cancelled one is marked so",
        async () => {
            session = await startNorthSession();
            const { north, server, submit } = session;
            // Longer than the test may take: only the cancel ends it. With `sleep 30` a loaded
            // machine could take that long to get from the command's start to the Esc, and the
            // command then ended by itself ("never", no "(cancelled)").
            server.enqueue(shell("echo live-line-one; echo live-line-two; sleep 120; echo never"));
            await submit("run the slow thing");
            await north.waitForText("Run this command?");
            await answerReview(north, { option: 1 });
            // The output rows themselves (the review showed the command's text too).
            await north.waitForText(/^ +live-line-two$/m, 20_000);
            expect(north.screenText()).toMatch(/^ +live-line-one$/m);
            await north.waitFor(
                () => / \d+s$/.test(rowWith(north.screenText(), "Running echo live-line-one")),
                10_000,
                "the elapsed time after the title"
            );
            north.type(ESC);
            await north.waitForText("(cancelled)");
            const row = rowWith(north.screenText(), "Running echo live-line-one");
            expect(row).toMatch(/^⊘ /);
            expect(north.screenText()).not.toMatch(/^\s+never$/m);
        },
        TIMEOUT
    );

    it(
        "marks a failed command with ✗, folds long output and shows it whole in the transcript view",
        async () => {
            session = await startNorthSession({ rows: 60 });
            const { north, server, submit } = session;
            server.enqueue(shell("seq 1 40; exit 3"), { text: "It failed." });
            await submit("count to forty");
            await north.waitForText("Run this command?");
            await answerReview(north, { option: 1 });
            await north.waitForText("It failed.");
            // The title and the folded output are drawn from display data that may load after
            // the answer's frame: wait for them rather than read that frame.
            await north.waitFor(
                () =>
                    /… 36 earlier lines above/.test(north.screenText()) &&
                    /^✗ /.test(rowWith(north.screenText(), "Running seq 1 40")),
                10_000,
                "the failed command's row and its folded output"
            );
            const screen = north.screenText();
            expect(rowWith(screen, "Running seq 1 40")).toMatch(/^✗ /);
            expect(screen).toContain("exit 3");
            expect(screen).toMatch(/… 36 earlier lines above · Ctrl\+O transcript/);
            expect(screen).not.toMatch(/^\s+12$/m);
            north.type(CTRL_O);
            await north.waitFor(() => /^\s+12$/m.test(north.screenText()), 10_000, "line 12");
            expect(north.screenText()).toContain("Transcript ·");
            north.type(ESC);
            await north.waitFor(
                () => !/^\s+12$/m.test(north.screenText()),
                10_000,
                "the output folded again"
            );
        },
        TIMEOUT
    );

    it(
        "folds the thinking to one line when the answer starts; the transcript view shows it whole",
        async () => {
            session = await startNorthSession({ rows: 40 });
            const { north, server, submit } = session;
            server.enqueue({
                thinking: {
                    text: "First I look at the files.\nThen the second thought.\nThird thought here.",
                    signature: "sig",
                },
                text: "Here is the answer.",
            });
            await submit("think about it");
            await north.waitForText("Here is the answer.");
            await north.waitForText("(3 lines of thinking · Ctrl+O transcript)");
            expect(north.screenText()).not.toContain("Third thought here.");
            north.type(CTRL_O);
            await north.waitForText("Third thought here.");
        },
        TIMEOUT
    );
});
