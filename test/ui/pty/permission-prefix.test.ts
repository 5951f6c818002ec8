/**
 * "Always" with a prefix rule in the shell review's menu keeps `Bash(touch:*)`
 * in the user's own store (~/.north/approvals.json, nothing in the
 * repository), and the next command it covers runs without a review. Needs
 * `npm run build` first.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { answerReview, type NorthPtySession, REVIEW_READY, startNorthSession } from "../../kit/pty";

const TIMEOUT = 45_000;

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

const shell = (command: string) => ({ name: "shell_run", input: { command } });

describe("the shell review's prefix rule", () => {
    it(
        "offers commands starting touch, kept in the user's own store (not the repository), and the next touch runs unasked",
        async () => {
            session = await startNorthSession({ files: { "app.ts": "export {};\n" } });
            const { north, server, submit, repo, env } = session;
            server.enqueue({ toolCalls: [shell("touch one.txt")] }, { text: "First done." });
            await submit("make one");
            await north.waitForText("3. Yes, and don't ask again for commands starting `touch`");
            expect(north.screenText()).toContain("2. Yes, and don't ask again for `touch one.txt`");
            // ↓↓ to the option; it is kept for the user unless Tab picks the project's file.
            await north.waitForText(REVIEW_READY);
            north.type("\x1b[B\x1b[B");
            await north.waitForText("Tab: keep it in .north/settings.local.json");
            expect(north.screenText()).toContain("(kept in ~/.north for you)");
            north.type("\r");
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
            await north.waitForText("touch three.txt && rm one.txt");
            await answerReview(north, { refuse: "" });
            await north.waitForText("Third done.");
            expect(existsSync(join(repo, "one.txt"))).toBe(true);
            expect(existsSync(join(repo, "three.txt"))).toBe(false);
        },
        TIMEOUT
    );

    it(
        "lists the rules with /permissions, and an ask rule still asks after a standing prefix approval",
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
            await north.waitForText("commands starting `touch`");
            await north.waitForText(REVIEW_READY);
            // Approving every command is no longer one keystroke away.
            expect(north.screenText()).not.toMatch(/auto all|every command/);
            north.type("3");
            await north.waitForText("A done.");

            server.enqueue({ toolCalls: [shell("touch ran.txt")] }, { text: "Ran done." });
            await submit("make ran");
            await north.waitForText("asked because of the rule");
            expect(existsSync(join(repo, "ran.txt"))).toBe(false);
            await answerReview(north, { option: 1 });
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
            await answerReview(north, { option: 1 });
            await north.waitForText("Bumped.");
            expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 5;\n");
        },
        TIMEOUT
    );
});
