/**
 * A key typed while an answer streams is drawn on its own: it does not wait
 * for the stream's next frame (issue 36, "Speed a user feels"). The answer is
 * held part way by the fake model, so its next chunk never comes while the
 * keys are typed. Needs `npm run build` first.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FakeLlmServer } from "../../kit/fake-llm-server";
import { type PacedLlmServer, startPacedLlmServer } from "../../kit/paced-llm-server";
import { type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 40_000;

let session: NorthPtySession | undefined;
let paced: PacedLlmServer | undefined;
afterEach(async () => {
    await session?.dispose();
    await paced?.close();
    session = undefined;
    paced = undefined;
});

describe("echo while an answer streams", () => {
    it(
        "shows each key typed while the answer waits for its next chunk, and keeps them after Esc",
        async () => {
            // Paced, so the answer can stop part way and stay open until interrupted.
            paced = await startPacedLlmServer();
            const server = paced;
            session = await startNorthSession({ server: paced as unknown as FakeLlmServer });
            const { north, submit } = session;
            server.enqueue({
                text: ["Counting the modules: ", "there are twelve."],
                holdAfterChunks: 1,
            });
            await submit("count the modules");
            await north.waitForText("Counting the modules:");
            for (const typed of ["n", "ne", "nex", "next"]) {
                north.type(typed.slice(-1));
                await north.waitForText(`❯ ${typed}`);
                // Still the same frame of the answer: the echo did not wait for more of it.
                expect(north.screenText()).not.toContain("there are twelve.");
            }
            north.type("\x1b");
            await north.waitForText(/interrupted|cancelled/i);
            expect(north.screenText()).toContain("❯ next");
        },
        TIMEOUT
    );
});
