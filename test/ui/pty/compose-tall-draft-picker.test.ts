/**
 * A draft taller than the composer says how many of its lines are out of
 * view, above and below; the /model picker narrows as the user types.
 * Needs `node scripts/build.mjs` first.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type NorthPtySession, PICKER_READY, startNorthSession } from "../../kit/pty";

const TIMEOUT = 60_000;

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

describe("a tall draft", () => {
    it(
        "shows '↑ N more lines' above the lines in view, and '↓ N more lines' once the cursor moved up",
        async () => {
            // 24 rows: the composer shows 6 text lines.
            session = await startNorthSession({ cols: 80, rows: 24, env: { NO_COLOR: "1" } });
            const { north } = session;
            const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
            north.type(lines.join("\n"));
            await north.waitForText("↑ 4 more lines");
            expect(north.screenText()).toContain("line 10");
            // The marker sits right above the first line in view.
            expect(north.screenText()).toMatch(/↑ 4 more lines\n\s*❯ line 5\n/);
            // Up to the first line: the window follows, the rest is below.
            north.type("\x1b[A".repeat(9));
            await north.waitForText("↓ 4 more lines");
            expect(north.screenText()).toContain("❯ line 1");
            expect(north.screenText()).not.toContain("↑ ");
        },
        TIMEOUT
    );
});

describe("the /model picker", () => {
    it(
        "narrows as letters are typed, shows the count, and Enter switches to the highlighted model",
        async () => {
            session = await startNorthSession({ cols: 120, rows: 40, env: { NO_COLOR: "1" } });
            const { north, submit } = session;
            await submit("/model");
            await north.waitForText(PICKER_READY);
            await north.waitForText("type to filter");
            north.type("haiku");
            await north.waitForText(/filter: haiku · \d+ of \d+/);
            await north.waitForText("› haiku-5-5");
            expect(north.screenText()).not.toContain("opus-4-1");
            north.type("\x7f\x7f\x7f\x7f\x7f");
            await north.waitFor(
                () => !north.screenText().includes("filter:"),
                10_000,
                "the filter cleared"
            );
            north.type("haiku\r");
            await north.waitForText("Switched to");
            await north.waitForText(/Haiku 5\.5/i);
        },
        TIMEOUT
    );
});
