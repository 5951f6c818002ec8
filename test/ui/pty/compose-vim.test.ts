/**
 * Vim keys in the composer through the real terminal: /vim turns them on
 * and saves editorMode; Esc goes to normal mode, where cw, counts and u
 * edit the draft; Enter sends from normal mode; a saved editorMode starts
 * the next chat with vim keys. Needs `node scripts/build.mjs` first.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type HeldLlmServer, startHeldLlmServer } from "../../kit/held-llm-server";
import { type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 60_000;

let session: NorthPtySession | undefined;
let config: string | undefined;
let held: HeldLlmServer | undefined;
afterEach(async () => {
    await session?.dispose();
    await held?.close();
    session = undefined;
    held = undefined;
    if (config) rmSync(config, { recursive: true, force: true });
    config = undefined;
});

describe("vim keys in the composer", () => {
    it(
        "/vim turns them on and saves it; Esc, cw, 2u and Enter from normal mode work on the draft",
        async () => {
            session = await startNorthSession({ env: { NO_COLOR: "1" } });
            const { north, server, submit, env } = session;
            await submit("/vim");
            await north.waitForText("Vim keys on");
            expect(
                JSON.parse(readFileSync(join(env.NORTH_CONFIG_DIR!, "config.json"), "utf8"))
            ).toMatchObject({ editorMode: "vim" });
            await north.waitForText("-- INSERT --");

            north.type("hello world");
            await north.waitForText("❯ hello world");
            north.type("\x1b");
            await north.waitForText("-- NORMAL --");
            north.type("0cwbye");
            await north.waitForText("❯ bye world");
            await north.waitForText("-- INSERT --");
            north.type("\x1b");
            await north.waitForText("-- NORMAL --");
            north.type("2u");
            await north.waitForText("❯ hello world");

            server.enqueue({ text: "Sent from normal mode." });
            north.type("\r");
            await north.waitForText("Sent from normal mode.");
            expect(session.lastRequest()).toContain("hello world");
            // The next prompt starts in insert mode.
            await north.waitForText("-- INSERT --");

            await submit("/vim");
            await north.waitForText("Vim keys off");
            await north.waitFor(
                () => !north.screenText().includes("-- INSERT --"),
                10_000,
                "the mode line gone"
            );
        },
        TIMEOUT
    );

    it(
        "a saved editorMode starts the chat with vim keys",
        async () => {
            config = mkdtempSync(join(tmpdir(), "north-vim-config-"));
            writeFileSync(join(config, "config.json"), JSON.stringify({ editorMode: "vim" }));
            session = await startNorthSession({
                env: { NO_COLOR: "1", NORTH_CONFIG_DIR: config },
            });
            const { north } = session;
            await north.waitForText("-- INSERT --");
            north.type("one two three");
            await north.waitForText("❯ one two three");
            // Esc alone: Esc and a key in one read are Alt+key.
            north.type("\x1b");
            await north.waitForText("-- NORMAL --");
            north.type("0wdw");
            await north.waitForText("❯ one three");
        },
        TIMEOUT
    );

    it(
        "while North works, Esc in insert mode goes to normal mode and Esc in normal mode interrupts",
        async () => {
            config = mkdtempSync(join(tmpdir(), "north-vim-config-"));
            writeFileSync(join(config, "config.json"), JSON.stringify({ editorMode: "vim" }));
            held = await startHeldLlmServer();
            session = await startNorthSession({
                env: {
                    NO_COLOR: "1",
                    NORTH_CONFIG_DIR: config,
                    ANTHROPIC_BASE_URL: held.anthropicBaseUrl,
                },
            });
            const { north, submit } = session;
            await submit("a long question");
            await held.requested(1);
            north.type("next one");
            await north.waitForText("❯ next one");
            north.type("\x1b");
            await north.waitForText("-- NORMAL --");
            expect(north.screenText()).not.toContain("[Cancelled]");
            north.type("\x1b");
            await north.waitForText("[Cancelled]");
            expect(north.screenText()).toContain("❯ next one");
        },
        TIMEOUT
    );
});
