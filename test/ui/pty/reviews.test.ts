/**
 * Reviews end to end: edits and commands the fake model asks for are shown
 * for review in the real terminal as one numbered menu, and only the user's
 * deliberate keys decide them (issue 31, part 1).
 * Needs `npm run build` first.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PAUSE_THEN_CHOOSE } from "../../../src/ui/reviews/review-menu";
import { type NorthPtySession, REVIEW_READY, startNorthSession } from "../../kit/pty";

const TIMEOUT = 30_000;
const ORIGINAL = "export const retries = 3;\n";

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

const edit = {
    name: "edit_replace_exact",
    input: { path: "app.ts", old_text: "retries = 3", new_text: "retries = 5" },
};

describe("reviews in the interactive app", () => {
    it(
        "applies an edit approved with 1, after r and y did nothing",
        async () => {
            session = await startNorthSession({ files: { "app.ts": ORIGINAL } });
            const { north, server, submit, repo } = session;
            server.enqueue({ toolCalls: [edit] }, { text: "Bumped the retries." });
            await submit("bump retries to 5");
            await north.waitForText(REVIEW_READY);
            // The coloured diff of the change is on screen, under the numbered menu.
            const screen = north.screenText();
            expect(screen).toContain("-export const retries = 3;");
            expect(screen).toContain("+export const retries = 5;");
            expect(screen).toContain("❯ 1. Yes, make this edit");
            expect(screen).toContain("3. No, and tell North what to do instead");
            // r once rejected an edit and y accepted every edit: now they answer nothing.
            // The arrow after each is taken in order, so the review is still there when it moves.
            north.type("r\x1b[B");
            await north.waitForText("❯ 2. Yes, and accept all edits");
            north.type("y\x1b[B");
            await north.waitForText("❯ 3. No, and tell North what to do instead");
            expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe(ORIGINAL);
            expect(north.screenText()).not.toContain("keys went to your draft");
            north.type("\x1b[A");
            await north.waitForText("❯ 2. Yes, and accept all edits");
            north.type("\x1b[A");
            await north.waitForText("❯ 1. Yes, make this edit");
            expect(server.requests).toHaveLength(1);
            north.type("1");
            await north.waitForText("Bumped the retries.");
            expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 5;\n");
            expect(session.lastRequest()).toContain("applied");
            expect(north.screenText()).not.toContain("Yes, make this edit");
        },
        TIMEOUT
    );

    it(
        "rejects an edit with ↓↓ Enter and sends the typed reason to the model",
        async () => {
            session = await startNorthSession({ files: { "app.ts": ORIGINAL } });
            const { north, server, submit, repo } = session;
            server.enqueue({ toolCalls: [edit] }, { text: "Left it alone." });
            await submit("bump retries to 5");
            await north.waitForText(REVIEW_READY);
            north.type("\x1b[B\x1b[B");
            await north.waitForText("❯ 3. No, and tell North what to do instead");
            north.type("\r");
            await north.waitForText("what instead?");
            north.type("make it 4 instead");
            await north.waitForText("make it 4 instead");
            north.type("\r");
            await north.waitForText("Left it alone.");
            expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe(ORIGINAL);
            const request = session.lastRequest();
            expect(request).toContain("rejected");
            expect(request).toContain("make it 4 instead");
            // The transcript's line keeps the reason too.
            expect(north.screenText()).toContain('"make it 4 instead"');
        },
        TIMEOUT
    );

    it(
        "refuses a command with Esc, Esc: nothing runs, no reason is sent",
        async () => {
            session = await startNorthSession({ files: { "app.ts": ORIGINAL } });
            const { north, server, submit, repo } = session;
            server.enqueue(
                { toolCalls: [{ name: "shell_run", input: { command: "touch ran.txt" } }] },
                { text: "Did not run it." }
            );
            await submit("create ran.txt");
            await north.waitForText(REVIEW_READY);
            const screen = north.screenText();
            expect(screen).toContain("touch ran.txt");
            expect(screen).toContain("❯ 1. Yes, run it once");
            expect(screen).toContain("2. Yes, and don't ask again for `touch ran.txt` in this");
            north.type("\x1b");
            await north.waitForText("what instead?");
            north.type("\x1b");
            await north.waitForText("Did not run it.");
            expect(existsSync(join(repo, "ran.txt"))).toBe(false);
            expect(session.lastRequest()).toContain("the user denied this command");
            expect(session.lastRequest()).not.toContain("said what to do instead");
        },
        TIMEOUT
    );

    it(
        "runs a command approved with 1",
        async () => {
            session = await startNorthSession({ files: { "app.ts": ORIGINAL } });
            const { north, server, submit, repo } = session;
            server.enqueue(
                { toolCalls: [{ name: "shell_run", input: { command: "touch ran.txt" } }] },
                { text: "Ran it." }
            );
            await submit("create ran.txt");
            await north.waitForText(REVIEW_READY);
            north.type("1");
            await north.waitForText("Ran it.");
            expect(existsSync(join(repo, "ran.txt"))).toBe(true);
        },
        TIMEOUT
    );

    it.each(["yeah", "no", "hold on", "1\r"])(
        "keeps %j typed as the review appears in the draft, answering nothing",
        async (typed) => {
            session = await startNorthSession({ files: { "app.ts": ORIGINAL } });
            const { north, server, submit, repo } = session;
            server.enqueue(
                { toolCalls: [{ name: "shell_run", input: { command: "touch ran.txt" } }] },
                { text: "Ran it." }
            );
            if (typed.includes("\r")) server.enqueue({ text: "Got your note." });
            await submit("create ran.txt");
            // The keys leave in the same moment the review's frame is drawn.
            await north.typeWhen("Run this command?", typed.slice(0, 2));
            north.type(typed.slice(2));
            await north.waitForText("keys went to your draft");
            await north.waitForText(REVIEW_READY);
            expect(existsSync(join(repo, "ran.txt"))).toBe(false);
            const draft = typed.replace("\r", "");
            if (!typed.includes("\r")) expect(north.screenText()).toContain(draft);
            // A deliberate answer after the pause works; the draft is still there.
            north.type("1");
            await north.waitForText("Ran it.");
            expect(existsSync(join(repo, "ran.txt"))).toBe(true);
            if (typed.includes("\r")) {
                // Enter sent the draft as the next prompt, after the run: nothing was answered by it.
                await north.waitForText("Got your note.");
                expect(session.lastRequest()).toContain('"1"');
            } else {
                expect(north.screenText()).toContain(draft);
                expect(server.requests).toHaveLength(2);
            }
        },
        TIMEOUT
    );

    it.each([
        ["a paste", "sure, option 2\r"],
        ["a bracketed paste", "\x1b[200~sure, option 2\r\x1b[201~"],
    ])(
        "puts %s on an open review into the draft: nothing is approved",
        async (_, paste) => {
            session = await startNorthSession({ files: { "app.ts": ORIGINAL } });
            const { north, server, submit, repo } = session;
            server.enqueue(
                { toolCalls: [{ name: "shell_run", input: { command: "touch ran.txt" } }] },
                { text: "Did not run it." },
                { text: "Got your note." }
            );
            await submit("create ran.txt");
            await north.waitForText(REVIEW_READY);
            north.type(paste);
            await north.waitForText(PAUSE_THEN_CHOOSE);
            // The review takes keys again after the pause: it is still asking.
            await north.waitForText(REVIEW_READY);
            expect(existsSync(join(repo, "ran.txt"))).toBe(false);
            expect(north.screenText()).toContain("sure, option 2");
            expect(north.screenText()).not.toContain("Always");
            north.type("\x1b");
            await north.waitForText("what instead?");
            north.type("\x1b");
            await north.waitForText("Did not run it.");
            expect(existsSync(join(repo, "ran.txt"))).toBe(false);
            expect(JSON.stringify(server.requests[1]?.body)).toContain(
                "the user denied this command"
            );
        },
        TIMEOUT
    );

    it(
        "cancels a pending edit review with Ctrl+C: nothing written, the app keeps running",
        async () => {
            session = await startNorthSession({ files: { "app.ts": ORIGINAL } });
            const { north, server, submit, repo } = session;
            server.enqueue({ toolCalls: [edit] });
            await submit("bump retries to 5");
            await north.waitForText("Yes, make this edit");
            north.type("\x03");
            await north.waitForText("[Cancelled]");
            expect(north.screenText()).not.toContain("Yes, make this edit");
            expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe(ORIGINAL);
            expect(north.hasExited()).toBe(false);
            server.enqueue({ text: "Still here." });
            await submit("hello again");
            await north.waitForText("Still here.");
        },
        TIMEOUT
    );

    it(
        "does not run a command approved with 1 and cancelled with Esc in the same keystrokes",
        async () => {
            session = await startNorthSession();
            const { north, server, submit, repo } = session;
            server.enqueue({
                toolCalls: [{ name: "shell_run", input: { command: "touch ran.txt" } }],
            });
            await submit("create ran.txt");
            await north.waitForText(REVIEW_READY);
            north.type("1\x1b");
            await north.waitForText("[Cancelled]");
            expect(existsSync(join(repo, "ran.txt"))).toBe(false);
            // The model is told the command was cancelled, not that it ran.
            server.enqueue({ text: "Understood." });
            await submit("what happened?");
            await north.waitForText("Understood.");
            expect(session.lastRequest()).toMatch(/cancelled by the user/i);
            expect(existsSync(join(repo, "ran.txt"))).toBe(false);
        },
        TIMEOUT
    );
});
