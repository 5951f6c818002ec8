/**
 * The "Learn this project?" question never swallows a prompt (issue 18,
 * part 10): text typed right after launch stays in the composer and is sent,
 * and a key that is not an answer puts the question off into the composer.
 * Needs `npm run build` first.
 */
import { realpathSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createProfileStore } from "../../../src/storage/profile";
import { isAppReady, LEARNING_READY, type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 40_000;

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

/** The composer's rows (from the row starting with ❯ down to the status line), trimmed. */
function composerText(screen: string): string {
    const rows = screen.split("\n");
    const rule = rows.findLastIndex((row) => /─ (ask|agent|plan) ─/.test(row));
    return rows
        .slice(rule + 1, -1)
        .map((row) => row.trim())
        .join("\n");
}

describe("the learning question and typing", () => {
    it(
        "keeps a prompt typed right after launch, does not take its n as an answer, and sends it",
        async () => {
            session = await startNorthSession({ learningPrompt: true, waitReady: false });
            const { north, server, env, repo } = session;
            // Typed before the app is up (the terminal holds it until North reads).
            north.type("now fix the build");
            await north.waitFor(() => isAppReady(north), 20_000, "the status line");
            await north.waitFor(
                () => composerText(north.screenText()).includes("❯ now fix the build"),
                10_000,
                "the typed prompt in the composer"
            );
            await north.waitForText("asks to learn this project next time");
            expect(north.screenText()).not.toContain("Learn this project?");
            expect(north.screenText()).not.toContain("will not ask again");

            server.enqueue({ text: "Fixed it." });
            north.type("\r");
            await north.waitForText("Fixed it.");
            expect(JSON.stringify(server.requests.at(-1)?.body)).toContain("now fix the build");
            // Not declined: asked again at the next start.
            const profiles = createProfileStore(env.NORTH_DATA_DIR!, realpathSync(repo));
            expect(profiles.hasDeclined()).toBe(false);
        },
        TIMEOUT
    );

    it(
        "puts the question off when a key that is not an answer is typed, keeping the key",
        async () => {
            session = await startNorthSession({ learningPrompt: true });
            const { north } = session;
            await north.waitForText("Learn this project?");
            await north.waitForText(LEARNING_READY);
            north.type("w");
            await north.waitFor(
                () => !north.screenText().includes("Learn this project?"),
                10_000,
                "the question gone"
            );
            north.type("hat is this?");
            await north.waitFor(
                () => composerText(north.screenText()).includes("❯ what is this?"),
                10_000,
                "the keys in the composer, in order"
            );
            expect(north.screenText()).toContain("asks to learn this project next time");
        },
        TIMEOUT
    );

    it(
        "still takes a deliberate y after a pause",
        async () => {
            session = await startNorthSession({ learningPrompt: true });
            const { north, server } = session;
            server.enqueue({ text: "The project is empty." });
            await north.waitForText("Learn this project?");
            await north.waitForText(LEARNING_READY);
            north.type("y");
            await north.waitForText("in the background");
            expect(composerText(north.screenText())).not.toContain("❯ y");
        },
        TIMEOUT
    );
});
