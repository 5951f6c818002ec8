/**
 * "Always" with a prefix rule in the shell review: `p` keeps `Bash(touch:*)`
 * in the user's own store (~/.north/approvals.json, nothing in the
 * repository), and the next command it covers runs without a review. Needs
 * `npm run build` first.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type NorthPtySession, pause, REVIEW_SETTLE_MS, startNorthSession } from "../../kit/pty";

const TIMEOUT = 45_000;

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

const shell = (command: string) => ({ name: "shell_run", input: { command } });

describe("the shell review's prefix rule", () => {
    it(
        "offers p for touch:*, keeps it as the user's own permission rule, and the next touch runs unasked",
        async () => {
            session = await startNorthSession({ files: { "app.ts": "export {};\n" } });
            const { north, server, submit, repo, env } = session;
            server.enqueue({ toolCalls: [shell("touch one.txt")] }, { text: "First done." });
            await submit("make one");
            await north.waitForText("[p] always touch:*");
            expect(north.screenText()).toContain("[a] always");
            await pause(REVIEW_SETTLE_MS);
            north.type("p");
            await north.waitForText("First done.");
            expect(existsSync(join(repo, "one.txt"))).toBe(true);
            const saved = JSON.parse(
                readFileSync(join(env.NORTH_DATA_DIR!, "approvals.json"), "utf8")
            );
            expect(saved.projects[realpathSync(repo)].allow).toEqual(["Bash(touch:*)"]);
            expect(existsSync(join(repo, ".north"))).toBe(false);

            // Covered by the rule: no review, it just runs.
            server.enqueue({ toolCalls: [shell("touch two.txt")] }, { text: "Second done." });
            await submit("make two");
            await north.waitForText("Second done.");
            expect(existsSync(join(repo, "two.txt"))).toBe(true);

            // Not covered (a compound with another command): asked again.
            server.enqueue(
                { toolCalls: [shell("touch three.txt && rm one.txt")] },
                { text: "Third done." }
            );
            await submit("make three");
            await north.waitForText("[d] deny");
            await pause(REVIEW_SETTLE_MS);
            north.type("d");
            await north.waitForText("Third done.");
            expect(existsSync(join(repo, "one.txt"))).toBe(true);
            expect(existsSync(join(repo, "three.txt"))).toBe(false);
        },
        TIMEOUT
    );

    it(
        "lists the rules with /permissions, and an ask rule still asks after auto all",
        async () => {
            session = await startNorthSession({
                files: {
                    "app.ts": "export {};\n",
                    ".north/settings.json": JSON.stringify({
                        permissions: { ask: ["Bash(touch ran.txt)"], deny: ["Read(./.env)"] },
                    }),
                },
            });
            const { north, server, submit, repo } = session;
            await submit("/permissions");
            await north.waitForText("Read(./.env)");
            expect(north.screenText()).toContain("Bash(touch ran.txt)");
            expect(north.screenText()).toContain(".north/settings.json");
            // The list is a picker that removes what is chosen; Esc keeps them all.
            north.type("\x1b");
            await north.waitForText("Remove one with /permissions remove");

            server.enqueue({ toolCalls: [shell("touch a.txt")] }, { text: "A done." });
            await submit("make a");
            await north.waitForText("[y] auto all");
            await pause(REVIEW_SETTLE_MS);
            north.type("y");
            await north.waitForText("A done.");

            server.enqueue({ toolCalls: [shell("touch ran.txt")] }, { text: "Ran done." });
            await submit("make ran");
            await north.waitForText("asked because of the rule");
            expect(existsSync(join(repo, "ran.txt"))).toBe(false);
            await pause(REVIEW_SETTLE_MS);
            north.type("r");
            await north.waitForText("Ran done.");
            expect(existsSync(join(repo, "ran.txt"))).toBe(true);
        },
        TIMEOUT
    );

    it(
        "names the Edit ask rule in the edit review",
        async () => {
            session = await startNorthSession({
                files: {
                    "app.ts": "export const retries = 3;\n",
                    ".north/settings.json": JSON.stringify({
                        permissions: { ask: ["Edit(./app.ts)"] },
                    }),
                },
            });
            const { north, server, submit, repo } = session;
            server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "edit_replace_exact",
                            input: {
                                path: "app.ts",
                                old_text: "retries = 3",
                                new_text: "retries = 5",
                            },
                        },
                    ],
                },
                { text: "Bumped." }
            );
            await submit("bump");
            await north.waitForText("asked because of the rule Edit(./app.ts)");
            await pause(REVIEW_SETTLE_MS);
            north.type("a");
            await north.waitForText("Bumped.");
            expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 5;\n");
        },
        TIMEOUT
    );
});
