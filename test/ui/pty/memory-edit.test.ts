/**
 * Memory edited from the chat: `/memory edit` hands the terminal to $EDITOR
 * and takes it back (screen, transcript and composer as they were), and the
 * saved memory goes with the next request; a missing editor is a clear
 * error; `/new` starts with the notes saved before it; a `#` line typed while
 * North answers is saved when its turn comes, never sent. Needs
 * `npm run build` first.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HeldLlmServer, startHeldLlmServer } from "../../kit/held-llm-server";
import { type NorthPtySession, PICKER_READY, isAppReady, startNorthSession } from "../../kit/pty";

const TIMEOUT = 90_000;
const ENTER_ALT_SCREEN = "\x1b[?1049h";
const MOUSE_ON = "\x1b[?1000h\x1b[?1006h";

let session: NorthPtySession | undefined;
let held: HeldLlmServer | undefined;
let tools: string;
/** An "editor" that says it ran (on the main screen) and appends a line to its file. */
let editor: string;
beforeEach(() => {
    tools = mkdtempSync(join(tmpdir(), "north-editor-"));
    editor = join(tools, "append-editor.sh");
    writeFileSync(
        editor,
        '#!/bin/sh\nprintf "THE EDITOR RAN\\n"\nprintf -- "- Release notes go in CHANGES.md\\n" >> "$1"\n'
    );
    chmodSync(editor, 0o755);
});
afterEach(async () => {
    await session?.dispose();
    await held?.close();
    session = undefined;
    held = undefined;
    rmSync(tools, { recursive: true, force: true });
});

const systemOf = (body: unknown): string => JSON.stringify((body as { system: unknown }).system);

describe("memory edited from the chat", () => {
    it(
        "/memory edit hands the terminal to $EDITOR, comes back intact, and the next request carries the edit",
        async () => {
            session = await startNorthSession({ env: { EDITOR: editor, NO_COLOR: "1" } });
            const { north, server, submit, repo } = session;
            server.enqueue({ text: "Hi there." });
            await submit("hello");
            await north.waitForText("Hi there.");

            await submit("/memory edit");
            await north.waitForText(
                /Memory reloaded: \d+ B in 1 file; the next request carries it\./
            );
            const index = join(repo, ".north", "memory", "MEMORY.md");
            expect(readFileSync(index, "utf8")).toBe(
                "# Memory\n\n- Release notes go in CHANGES.md\n"
            );
            // Back in the alternate screen with the mouse on: the editor's own output is gone.
            const output = north.output();
            const ran = output.indexOf("THE EDITOR RAN");
            expect(ran).toBeGreaterThan(-1);
            expect(output.indexOf(ENTER_ALT_SCREEN, ran)).toBeGreaterThan(ran);
            expect(output.indexOf(MOUSE_ON, ran)).toBeGreaterThan(ran);
            // The chat redraws over the editor's screen.
            await north.waitFor(
                () => !north.screenText().includes("THE EDITOR RAN") && isAppReady(north),
                10_000,
                "the chat redrawn"
            );
            const screen = north.screenText();
            expect(screen).not.toContain("THE EDITOR RAN");
            expect(screen).toContain("Hi there.");
            expect(screen).toContain("hello");
            expect(isAppReady(north)).toBe(true);

            server.enqueue({ text: "Noted the release notes." });
            await submit("where do release notes go?");
            await north.waitForText("Noted the release notes.");
            expect(systemOf(server.requests.at(-1)!.body)).toContain(
                "Release notes go in CHANGES.md"
            );
        },
        TIMEOUT
    );

    it(
        "an $EDITOR that does not exist is a clear error and the chat goes on",
        async () => {
            session = await startNorthSession({
                env: { EDITOR: "/no/such/editor", NO_COLOR: "1" },
            });
            const { north, server, submit } = session;
            server.enqueue({ text: "Hi there." });
            await submit("hello");
            await north.waitForText("Hi there.");

            await submit("/memory edit");
            await north.waitForText("the editor $EDITOR (/no/such/editor) was not found");
            expect(north.screenText()).toContain("Hi there.");

            server.enqueue({ text: "Still here." });
            await submit("are you there?");
            await north.waitForText("Still here.");
        },
        TIMEOUT
    );

    it(
        "/new after a # note: the new conversation's first request carries the note",
        async () => {
            session = await startNorthSession({ env: { NO_COLOR: "1" } });
            const { north, server, submit } = session;
            await submit("# The staging host is stage-2");
            // The note asks where it goes; project memory is the first choice.
            await north.waitForText("Save this note to");
            await north.waitForText(PICKER_READY);
            north.type("\r");
            await north.waitForText("Saved to project memory");
            await submit("/new");
            await north.waitForText(/Conversation \w+/);

            server.enqueue({ text: "Fresh start." });
            await submit("which host?");
            await north.waitForText("Fresh start.");
            expect(systemOf(server.requests.at(-1)!.body)).toContain("The staging host is stage-2");
        },
        TIMEOUT
    );

    it(
        "a # line typed while North answers is saved when its turn comes, never sent as a prompt",
        async () => {
            held = await startHeldLlmServer();
            session = await startNorthSession({
                env: { ANTHROPIC_BASE_URL: held.anthropicBaseUrl, NO_COLOR: "1" },
            });
            const { north, submit, repo } = session;
            await submit("first question");
            await held.requested(1);
            north.type("# Answer in French\r");
            await north.waitForText(/queued # Answer in French/);
            north.type("second question\r");
            await north.waitForText(/queued # Answer in French \(\+1 lines\)/);

            held.release({ text: "First answer." });
            // The note's turn asks where it goes before the prompt queued after it is sent.
            await north.waitForText("Save this note to");
            await north.waitForText(PICKER_READY);
            north.type("\r");
            await held.requested(2);
            await north.waitForText("Saved to project memory");
            expect(readFileSync(join(repo, ".north", "memory", "MEMORY.md"), "utf8")).toBe(
                "# Memory\n\n- Answer in French\n"
            );
            const second = held.bodies[1] as {
                system: unknown;
                messages: Array<{ role: string; content: unknown }>;
            };
            const sent = JSON.stringify(second.messages);
            expect(sent).toContain("second question");
            expect(sent).not.toContain("Answer in French");
            expect(systemOf(second)).toContain("Answer in French");
            held.release({ text: "Second answer." });
            await north.waitForText("Second answer.");
        },
        TIMEOUT
    );
});
