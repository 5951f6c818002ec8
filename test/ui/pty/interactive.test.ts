/**
 * The interactive app end to end: the built `north` in a real pty, its
 * screen read by a headless terminal emulator, the model a fake server.
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

const start = async (options: Parameters<typeof startNorthSession>[0] = {}) => {
    session = await startNorthSession(options);
    return session;
};

describe("interactive north in a terminal", () => {
    it(
        "streams the answer to a prompt",
        async () => {
            const { north, server, submit } = await start();
            server.enqueue({
                text: ["Streaming ", "works: ", "the answer ", "is forty-two."],
            });
            await submit("what is the answer?");
            await north.waitForText("the answer is forty-two.");
            expect(north.screenText()).toContain("what is the answer?");
            expect(JSON.stringify(server.requests[0]?.body)).toContain("what is the answer?");
            expect(north.hasExited()).toBe(false);
        },
        TIMEOUT
    );

    it(
        "cancels a streaming answer with Ctrl+C, shows [Cancelled] and keeps running",
        async () => {
            const { north, server, submit } = await start();
            server.enqueue({ fault: "stall", ms: 60_000 });
            await submit("think for a long time");
            // The request is in flight: the model "streams" (nothing yet).
            await north.waitFor(() => server.requests.length === 1, 10_000, "the model request");
            // Ctrl+C cancels once the composer says so (idle, it would exit).
            await north.waitForText("Ctrl+C to cancel");
            north.type("\x03");
            await north.waitForText("[Cancelled]");
            expect(north.hasExited()).toBe(false);

            server.enqueue({ text: "Back again, ready." });
            await submit("are you still there?");
            await north.waitForText("Back again, ready.");
            expect(north.hasExited()).toBe(false);
        },
        TIMEOUT
    );

    it(
        "exits on Ctrl+C when idle, leaving the terminal as it was",
        async () => {
            const { north } = await start();
            const { exitCode } = await north.exit();
            expect([0, 130]).toContain(exitCode);
            const out = north.output();
            // Back on the main screen, cursor shown after the last hide.
            expect(north.term.buffer.active.type).toBe("normal");
            expect(out).toContain("\x1b[?1049h");
            expect(out.lastIndexOf("\x1b[?1049l")).toBeGreaterThan(out.lastIndexOf("\x1b[?1049h"));
            expect(out.lastIndexOf("\x1b[?25h")).toBeGreaterThan(out.lastIndexOf("\x1b[?25l"));
            // Modes the app may have turned on are off again.
            expect(north.term.modes.bracketedPasteMode).toBe(false);
            expect(north.term.modes.mouseTrackingMode).toBe("none");
            const kittyPushes = out.split("\x1b[>").length - 1;
            if (kittyPushes > 0) expect(out.lastIndexOf("\x1b[<u")).toBeGreaterThan(-1);
        },
        TIMEOUT
    );

    it(
        "re-wraps the transcript when the terminal is resized",
        async () => {
            const { north, server, submit } = await start({ cols: 100, rows: 30 });
            const words = Array.from(
                { length: 40 },
                (_, i) => `word${String(i + 1).padStart(2, "0")}`
            );
            server.enqueue({ text: words.join(" ") });
            await submit("say forty words");
            await north.waitForText("word40");

            const allWordsOnScreen = () => {
                const screen = north.screenText();
                return words.every((w) => new RegExp(`\\b${w}\\b`).test(screen));
            };
            const widestRun = () => {
                // The most answer words found on one screen row.
                let best = 0;
                for (const row of north.screenText().split("\n")) {
                    best = Math.max(best, words.filter((w) => row.includes(w)).length);
                }
                return best;
            };
            expect(widestRun()).toBeGreaterThan(7);

            north.resize(50, 30);
            // Narrower: every word still visible (re-wrapped, not cut off at column 50).
            await north.waitFor(
                () => allWordsOnScreen() && widestRun() <= 7,
                10_000,
                "the answer re-wrapped at 50 columns"
            );
            for (const row of north.screenText().split("\n"))
                expect(row.length).toBeLessThanOrEqual(50);

            north.resize(100, 30);
            await north.waitFor(
                () => allWordsOnScreen() && widestRun() > 7,
                10_000,
                "the answer re-wrapped at 100 columns"
            );
            expect(north.hasExited()).toBe(false);
        },
        TIMEOUT
    );
});
