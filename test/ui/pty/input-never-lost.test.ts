/**
 * Nothing the user types is lost: Ctrl+C clears the composer (Up brings the
 * text back), text typed while North answers stays, Enter queues it until the
 * answer ends, and Esc interrupts like Ctrl+C. The model answers only when
 * the test releases it, so "while busy" lasts exactly as long as needed.
 * Needs `npm run build` first.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type HeldLlmServer, startHeldLlmServer } from "../../kit/held-llm-server";
import { type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 40_000;

let session: NorthPtySession | undefined;
let held: HeldLlmServer | undefined;
afterEach(async () => {
    await session?.dispose();
    await held?.close();
    session = undefined;
    held = undefined;
});

async function start(): Promise<{ session: NorthPtySession; held: HeldLlmServer }> {
    held = await startHeldLlmServer();
    session = await startNorthSession({ env: { ANTHROPIC_BASE_URL: held.anthropicBaseUrl } });
    return { session, held };
}

/** The composer's input rows (from the first "❯ " row down to the status line). */
function composerText(session: NorthPtySession): string {
    const rows = session.north.screenText().split("\n");
    const first = rows.findLastIndex((row) => row.includes("❯ "));
    return first === -1 ? "" : rows.slice(first, -1).join("\n");
}

/** The text of user message `n` (0-based) the model received. */
function userText(held: HeldLlmServer, request: number): string {
    const body = held.bodies[request] as { messages: Array<{ role: string; content: unknown }> };
    const last = body.messages.filter((m) => m.role === "user").at(-1);
    return JSON.stringify(last?.content ?? "");
}

describe("typed input is never lost", () => {
    it(
        "Ctrl+C clears the composer, Up brings the text back, Ctrl+C on the empty composer exits",
        async () => {
            const { session } = await start();
            const { north } = session;
            north.type("a draft worth keeping");
            await north.waitForText("❯ a draft worth keeping");
            north.type("\x03");
            await north.waitFor(
                () => !north.screenText().includes("a draft worth keeping"),
                10_000,
                "the composer cleared"
            );
            expect(north.hasExited()).toBe(false);
            north.type("\x1b[A");
            await north.waitForText("❯ a draft worth keeping");
            north.type("\x03");
            await north.waitFor(
                () => !north.screenText().includes("a draft worth keeping"),
                10_000,
                "the composer cleared again"
            );
            const { exitCode } = await north.exit();
            expect([0, 130]).toContain(exitCode);
        },
        TIMEOUT
    );

    it(
        "text typed while North answers stays; Enter queues it and it is sent when the answer ends",
        async () => {
            const { session, held } = await start();
            const { north, submit } = session;
            await submit("first question");
            await held.requested(1);
            await north.waitForText("Enter queues a message");
            // Typed and sent in one write while the answer is pending.
            north.type("second question\r");
            await north.waitForText(/queued second question/);
            expect(composerText(session)).not.toContain("second question");
            expect(held.bodies).toHaveLength(1);

            held.release({ text: "First answer." });
            await held.requested(2);
            expect(userText(held, 1)).toContain("second question");
            held.release({ text: "Second answer." });
            await north.waitForText("Second answer.");
            const screen = north.screenText();
            expect(screen.indexOf("First answer.")).toBeLessThan(screen.indexOf("second question"));
            expect(screen).not.toContain("queued");
        },
        TIMEOUT
    );

    it(
        "the queued message is sent even when the answer ends in an error",
        async () => {
            const { session, held } = await start();
            const { north, submit } = session;
            await submit("first question");
            await held.requested(1);
            north.type("after the error\r");
            await north.waitForText(/queued after the error/);
            held.release({ error: { status: 400, message: "bad request from the fake" } });
            await held.requested(2);
            expect(userText(held, 1)).toContain("after the error");
            held.release({ text: "Recovered." });
            await north.waitForText("Recovered.");
            expect(north.screenText()).toContain("bad request from the fake");
        },
        TIMEOUT
    );

    it(
        "Up on the empty composer takes the queued message back to edit; cleared, it is never sent",
        async () => {
            const { session, held } = await start();
            const { north, submit } = session;
            await submit("first question");
            await held.requested(1);
            north.type("a message with a tpyo\r");
            await north.waitForText(/queued a message with a tpyo/);
            north.type("\x1b[A");
            await north.waitForText("❯ a message with a tpyo");
            expect(north.screenText()).not.toMatch(/queued a message/);
            // Edited and queued again.
            north.type("\x7f\x7f\x7fypo\r");
            await north.waitForText(/queued a message with a typo/);
            // Taken back again and removed.
            north.type("\x1b[A");
            await north.waitForText("❯ a message with a typo");
            north.type("\x03");
            await north.waitFor(
                () => !north.screenText().includes("a message with a typo"),
                10_000,
                "the message removed"
            );
            held.release({ text: "Only answer." });
            await north.waitForText("Only answer.");
            await north.waitForText("Enter to send");
            expect(held.bodies).toHaveLength(1);
        },
        TIMEOUT
    );

    it(
        "Esc interrupts the answer like Ctrl+C; what was queued comes back to the composer unsent",
        async () => {
            const { session, held } = await start();
            const { north, submit } = session;
            await submit("first question");
            await held.requested(1);
            north.type("keep this for later\r");
            await north.waitForText(/queued keep this for later/);
            north.type("still typing");
            await north.waitForText("❯ still typing");
            north.type("\x1b");
            await north.waitForText("[Cancelled]");
            await north.waitForText("❯ keep this for later");
            expect(composerText(session)).toContain("still typing");
            expect(north.screenText()).not.toMatch(/queued keep/);
            expect(held.bodies).toHaveLength(1);
            expect(north.hasExited()).toBe(false);
        },
        TIMEOUT
    );
});
