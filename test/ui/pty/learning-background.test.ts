/**
 * Project learning runs behind the chat (issue 18, part 10): after "y" to
 * "Learn this project?", the user chats while the status line shows the
 * learning's progress; `/learn stop` cancels it and says so. Needs `npm run
 * build` first.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FakeLlmServer } from "../../kit/fake-llm-server";
import { type PacedLlmServer, startPacedLlmServer } from "../../kit/paced-llm-server";
import { LEARNING_READY, type NorthPtySession, startNorthSession } from "../../kit/pty";

let session: NorthPtySession | undefined;
let paced: PacedLlmServer | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
    await paced?.close();
    paced = undefined;
});

describe("learning in the background", () => {
    it("lets the user chat while learning runs, shows its progress, and /learn stop ends it", async () => {
        paced = await startPacedLlmServer();
        // The first learning topic's answer stays open, so learning is still running below.
        paced.enqueue(
            { text: ["Exploring the project ", "…"], holdAfterChunks: 1 },
            { text: "The project has one file." }
        );
        session = await startNorthSession({
            files: { "a.ts": "export const a = 1;\n" },
            learningPrompt: true,
            server: paced as unknown as FakeLlmServer,
        });
        const { north, submit } = session;
        await north.waitForText("Learn this project?");
        await north.waitForText(LEARNING_READY);
        north.type("y");
        await north.waitForText("in the background");
        await north.waitFor(
            () => /learning \d+% · /.test(north.screenText()),
            10_000,
            "learning progress in the status line"
        );

        await submit("what is in this project?");
        await north.waitForText("The project has one file.");
        expect(north.screenText()).toMatch(/learning \d+% · /);

        await submit("/learn stop");
        await north.waitForText("Learning cancelled; the profile was not changed.");
        await north.waitFor(
            () => !/learning \d+% · /.test(north.screenText()),
            10_000,
            "the progress gone"
        );
    }, 90_000);
});
