/**
 * Reviews end to end: edits and commands the fake model asks for are shown
 * for review in the real terminal, and only the user's keys decide them.
 * Needs `npm run build` first.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type NorthPtySession, pause, REVIEW_SETTLE_MS, startNorthSession } from "../../kit/pty";

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
        "applies an edit approved with a",
        async () => {
            session = await startNorthSession({ files: { "app.ts": ORIGINAL } });
            const { north, server, submit, repo } = session;
            server.enqueue({ toolCalls: [edit] }, { text: "Bumped the retries." });
            await submit("bump retries to 5");
            await north.waitForText("[a] accept");
            // The coloured diff of the change is on screen.
            expect(north.screenText()).toContain("-export const retries = 3;");
            expect(north.screenText()).toContain("+export const retries = 5;");
            expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe(ORIGINAL);
            await pause(REVIEW_SETTLE_MS);
            north.type("a");
            await north.waitForText("Bumped the retries.");
            expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 5;\n");
            expect(session.lastRequest()).toContain("applied");
            expect(north.screenText()).not.toContain("[a] accept");
        },
        TIMEOUT
    );

    it(
        "writes nothing for an edit rejected with r",
        async () => {
            session = await startNorthSession({ files: { "app.ts": ORIGINAL } });
            const { north, server, submit, repo } = session;
            server.enqueue({ toolCalls: [edit] }, { text: "Left it alone." });
            await submit("bump retries to 5");
            await north.waitForText("[r] reject");
            await pause(REVIEW_SETTLE_MS);
            north.type("r");
            await north.waitForText("Left it alone.");
            expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe(ORIGINAL);
            expect(session.lastRequest()).toContain("rejected");
        },
        TIMEOUT
    );

    it(
        "does not run a command denied with d",
        async () => {
            session = await startNorthSession({ files: { "app.ts": ORIGINAL } });
            const { north, server, submit, repo } = session;
            server.enqueue(
                { toolCalls: [{ name: "shell_run", input: { command: "touch ran.txt" } }] },
                { text: "Did not run it." }
            );
            await submit("create ran.txt");
            await north.waitForText("[d] deny");
            expect(north.screenText()).toContain("touch ran.txt");
            await pause(REVIEW_SETTLE_MS);
            north.type("d");
            await north.waitForText("Did not run it.");
            expect(existsSync(join(repo, "ran.txt"))).toBe(false);
            expect(session.lastRequest()).toContain("denied");
        },
        TIMEOUT
    );

    it(
        "runs a command approved with r",
        async () => {
            session = await startNorthSession({ files: { "app.ts": ORIGINAL } });
            const { north, server, submit, repo } = session;
            server.enqueue(
                { toolCalls: [{ name: "shell_run", input: { command: "touch ran.txt" } }] },
                { text: "Ran it." }
            );
            await submit("create ran.txt");
            await north.waitForText("[d] deny");
            await pause(REVIEW_SETTLE_MS);
            north.type("r");
            await north.waitForText("Ran it.");
            expect(existsSync(join(repo, "ran.txt"))).toBe(true);
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
            await north.waitForText("[a] accept");
            north.type("\x03");
            await north.waitForText("[Cancelled]");
            expect(north.screenText()).not.toContain("[a] accept");
            expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe(ORIGINAL);
            expect(north.hasExited()).toBe(false);
            server.enqueue({ text: "Still here." });
            await submit("hello again");
            await north.waitForText("Still here.");
        },
        TIMEOUT
    );
});
